package storepage

import (
	"errors"
	"net/http"

	"github.com/rewardsco/rewards/core/storefront"
)

// enter opens a store session from a one-time link: the cookie, then 303 to the landing page.
// A used, expired or unknown code (or one whose player is blocked) is a 410 page, no cookie.
func (p *Pages) enter(w http.ResponseWriter, r *http.Request) {
	// The address holds a code: it must not leave in a Referer or stay in a cache.
	noStore(w)
	lang := p.language(w, r)
	if p.cfg.Sessions == nil {
		p.missing(w)
		return
	}
	s, value, err := p.cfg.Sessions.Enter(r.Context(), r.URL.Query().Get("code"))
	if errors.Is(err, storefront.ErrEntryInvalid) || errors.Is(err, storefront.ErrSessionInvalid) {
		p.message(w, http.StatusGone, lang, message{Heading: "This link has expired",
			Text: "Store links work once, for a minute. Open the store again from the game."})
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	g, err := p.games.get(r.Context(), s.Player.GameID)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	p.setCookie(w, value, s.ExpiresAt)
	headers(w, g.game.AllowedOrigins.Of(s.Player.Environment))
	http.Redirect(w, r, landing(g.settings.DefaultLandingPage), http.StatusSeeOther)
}

// landing is the page of the store settings' defaultLandingPage.
func landing(page string) string {
	switch page {
	case "home":
		return Path
	case "gcommerce":
		return Path + "/rewards?kind=other"
	}
	return Path + "/rewards"
}
