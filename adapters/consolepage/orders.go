package consolepage

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
)

func ordersURL(g *gameRef) string { return envURL(g) + "/orders" }

// orderRow is an order in a list.
type orderRow struct {
	ID                  uuid.UUID
	Short               string
	Placed, Channel     string
	Status, StatusClass string
	FaceValue           string
	Coins               int64
	URL, PlayerURL      string
}

func toOrderRow(g *gameRef, o console.OrderSummary) orderRow {
	row := orderRow{ID: o.ID, Short: o.ID.String()[:8], Placed: when(o.CreatedAt), Channel: string(o.Channel), Status: string(o.Status),
		StatusClass: orderStatusClass(o.Status), FaceValue: o.FaceValue.String(), Coins: o.CoinsSpent, URL: ordersURL(g) + "/" + o.ID.String()}
	if o.PlayerID != uuid.Nil {
		row.PlayerURL = playersURL(g) + "/" + o.PlayerID.String()
	}
	return row
}

// orderStatusClass is the style of an order's status: ok, bad or pending.
func orderStatusClass(s orders.Status) string {
	switch s {
	case orders.Success:
		return "ok"
	case orders.Failed, orders.Refunded:
		return "bad"
	}
	return "pending"
}

// ordersPage is a page of orders and its filter as typed.
type ordersPage struct {
	EnvName              string
	Status, Player       string
	From, To             string
	Statuses             []string
	Rows                 []orderRow
	First, Next, SelfURL string
}

// ordersShow is GET …/orders?status=&player=&from=&to=&cursor=. A player that no one is, a time
// that is not one or a cursor no listing gave answer the form again with the reason (4xx).
func (h *Handler) ordersShow(w http.ResponseWriter, r *http.Request) {
	g, p := gameOf(r), principal(r)
	q := r.URL.Query()
	page := ordersPage{EnvName: envName(g), Status: q.Get("status"), Player: strings.TrimSpace(q.Get("player")),
		From: q.Get("from"), To: q.Get("to"), SelfURL: ordersURL(g)}
	for _, s := range orders.Statuses {
		page.Statuses = append(page.Statuses, string(s))
	}
	f := console.OrderFilter{Cursor: q.Get("cursor")}
	if page.Status != "" {
		if !slices.Contains(page.Statuses, page.Status) {
			h.renderProblem(w, r, http.StatusBadRequest, "orders_list.html", "Orders", page, "Choose a status from the list.")
			return
		}
		f.Status = orders.Status(page.Status)
	}
	var ok bool
	if f.From, ok = dateParam(r, "from", false); !ok {
		h.renderProblem(w, r, http.StatusBadRequest, "orders_list.html", "Orders", page, "From is a date or a time, such as 2026-01-15 or 2026-01-15T09:30 (UTC).")
		return
	}
	if f.To, ok = dateParam(r, "to", true); !ok {
		h.renderProblem(w, r, http.StatusBadRequest, "orders_list.html", "Orders", page, "To is a date or a time, such as 2026-01-31 or 2026-01-31T18:00 (UTC).")
		return
	}
	if page.Player != "" {
		pv, err := h.console.Player(r.Context(), p, g.ID, g.Env, page.Player)
		if errors.Is(err, players.ErrPlayerNotFound) {
			h.renderProblem(w, r, http.StatusNotFound, "orders_list.html", "Orders", page,
				"No player of this game in "+page.EnvName+" has the uuid, id or phone "+strconv.Quote(page.Player)+".")
			return
		}
		if err != nil {
			h.failOrMissing(w, r, err)
			return
		}
		f.PlayerID = &pv.Player.ID
	}
	list, err := h.console.Orders(r.Context(), p, g.ID, g.Env, f)
	if err != nil {
		h.refused(w, r, err, "orders_list.html", "Orders", page)
		return
	}
	for _, o := range list.Orders {
		page.Rows = append(page.Rows, toOrderRow(g, o))
	}
	base := url.Values{}
	for k, v := range map[string]string{"status": page.Status, "player": page.Player, "from": page.From, "to": page.To} {
		if v != "" {
			base.Set(k, v)
		}
	}
	if f.Cursor != "" {
		page.First = page.SelfURL + encodeQuery(base)
	}
	if list.Next != "" {
		next := url.Values{}
		for k, v := range base {
			next[k] = v
		}
		next.Set("cursor", list.Next)
		page.Next = page.SelfURL + encodeQuery(next)
	}
	h.render(w, r, http.StatusOK, "orders_list.html", "Orders", page)
}

func encodeQuery(v url.Values) string {
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// orderPage is one order with its history, oldest change first.
type orderPage struct {
	Row                  orderRow
	RewardID, RewardType string
	Denomination         string
	Quantity             int
	FailureReason        string
	Address              string
	Partner              string
	Codes                []codeRow
	Deadline, Updated    string
	History              []historyRow
	BackURL              string
}

type codeRow struct{ ProviderID, Value, Expiry string }

type historyRow struct{ At, From, To, Reason string }

// orderShow is GET …/orders/{orderID}: another game's, environment's or studio's order is 404.
func (h *Handler) orderShow(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	id, ok := h.idParam(w, r, "orderID")
	if !ok {
		return
	}
	v, err := h.console.Order(r.Context(), principal(r), g.ID, g.Env, id)
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	o := v.Order
	page := orderPage{Row: toOrderRow(g, o), RewardID: o.RewardID.String(), RewardType: string(o.RewardType), Denomination: o.Denomination.String(),
		Quantity: o.Quantity, FailureReason: o.FailureReason, Deadline: when(o.DeadlineAt), Updated: when(o.UpdatedAt), BackURL: ordersURL(g)}
	if a := o.Address; a != nil {
		page.Address = strings.Join(nonEmpty(a.Name, a.Line1, a.Line2, a.Landmark, a.City, a.State, a.PinCode), ", ")
	}
	if t := o.Partner; t != nil {
		page.Partner = strings.Join(nonEmpty("client order "+t.ClientOrderID, string(t.Settlement), t.Amount.String()+" "+t.Currency,
			t.BrandName, "payment "+string(t.Payment.Status)), " · ")
	}
	for _, c := range o.Codes {
		row := codeRow{ProviderID: c.ProviderVoucherID, Expiry: when(c.Expiry)}
		if c.Value > 0 {
			row.Value = c.Value.String()
		}
		page.Codes = append(page.Codes, row)
	}
	for _, t := range v.History {
		row := historyRow{At: t.At.UTC().Format("2006-01-02 15:04:05 UTC"), To: string(t.To), Reason: t.Reason}
		if t.From != nil {
			row.From = string(*t.From)
		}
		page.History = append(page.History, row)
	}
	h.render(w, r, http.StatusOK, "orders_show.html", "Order "+page.Row.Short, page)
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, s := range parts {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}
