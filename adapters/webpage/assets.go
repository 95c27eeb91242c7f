package webpage

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

// Set is the files of one folder, by hashed name. It is read-only once loaded.
type Set struct {
	byHash map[string]asset
	urls   map[string]string
}

type asset struct {
	body        []byte
	contentType string
}

// Load reads every file of dir in fsys and names it base.<12 hex digits of its SHA-256>.ext
// under prefix ("/store/assets/"). It panics on a read error: the files are embedded, so one
// is a build mistake.
func Load(fsys fs.FS, dir, prefix string) *Set {
	s := &Set{byHash: map[string]asset{}, urls: map[string]string{}}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		s.byHash[hashed] = asset{body: body, contentType: mime.TypeByExtension(ext)}
		s.urls[e.Name()] = prefix + hashed
	}
	return s
}

// URL is the address of the file named name ("store.css"), "" when there is none.
func (s *Set) URL(name string) string { return s.urls[name] }

// ServeHTTP answers the file whose hashed name is the route's {name}: the route is
// …/assets/{name}.
func (s *Set) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.Serve(w, r, r.PathValue("name")) }

// Serve answers the file whose hashed name is hashed, for a year, or 404.
func (s *Set) Serve(w http.ResponseWriter, r *http.Request, hashed string) {
	a, ok := s.byHash[hashed]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(a.body)
}
