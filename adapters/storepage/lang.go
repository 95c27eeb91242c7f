package storepage

import (
	"net/http"
	"regexp"
	"strings"
	"time"
)

// langCookie keeps the language a player picked with ?lang=.
const langCookie = "rewards_store_lang"

var langPattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// language is the language catalogue text is shown in: the lang query parameter (kept in a
// cookie), then that cookie, then the first language of Accept-Language, then English.
func (p *Pages) language(w http.ResponseWriter, r *http.Request) string {
	if l := r.URL.Query().Get("lang"); langPattern.MatchString(l) {
		p.cookies.Set(w, langCookie, l, 365*24*time.Hour)
		return l
	}
	if c, err := r.Cookie(langCookie); err == nil && langPattern.MatchString(c.Value) {
		return c.Value
	}
	for _, part := range strings.Split(r.Header.Get("Accept-Language"), ",") {
		tag, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		if langPattern.MatchString(tag) {
			return tag
		}
	}
	return "en"
}
