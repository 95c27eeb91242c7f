package storepage

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/orders"
)

// orderRow is an order in the list; orderPage an order's page.
type orderRow struct {
	URL, Name, Status, When string
	Coins                   int64
	Pending                 bool
}

type ordersPage struct {
	Rows       []orderRow
	Prev, Next string
}

type codeView struct {
	Code, Pin, Expiry, Value string
}

type orderPage struct {
	orderRow
	ID          string
	Failed      bool
	Reason      string
	Codes       []codeView
	HowToRedeem string
	Address     string
}

// statusWords says where an order stands, and whether it is still on its way.
func statusWords(s orders.Status) (string, bool) {
	switch s {
	case orders.Success:
		return "Delivered", false
	case orders.Failed:
		return "Failed: your coins were given back", false
	case orders.Refunded:
		return "Refunded", false
	}
	return "On its way", true
}

// orders is GET /store/orders?page=: the player's orders, newest first.
func (p *Pages) orders(w http.ResponseWriter, r *http.Request) {
	v, ok := p.visit(w, r)
	if !ok {
		return
	}
	page, _ := strconv.Atoi(r.URL.Query().Get("page"))
	page = max(1, min(page, 500))
	rows, total, err := p.orderRows(r, v, pageSize, (page-1)*pageSize)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	op := ordersPage{Rows: rows}
	if page > 1 {
		op.Prev = Path + "/orders?page=" + strconv.Itoa(page-1)
	}
	if int64(page*pageSize) < total {
		op.Next = Path + "/orders?page=" + strconv.Itoa(page+1)
	}
	p.show(w, v, "orders.html", "Your orders", "orders", op)
}

// orderRows are limit of the player's orders from offset, newest first, and how many it has.
func (p *Pages) orderRows(r *http.Request, v visit, limit, offset int) ([]orderRow, int64, error) {
	list, total, err := p.cfg.Orders.PlayerOrders(r.Context(), v.Player.ID, nil, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	names, err := p.names(r, v, list)
	if err != nil {
		return nil, 0, err
	}
	var rows []orderRow
	for _, o := range list {
		rows = append(rows, p.row(o.Order, names))
	}
	return rows, total, nil
}

func (p *Pages) row(o orders.Order, names map[uuid.UUID]string) orderRow {
	words, pending := statusWords(o.Status)
	name := names[o.RewardID]
	if name == "" {
		name = "Reward"
	}
	return orderRow{URL: Path + "/orders/" + o.ID.String(), Name: name, Status: words, Pending: pending,
		When: o.CreatedAt.UTC().Format("2 Jan 2006 15:04 UTC"), Coins: o.CoinsSpent}
}

// names are the rewards of orders, in lang, read as the list reads them.
func (p *Pages) names(r *http.Request, v visit, list []orders.View) (map[uuid.UUID]string, error) {
	names := map[uuid.UUID]string{}
	var ids []uuid.UUID
	for _, o := range list {
		if _, seen := names[o.RewardID]; !seen {
			names[o.RewardID] = ""
			ids = append(ids, o.RewardID)
		}
	}
	if len(ids) == 0 {
		return names, nil
	}
	listed, _, err := p.cfg.Shelf.List(r.Context(), catalogue.ListQuery{GameID: v.Player.GameID, Environment: v.Player.Environment,
		CoinID: v.fund.id, RewardIDs: ids, Limit: len(ids)})
	if err != nil {
		return nil, err
	}
	for _, l := range listed {
		names[l.Reward.ID], _ = localise(l.Reward.Translations, v.lang, l.Reward.Name, "")
	}
	return names, nil
}

// order is GET /store/orders/{id}: the order's status, its codes with PIN and expiry, and how
// to redeem them; never cached. Another player's order is 404. A pending order's page is
// refreshed by static/store.js until it is final.
func (p *Pages) order(w http.ResponseWriter, r *http.Request) {
	s, ok := p.signedIn(w, r)
	if !ok {
		return
	}
	noStore(w)
	lang := p.language(w, r)
	id, err := uuid.Parse(r.PathValue("id"))
	if err != nil {
		p.missingOrder(w, lang)
		return
	}
	o, err := p.cfg.Orders.PlayerOrder(r.Context(), s.Player.ID, id)
	if errs.KindOf(err) == errs.NotFound || (err == nil && (o.GameID != s.Player.GameID || o.Environment != s.Player.Environment)) {
		p.missingOrder(w, lang)
		return
	}
	if err != nil {
		p.fail(w, r, err)
		return
	}
	fund, err := p.fund(r.Context(), s)
	if err != nil {
		p.fail(w, r, err)
		return
	}
	v := visit{shopper: s, lang: lang, fund: fund}
	names, err := p.names(r, v, []orders.View{o})
	if err != nil {
		p.fail(w, r, err)
		return
	}
	op := orderPage{orderRow: p.row(o.Order, names), ID: o.ID.String(), Failed: o.Status == orders.Failed, Reason: o.FailureReason}
	for _, c := range o.Codes {
		cv := codeView{Code: c.Code, Pin: c.Pin}
		if c.Value > 0 {
			cv.Value = p.money(c.Value)
		}
		if c.Expiry != nil {
			cv.Expiry = c.Expiry.UTC().Format("2 Jan 2006")
		}
		op.Codes = append(op.Codes, cv)
	}
	if rw, err := p.cfg.Catalogue.GetReward(r.Context(), o.RewardID); err == nil {
		op.HowToRedeem = rw.HowToRedeem
	}
	if a := o.Address; a != nil {
		op.Address = joinComma(nonEmpty(a.Name, a.Line1, a.Line2, a.City, a.State, a.PinCode))
	}
	p.show(w, v, "order.html", op.Name, "orders", op)
}

func (p *Pages) missingOrder(w http.ResponseWriter, lang string) {
	p.message(w, http.StatusNotFound, lang, message{Heading: "Order not found", Text: "There is no such order of yours.", Link: Path + "/orders", LinkText: "Your orders"})
}

func joinComma(parts []string) string { return strings.Join(parts, ", ") }
