package webpage

import (
	"bytes"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"sync"
)

// Parse parses the page templates (templates/*.html of files) with funcs and "asset", the address
// of a file of assets ({{asset "store.css"}}). It panics on a parse error: the templates are
// embedded, so one is a build mistake.
func Parse(files fs.FS, assets *Set, funcs template.FuncMap) *template.Template {
	all := template.FuncMap{"asset": assets.URL}
	for name, f := range funcs {
		all[name] = f
	}
	return template.Must(template.New("").Funcs(all).ParseFS(files, "templates/*.html"))
}

// buffers are the buffers pages are rendered into before their length is known.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Write renders the template name of t with data and answers it with status and its length.
// When the template fails it writes nothing and returns the error: the caller answers 500.
func Write(w http.ResponseWriter, status int, t *template.Template, name string, data any) error {
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	buf.Reset()
	if err := t.ExecuteTemplate(buf, name, data); err != nil {
		return err
	}
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
	return nil
}
