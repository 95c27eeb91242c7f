package consolepage

import (
	"net/http"
)

// csp is every page's Content-Security-Policy: our own styles and script only (no inline
// script or style), images from us or data: URIs (the TOTP QR code), and no one may frame the
// console.
const csp = "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// headers sets what every page sends.
func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	if h.Get("Cache-Control") == "" {
		h.Set("Cache-Control", "no-cache")
	}
}

// noStore marks a page that shows a key, a secret, a token or a TOTP secret: never kept by a
// cache, nor by the browser's history.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }
