package storepage

import (
	"net/http"
	"strings"
)

// headers sets what every page sends. frameAncestors are the origins that may frame the page
// (the game's allowedOrigins of the session's environment); none means no one may.
func headers(w http.ResponseWriter, frameAncestors []string) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp(frameAncestors))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
}

// noStore marks a page that shows a code, a PIN or an address: never kept by a cache.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }

func csp(frameAncestors []string) string {
	fa := "'none'"
	var safe []string
	for _, o := range frameAncestors {
		// Origins were checked when the studio set them; one that could end the directive is
		// left out all the same.
		if o != "" && !strings.ContainsAny(o, " ;,'\"\t\r\n") {
			safe = append(safe, o)
		}
	}
	if len(safe) > 0 {
		fa = strings.Join(safe, " ")
	}
	return "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors " + fa
}
