package storepage

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/rewardsco/rewards/core/storefront"
)

// cookieName is the store session's cookie.
const cookieName = "rewards_store"

// shopper is a signed-in request: its session, the game's store and the player's coin.
type shopper struct {
	storefront.Session
	game gameInfo
}

// session resumes the request's store session: ok false without one (no cookie, or one that
// is forged, expired or whose player was blocked, which is then cleared).
func (p *Pages) session(w http.ResponseWriter, r *http.Request) (shopper, bool, error) {
	if p.cfg.Sessions == nil {
		return shopper{}, false, nil
	}
	c, err := r.Cookie(cookieName)
	if err != nil || c.Value == "" {
		return shopper{}, false, nil
	}
	s, err := p.cfg.Sessions.Resume(r.Context(), c.Value)
	if errors.Is(err, storefront.ErrSessionInvalid) {
		p.clearCookie(w)
		return shopper{}, false, nil
	}
	if err != nil {
		return shopper{}, false, err
	}
	g, err := p.games.get(r.Context(), s.Player.GameID)
	if err != nil {
		return shopper{}, false, err
	}
	return shopper{Session: s, game: g}, true, nil
}

// signedIn is session for the pages that need one: without it the player is sent to a page
// that says to open the store from the game (303), and ok is false.
func (p *Pages) signedIn(w http.ResponseWriter, r *http.Request) (shopper, bool) {
	s, ok, err := p.session(w, r)
	if err != nil {
		p.fail(w, r, err)
		return shopper{}, false
	}
	if !ok {
		http.Redirect(w, r, Path+"/signed-out", http.StatusSeeOther)
		return shopper{}, false
	}
	return s, true
}

// visit is a signed-in page's request: the shopper, the language the player reads and its
// balance of the store's coin, which every signed-in page shows.
type visit struct {
	shopper
	lang string
	fund fundView
}

// visit is signedIn with the language and the balance; ok false when it answered already.
func (p *Pages) visit(w http.ResponseWriter, r *http.Request) (visit, bool) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return visit{}, false
	}
	lang := p.language(w, r)
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return visit{}, false
	}
	return visit{shopper: s, lang: lang, fund: fund}, true
}

// show renders the page name of v, titled title under the tab nav, with page.
func (p *Pages) show(w http.ResponseWriter, v visit, name, title, nav string, page any) {
	frame, fa := v.frame(title, nav, v.lang, v.fund)
	frame.Page = page
	p.render(w, http.StatusOK, name, frame, fa)
}

func (p *Pages) setCookie(w http.ResponseWriter, value string, expires time.Time) {
	p.cookies.Set(w, cookieName, value, time.Until(expires))
}

func (p *Pages) clearCookie(w http.ResponseWriter) { p.cookies.Clear(w, cookieName) }

// detached is ctx without its cancellation: a purchase the player's web view gave up on still
// finishes, so that the order it made is the one the next tap finds.
func detached(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
