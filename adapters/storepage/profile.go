package storepage

import (
	"net/http"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/players"
)

// profilePage is the delivery address form.
type profilePage struct {
	Address players.Address
	Saved   bool
	Problem string
}

// profile is GET /store/profile: the player's delivery address for goods, when the game's
// store sells goods (gcommerce); 404 otherwise.
func (p *Pages) profile(w http.ResponseWriter, r *http.Request) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	pp := profilePage{Saved: r.URL.Query().Get("saved") == "1"}
	for _, a := range s.Player.Addresses {
		if a.Default || pp.Address.Line1 == "" {
			pp.Address = a
		}
	}
	p.profilePage(w, r, s, pp, http.StatusOK)
}

func (p *Pages) profilePage(w http.ResponseWriter, r *http.Request, s shopper, pp profilePage, status int) {
	noStore(w)
	lang := p.language(w, r)
	if !s.game.settings.GcommerceEnabled {
		p.message(w, http.StatusNotFound, lang, message{Heading: "No deliveries here",
			Text: "This store has no goods to deliver, so it needs no address.", Link: Path, LinkText: "Back to the store"})
		return
	}
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	v, fa := s.frame("Your delivery address", "profile", lang, fund)
	v.Page = pp
	p.render(w, status, "profile.html", v, fa)
}

// saveProfile is POST /store/profile: the address becomes the player's default delivery
// address (the others stay); 303 back to the form, or the form again with the problem (400).
func (p *Pages) saveProfile(w http.ResponseWriter, r *http.Request) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	a, ok := parseAddress(w, r)
	if !ok || !s.game.settings.GcommerceEnabled {
		p.profilePage(w, r, s, profilePage{Address: a, Problem: "The form could not be read."}, http.StatusBadRequest)
		return
	}
	// The new address replaces the default one in effect (the one marked, else the first).
	list, hasDefault, replaced := []players.Address{a}, false, false
	for _, old := range s.Player.Addresses {
		hasDefault = hasDefault || old.Default
	}
	for _, old := range s.Player.Addresses {
		if !replaced && (old.Default || !hasDefault) {
			replaced = true
			continue
		}
		list = append(list, old)
	}
	_, err := p.cfg.Profiles.UpdateProfile(r.Context(), s.Player, players.ProfileUpdate{Addresses: &list})
	if e, refused := errs.As(err); refused && e.Kind == errs.Invalid {
		p.profilePage(w, r, s, profilePage{Address: a, Problem: e.Message}, http.StatusBadRequest)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	http.Redirect(w, r, Path+"/profile?saved=1", http.StatusSeeOther)
}
