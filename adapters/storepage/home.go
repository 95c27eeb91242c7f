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
	v, ok := p.visit(w, r)
	if !ok {
		return
	}
	var hp homePage
	for _, giftCard := range []bool{true, false} {
		list, _, err := p.cfg.Shelf.List(r.Context(), catalogue.ListQuery{GameID: v.Player.GameID, Environment: v.Player.Environment,
			CoinID: v.fund.id, GiftCard: ptr(giftCard), Order: catalogue.OrderDefault, Limit: 4})
		if err != nil {
			p.fail(w, r, err)
			return
		}
		shelf, err := cards(list, v.lang)
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
	var err error
	if hp.Orders, _, err = p.orderRows(r, v, 3, 0); err != nil {
		p.fail(w, r, err)
		return
	}
	p.show(w, v, "home.html", "Store", "home", hp)
}
