package webpage

import (
	"net/http"
	"time"
)

// Cookies sets and clears the cookies of a page set served under Path. Every one is HttpOnly
// (no script reads it) and SameSite=Lax (another site's form does not send it), and Secure
// unless the site runs on plain http (a local run).
type Cookies struct {
	Path   string
	Secure bool
}

// Set sets cookie name to value, kept for maxAge.
func (c Cookies) Set(w http.ResponseWriter, name, value string, maxAge time.Duration) {
	ck := c.cookie(name, value)
	ck.MaxAge = int(maxAge.Seconds())
	if maxAge > 0 {
		ck.Expires = time.Now().Add(maxAge)
	}
	http.SetCookie(w, ck)
}

// Clear deletes cookie name.
func (c Cookies) Clear(w http.ResponseWriter, name string) {
	ck := c.cookie(name, "")
	ck.MaxAge = -1
	http.SetCookie(w, ck)
}

func (c Cookies) cookie(name, value string) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: c.Path, HttpOnly: true, Secure: c.Secure, SameSite: http.SameSiteLaxMode}
}
