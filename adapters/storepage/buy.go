package storepage

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
)

// buy is POST /store/rewards/{id}/purchase: the store purchase of POST /rewards/purchase with
// the form's idempotency key, then 303 to the order. A second tap of the same form finds the
// first one's order. A refusal renders the reward's page again with the reason (409, or 429
// when the game's budget is spent) and takes nothing.
func (p *Pages) buy(w http.ResponseWriter, r *http.Request) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		p.missing(w)
		return
	}
	f, problem := parsePurchase(w, r)
	if problem != "" {
		p.rewardPage(w, r, s, id, problem, http.StatusBadRequest)
		return
	}
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	g := s.game.game
	purchase := orders.Purchase{
		Caller: studio.Caller{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: s.Player.Environment,
			ServerOnlyCoinMovements: g.ServerOnlyCoinMovements, AllowedOrigins: g.AllowedOrigins.Of(s.Player.Environment)},
		Player: s.Player, RewardID: id, CoinID: fund.id, Denomination: f.Denomination, Quantity: f.Quantity,
		AddressID: f.AddressID, IdempotencyKey: f.IdempotencyKey,
	}
	// The purchase runs to its end even when the web view gives up on this request (a second
	// tap cancels the first navigation): the second tap then finds its order.
	ctx := detached(r.Context())
	deadline := time.Now().Add(p.cfg.PurchaseWait)
	var v orders.View
	for {
		v, _, err = p.cfg.Orders.Buy(ctx, purchase)
		if errs.CodeOf(err) != idempotency.ErrInProgress.Code || time.Now().After(deadline) {
			break
		}
		// The first tap is still buying: wait for its order.
		time.Sleep(100 * time.Millisecond)
	}
	// Whatever happened, the balance shown next is read again.
	p.balances.drop(s.Player.ID)
	if err != nil {
		e, refused := errs.As(err)
		if !refused || e.Kind == errs.Internal || e.Kind == errs.Unavailable || e.Kind == errs.Upstream {
			p.fail(w, r, err)
			return
		}
		status := http.StatusConflict
		switch e.Kind {
		case errs.RateLimited:
			status = http.StatusTooManyRequests
		case errs.NotFound:
			p.missing(w)
			return
		}
		p.rewardPage(w, r, s, id, refusalWords(e, fund), status)
		return
	}
	http.Redirect(w, r, Path+"/orders/"+v.ID.String(), http.StatusSeeOther)
}

// refusalWords says why a purchase bought nothing, to a player.
func refusalWords(e *errs.Error, fund fundView) string {
	const nothing = " Nothing was taken from your balance."
	switch e.Code {
	case coins.ErrInsufficientBalance.Code:
		return "You don't have enough " + fund.name + " for this: you have " + formatCoins(fund.balance) + "." + nothing
	case orders.ErrOutOfStock.Code:
		return "This reward is out of stock right now." + nothing
	case orders.ErrCooldown.Code:
		return "You bought this reward recently: wait a little before buying it again." + nothing
	case orders.ErrBudgetExceeded.Code:
		return "The store has sold all it can today: try again tomorrow." + nothing
	case orders.ErrAddressRequired.Code:
		return "Add a delivery address in your profile first." + nothing
	}
	words := e.Message
	if words != "" {
		words = strings.ToUpper(words[:1]) + words[1:]
	}
	return strings.TrimSuffix(words, ".") + "." + nothing
}
