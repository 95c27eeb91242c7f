package console

import (
	"context"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
)

// Orders returns a page of the game's orders of env that f selects, newest first: store orders
// and partner orders alike.
func (s *Service) Orders(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, f OrderFilter) (OrderPage, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return OrderPage{}, err
	}
	return s.orders(ctx, gameID, env, f)
}

func (s *Service) orders(ctx context.Context, gameID uuid.UUID, env studio.Environment, f OrderFilter) (OrderPage, error) {
	if f.Status != "" && !slices.Contains(orders.Statuses, f.Status) {
		return OrderPage{}, errs.Invalidf("status must be one of %v", orders.Statuses)
	}
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return OrderPage{}, errs.Invalidf("from must be before to")
	}
	if f.Limit == 0 {
		f.Limit = DefaultOrderPage
	}
	if f.Limit < 1 || f.Limit > MaxOrderPage {
		return OrderPage{}, errs.Invalidf("limit must be from 1 to %d", MaxOrderPage)
	}
	q := OrderQuery{GameID: gameID, Environment: env, Status: f.Status, PlayerID: f.PlayerID, From: f.From, To: f.To,
		Limit: f.Limit + 1}
	if f.Cursor != "" {
		k, err := parseCursor(f.Cursor)
		if err != nil {
			return OrderPage{}, err
		}
		q.After = &k
	}
	list, err := s.d.Store.Repo().Orders(ctx, q)
	if err != nil {
		return OrderPage{}, err
	}
	page := OrderPage{Orders: make([]OrderSummary, 0, min(len(list), f.Limit))}
	for i, o := range list {
		if i == f.Limit {
			last := list[i-1]
			page.Next = cursor(OrderKey{CreatedAt: last.CreatedAt, ID: last.ID})
			break
		}
		page.Orders = append(page.Orders, summary(o))
	}
	return page, nil
}

// Order returns one order of the game's env with its history, or orders.ErrOrderNotFound.
func (s *Service) Order(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, orderID uuid.UUID) (OrderView, error) {
	if err := s.readEnv(ctx, p, gameID, env); err != nil {
		return OrderView{}, err
	}
	o, history, err := s.d.Orders.History(ctx, orderID)
	if err != nil {
		return OrderView{}, err
	}
	if o.GameID != gameID || o.Environment != env {
		return OrderView{}, orders.ErrOrderNotFound
	}
	return OrderView{Order: summary(o), History: history}, nil
}

// summary drops an order's sealed codes, keeping what a studio may see of them.
func summary(o orders.Order) OrderSummary {
	out := OrderSummary{Order: o, Codes: make([]CodeSummary, len(o.Codes))}
	for i, c := range o.Codes {
		out.Codes[i] = CodeSummary{ProviderVoucherID: c.ProviderVoucherID, Value: c.Value, Expiry: c.Expiry}
	}
	out.Order.Codes = nil
	return out
}

// cursor is an order's place in a listing, as the listing's Next: opaque to clients.
func cursor(k OrderKey) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(k.CreatedAt.UnixMicro(), 10) + "." + k.ID.String()))
}

func parseCursor(c string) (OrderKey, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return OrderKey{}, ErrCursorInvalid
	}
	at, id, ok := strings.Cut(string(raw), ".")
	micros, err1 := strconv.ParseInt(at, 10, 64)
	uid, err2 := uuid.Parse(id)
	if !ok || err1 != nil || err2 != nil {
		return OrderKey{}, ErrCursorInvalid
	}
	return OrderKey{CreatedAt: time.UnixMicro(micros).UTC(), ID: uid}, nil
}
