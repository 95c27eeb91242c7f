package consolepage

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/go-chi/chi/v5"
)

//go:embed static
var static embed.FS

// asset is one embedded file, served under its content-hashed name.
type asset struct {
	body        []byte
	contentType string
}

// assets are the embedded files by hashed name ("console.3f2a1b9c.css"); assetURL maps a file's
// name to its address.
var assets, assetURL = loadAssets()

func loadAssets() (map[string]asset, map[string]string) {
	byHash, urls := map[string]asset{}, map[string]string{}
	entries, err := fs.ReadDir(static, "static")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := static.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ext := path.Ext(e.Name())
		hashed := strings.TrimSuffix(e.Name(), ext) + "." + hex.EncodeToString(sum[:6]) + ext
		byHash[hashed] = asset{body: body, contentType: mime.TypeByExtension(ext)}
		urls[e.Name()] = Path + "/assets/" + hashed
	}
	return byHash, urls
}

// serveAsset serves an embedded file for a year: its name changes with its content.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[chi.URLParam(r, "name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(a.body)
}
