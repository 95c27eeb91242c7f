package storepage

import (
	"html/template"
	"net/http"

	"github.com/rewardsco/rewards/core/catalogue"
)

// homePage is the store's front: the player's balance, a shelf of gift cards and one of
// everything else, and the player's latest orders.
type homePage struct {
	Cards, Others []template.HTML
	Orders        []orderRow
}

// home is GET /store.
func (p *Pages) home(w http.ResponseWriter, r *http.Request) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	lang := p.language(w, r)
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	var hp homePage
	for _, giftCard := range []bool{true, false} {
		list, _, err := p.cfg.Shelf.List(r.Context(), catalogue.ListQuery{GameID: s.Player.GameID, Environment: s.Player.Environment,
			CoinID: fund.id, GiftCard: ptr(giftCard), Order: catalogue.OrderDefault, Limit: 4})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		shelf, err := cards(list, lang)
		if err != nil {
			p.fail(w, r, err)
			return
		}
		if giftCard {
			hp.Cards = shelf
		} else {
			hp.Others = shelf
		}
	}
	recent, _, err := p.cfg.Orders.PlayerOrders(r.Context(), s.Player.ID, nil, 3, 0)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	names, err := p.names(r, s, fund, recent, lang)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	for _, o := range recent {
		hp.Orders = append(hp.Orders, p.row(o.Order, names))
	}
	v, fa := s.frame("Store", "home", lang, fund)
	v.Page = hp
	p.render(w, http.StatusOK, "home.html", v, fa)
}
