package webpage_test

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/webpage"
)

var files = fstest.MapFS{
	"static/site.css":     {Data: []byte("body{color:red}")},
	"templates/page.html": {Data: []byte(`{{define "page.html"}}<link href="{{asset "site.css"}}"><p>{{shout .}}</p>{{end}}`)},
	"templates/bad.html":  {Data: []byte(`{{define "bad.html"}}{{.Missing}}{{end}}`)},
}

func TestAPageIsAnsweredWholeWithItsAssetsHashedName(t *testing.T) {
	t.Parallel()
	assets := webpage.Load(files, "static", "/site/assets/")
	pages := webpage.Parse(files, assets, template.FuncMap{"shout": strings.ToUpper})
	url := assets.URL("site.css")
	require.Regexp(t, `^/site/assets/site\.[0-9a-f]{12}\.css$`, url)

	w := httptest.NewRecorder()
	require.NoError(t, webpage.Write(w, http.StatusCreated, pages, "page.html", "<hi>"))
	require.Equal(t, http.StatusCreated, w.Code)
	require.Equal(t, `<link href="`+url+`"><p>&lt;HI&gt;</p>`, w.Body.String())
	require.Equal(t, strconv.Itoa(w.Body.Len()), w.Header().Get("Content-Length"))

	w = httptest.NewRecorder()
	require.Error(t, webpage.Write(w, http.StatusOK, pages, "bad.html", "a string has no field"))
	require.Zero(t, w.Body.Len(), "a failed page writes nothing: the caller answers 500")
	require.False(t, w.Flushed)
	require.Empty(t, w.Header().Get("Content-Length"))

	mux := http.NewServeMux()
	mux.Handle("GET /site/assets/{name}", assets)
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, url, nil))
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, "body{color:red}", w.Body.String())
	require.Contains(t, w.Header().Get("Cache-Control"), "immutable")
	w = httptest.NewRecorder()
	mux.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/site/assets/site.css", nil))
	require.Equal(t, http.StatusNotFound, w.Code, "only the hashed name is served")
}

func TestCookiesAreHttpOnlyLaxAndSecureOutsidePlainHTTP(t *testing.T) {
	t.Parallel()
	w := httptest.NewRecorder()
	webpage.Cookies{Path: "/site", Secure: true}.Set(w, "s", "v", time.Hour)
	webpage.Cookies{Path: "/site"}.Clear(w, "old")
	cs := (&http.Response{Header: w.Header()}).Cookies()
	require.Len(t, cs, 2)
	set, cleared := cs[0], cs[1]
	require.Equal(t, "v", set.Value)
	require.Equal(t, "/site", set.Path)
	require.Equal(t, 3600, set.MaxAge)
	require.WithinDuration(t, time.Now().Add(time.Hour), set.Expires, 2*time.Second)
	require.True(t, set.HttpOnly)
	require.True(t, set.Secure)
	require.Equal(t, http.SameSiteLaxMode, set.SameSite)
	require.Equal(t, "old", cleared.Name)
	require.Less(t, cleared.MaxAge, 0)
	require.False(t, cleared.Secure, "a plain-http run")
	require.True(t, cleared.HttpOnly)
}
