// Package ordersfake is an in-memory orders.Repo that behaves like the PostgreSQL one
// (adapters/postgres/orders.go), for core tests: an order moves only from the status a caller
// names, lists have the same order and paging, a purchase's charge debits the player's coins
// and takes its coupon's codes, each code by one order only. Register it, and the coins fake it
// debits, with one memstore.Runner (memstore.New): a failed transaction leaves both as they were.
//
// What it holds of other modules' tables, since no fake of theirs does: the coupon pools and
// shared codes its Charge takes (AddPool, SetSharedCode), the catalogue's version its CheckPlan
// compares (SetCatalogueVersion) and the games' purchase budgets (SetBudget). It checks no
// foreign key. Its steps answer a refusal at once, where PostgreSQL may answer it with a later
// step or the commit (store.Tx); both fail the transaction.
//
// ordertest.Run is the contract it passes with PostgreSQL.
package ordersfake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	*memstore.Table[state]
	coins coins.Repo
}

var _ orders.Repo = (*Repo)(nil)

type poolCode struct {
	code  catalogue.SealedCode
	order uuid.UUID // uuid.Nil: free
}

type budgetKey struct {
	game uuid.UUID
	env  studio.Environment
	day  string
}

type state struct {
	orders      map[uuid.UUID]orders.Order
	transitions map[uuid.UUID][]orders.Transition
	pools       map[uuid.UUID][]poolCode
	shared      map[uuid.UUID][]byte
	version     int64
	budgets     map[uuid.UUID]map[studio.Environment]money.Amount
	spent       map[budgetKey]money.Amount
}

// New returns an empty fake whose Charge debits coinRepo (register both with one runner).
func New(coinRepo coins.Repo) *Repo {
	return &Repo{coins: coinRepo, Table: memstore.NewTable(state{
		orders: map[uuid.UUID]orders.Order{}, transitions: map[uuid.UUID][]orders.Transition{},
		pools: map[uuid.UUID][]poolCode{}, shared: map[uuid.UUID][]byte{},
		budgets: map[uuid.UUID]map[studio.Environment]money.Amount{}, spent: map[budgetKey]money.Amount{},
	}, state.clone)}
}

func (s state) clone() state {
	return state{
		orders:      memstore.CloneMap(s.orders, cloneOrder),
		transitions: memstore.CloneMap(s.transitions, slices.Clone[[]orders.Transition]),
		pools:       memstore.CloneMap(s.pools, slices.Clone[[]poolCode]),
		shared:      memstore.CloneMap(s.shared, nil),
		version:     s.version,
		budgets: memstore.CloneMap(s.budgets, func(m map[studio.Environment]money.Amount) map[studio.Environment]money.Amount {
			return memstore.CloneMap(m, nil)
		}),
		spent: memstore.CloneMap(s.spent, nil),
	}
}

func cloneOrder(o orders.Order) orders.Order {
	o.Codes = slices.Clone(o.Codes)
	if o.Partner != nil {
		t := *o.Partner
		o.Partner = &t
	}
	return o
}

// AddPool adds codes to a coupon's pool, as the catalogue's AddCodes does.
func (r *Repo) AddPool(rewardID uuid.UUID, codes ...catalogue.SealedCode) {
	st := r.Lock()
	defer r.Unlock()
	for _, c := range codes {
		st.pools[rewardID] = append(st.pools[rewardID], poolCode{code: c})
	}
}

// SetSharedCode gives a coupon a shared code.
func (r *Repo) SetSharedCode(rewardID uuid.UUID, code []byte) {
	st := r.Lock()
	defer r.Unlock()
	st.shared[rewardID] = code
}

// SetCatalogueVersion sets the catalogue's version, which moves with every change of what
// players see.
func (r *Repo) SetCatalogueVersion(v int64) {
	st := r.Lock()
	defer r.Unlock()
	st.version = v
}

// SetBudget sets a game's daily purchase budget of env; nil removes it.
func (r *Repo) SetBudget(gameID uuid.UUID, env studio.Environment, budget *money.Amount) {
	st := r.Lock()
	defer r.Unlock()
	if st.budgets[gameID] == nil {
		st.budgets[gameID] = map[studio.Environment]money.Amount{}
	}
	if budget == nil {
		delete(st.budgets[gameID], env)
		return
	}
	st.budgets[gameID][env] = *budget
}

func steps(o orders.Order, reason string, then []orders.Step, at time.Time) ([]orders.Transition, orders.Status) {
	list := []orders.Transition{{To: o.Status, Reason: reason, At: at}}
	last := o.Status
	for _, s := range then {
		from := last
		list = append(list, orders.Transition{From: &from, To: s.To, Reason: s.Reason, At: at})
		last = s.To
	}
	return list, last
}

// Insert implements orders.Repo.
func (r *Repo) Insert(_ context.Context, o orders.Order, reason string, then ...orders.Step) (orders.Order, error) {
	st := r.Lock()
	defer r.Unlock()
	if o.ID == uuid.Nil {
		o.ID = uuid.New()
	}
	if _, dup := st.orders[o.ID]; dup {
		return orders.Order{}, errors.New("insert order: duplicate key")
	}
	if o.Channel == orders.Partner && o.Partner != nil {
		for _, other := range st.orders {
			if other.Partner != nil && other.GameID == o.GameID && other.Environment == o.Environment &&
				other.Partner.ClientOrderID == o.Partner.ClientOrderID {
				return orders.Order{}, orders.ErrClientOrderTaken
			}
		}
	}
	now := r.Now()
	if o.CreatedAt.IsZero() {
		o.CreatedAt = now
	}
	o.UpdatedAt = o.CreatedAt
	list, last := steps(o, reason, then, o.CreatedAt)
	o.Status = last
	if err := refundCheck(o); err != nil {
		return orders.Order{}, fmt.Errorf("insert order: %w", err)
	}
	o.Codes = nil
	st.orders[o.ID] = cloneOrder(o)
	st.transitions[o.ID] = list
	return o, nil
}

// Move implements orders.Repo.
func (r *Repo) Move(_ context.Context, id uuid.UUID, from, to orders.Status, reason string, refundTxID *uuid.UUID) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	return st.move(r.Now(), id, from, to, reason, refundTxID)
}

func (st *state) move(now time.Time, id uuid.UUID, from, to orders.Status, reason string, refundTxID *uuid.UUID) (bool, error) {
	o, ok := st.orders[id]
	if !ok || o.Status != from {
		return false, nil
	}
	o.Status, o.UpdatedAt = to, now
	if refundTxID != nil {
		o.RefundTxID = refundTxID
	}
	if to == orders.Failed {
		o.FailureReason = reason
	}
	if err := refundCheck(o); err != nil {
		return false, fmt.Errorf("move order %s to %s: %w", id, to, err)
	}
	st.orders[id] = o
	f := from
	st.transitions[id] = append(st.transitions[id], orders.Transition{From: &f, To: to, Reason: reason, At: now})
	return true, nil
}

// refundCheck is the orders table's check that a store order is FAILED exactly when it has a
// refund.
func refundCheck(o orders.Order) error {
	if o.Channel == orders.Store && (o.RefundTxID != nil) != (o.Status == orders.Failed) {
		return errors.New("a store order is FAILED exactly when it has a refund (check violation)")
	}
	return nil
}

// Advance implements orders.Repo.
func (r *Repo) Advance(_ context.Context, id uuid.UUID, from, to orders.Status, reason string) error {
	st := r.Lock()
	defer r.Unlock()
	moved, err := st.move(r.Now(), id, from, to, reason, nil)
	if err == nil && !moved {
		err = orders.ErrMovedElsewhere
	}
	return err
}

// AddCodes implements orders.Repo.
func (r *Repo) AddCodes(_ context.Context, id uuid.UUID, codes []orders.SealedCode) error {
	st := r.Lock()
	defer r.Unlock()
	if len(codes) == 0 {
		return nil
	}
	o, ok := st.orders[id]
	if !ok {
		return errors.New("store the codes of an order: no such order (foreign key)")
	}
	o.Codes = append(o.Codes, codes...)
	st.orders[id] = o
	return nil
}

// Get implements orders.Repo.
func (r *Repo) Get(_ context.Context, id uuid.UUID) (orders.Order, error) {
	st := r.Lock()
	defer r.Unlock()
	o, err := memstore.Get(st.orders, id, orders.ErrOrderNotFound)
	return cloneOrder(o), err
}

// page is a page of the orders keep selects, newest first (created_at DESC, id DESC), and
// their total.
func (st *state) page(keep func(orders.Order) bool, limit, offset int) ([]orders.Order, int64) {
	var list []orders.Order
	for _, o := range st.orders {
		if keep(o) {
			list = append(list, cloneOrder(o))
		}
	}
	slices.SortFunc(list, func(a, b orders.Order) int {
		return memstore.CompareCreated(b.CreatedAt, b.ID, a.CreatedAt, a.ID)
	})
	total := int64(len(list))
	list = list[min(offset, len(list)):]
	return list[:min(limit, len(list))], total
}

// ListForPlayer implements orders.Repo.
func (r *Repo) ListForPlayer(_ context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]orders.Order, int64, error) {
	st := r.Lock()
	defer r.Unlock()
	list, total := st.page(func(o orders.Order) bool {
		return o.PlayerID == playerID && (rewardID == nil || o.RewardID == *rewardID)
	}, limit, offset)
	return list, total, nil
}

// Transitions implements orders.Repo.
func (r *Repo) Transitions(_ context.Context, id uuid.UUID) ([]orders.Transition, error) {
	st := r.Lock()
	defer r.Unlock()
	return slices.Clone(st.transitions[id]), nil
}

// CheckPlan implements orders.Repo.
func (r *Repo) CheckPlan(ctx context.Context, gameID, coinID uuid.UUID, coinsPerUnit, version int64) error {
	st := r.Lock()
	current := st.version
	r.Unlock()
	coin, err := r.coins.GetCoin(ctx, gameID, coinID)
	if current != version || err != nil || coin.CoinsPerUnit != coinsPerUnit {
		return orders.ErrPlanMoved
	}
	return nil
}

// Charge implements orders.Repo. As in PostgreSQL, a coupon's codes are taken whatever the
// debit's answer: a refused debit fails the purchase, whose transaction gives them back.
func (r *Repo) Charge(ctx context.Context, c orders.Charge) (orders.Charged, error) {
	debit, err := r.coins.ApplyMovement(ctx, c.Debit, coins.Debit, coins.EventDebited)
	var out orders.Charged
	var cerr error
	if t := c.Coupon; t != nil {
		st := r.Lock()
		if t.Shared {
			if code, ok := st.shared[t.RewardID]; ok {
				out.Codes = []catalogue.SealedCode{{Code: code}}
			} else {
				cerr = catalogue.ErrRewardNotFound.Withf("this coupon has no shared code")
			}
		} else {
			pool := st.pools[t.RewardID]
			for i := range pool {
				if len(out.Codes) == t.Quantity {
					break
				}
				if pool[i].order == uuid.Nil {
					pool[i].order = t.OrderID
					out.Codes = append(out.Codes, pool[i].code)
				}
			}
		}
		r.Unlock()
	}
	if err != nil {
		return orders.Charged{}, err
	}
	if cerr != nil {
		return orders.Charged{}, cerr
	}
	out.Debit = debit
	return out, nil
}

// LockPlayerReward implements orders.Repo: the runner's transactions already run one at a time.
func (r *Repo) LockPlayerReward(context.Context, uuid.UUID, uuid.UUID, uuid.UUID) error { return nil }

func dayOf(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// SpendBudget implements orders.Repo.
func (r *Repo) SpendBudget(_ context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error {
	st := r.Lock()
	defer r.Unlock()
	k := budgetKey{gameID, env, dayOf(day)}
	if budget, ok := st.budgets[gameID][env]; ok && st.spent[k]+amount > budget {
		tomorrow := day.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
		return orders.ErrBudgetExceeded.WithRetryAfter(time.Until(tomorrow))
	}
	st.spent[k] += amount
	return nil
}

// ReturnBudget implements orders.Repo: never below a zero total.
func (r *Repo) ReturnBudget(_ context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error {
	st := r.Lock()
	defer r.Unlock()
	k := budgetKey{gameID, env, dayOf(day)}
	st.spent[k] -= min(amount, st.spent[k])
	return nil
}

// LastPurchase implements orders.Repo.
func (r *Repo) LastPurchase(_ context.Context, playerID, rewardID uuid.UUID) (*time.Time, error) {
	st := r.Lock()
	defer r.Unlock()
	var last *time.Time
	for _, o := range st.orders {
		if o.PlayerID == playerID && o.RewardID == rewardID && o.Status != orders.Failed && (last == nil || o.CreatedAt.After(*last)) {
			at := o.CreatedAt
			last = &at
		}
	}
	return last, nil
}

// FindByClientOrderID implements orders.Repo.
func (r *Repo) FindByClientOrderID(_ context.Context, gameID uuid.UUID, env studio.Environment, clientOrderID string) (orders.Order, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, o := range st.orders {
		if o.Partner != nil && o.GameID == gameID && o.Environment == env && o.Partner.ClientOrderID == clientOrderID {
			return cloneOrder(o), nil
		}
	}
	return orders.Order{}, orders.ErrOrderNotFound
}

// FindBySession implements orders.Repo.
func (r *Repo) FindBySession(_ context.Context, sessionID string) (uuid.UUID, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, o := range st.orders {
		if o.Partner != nil && o.Partner.Payment.SessionID == sessionID {
			return o.ID, nil
		}
	}
	return uuid.Nil, orders.ErrOrderNotFound
}

// ListForPartner implements orders.Repo.
func (r *Repo) ListForPartner(_ context.Context, gameID uuid.UUID, env studio.Environment, customerRef, clientOrderID string, limit, offset int) ([]orders.Order, int64, error) {
	st := r.Lock()
	defer r.Unlock()
	list, total := st.page(func(o orders.Order) bool {
		return o.Channel == orders.Partner && o.GameID == gameID && o.Environment == env &&
			(customerRef == "" || o.UserRef == customerRef) &&
			(clientOrderID == "" || (o.Partner != nil && o.Partner.ClientOrderID == clientOrderID))
	}, limit, offset)
	return list, total, nil
}

// SetPayment implements orders.Repo.
func (r *Repo) SetPayment(_ context.Context, id uuid.UUID, from, to orders.PaymentStatus, paymentID string) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	o, ok := st.orders[id]
	if !ok || o.Partner == nil || o.Partner.Payment.Status != from {
		return false, nil
	}
	o = cloneOrder(o)
	o.Partner.Payment.Status, o.UpdatedAt = to, r.Now()
	if paymentID != "" {
		o.Partner.Payment.PaymentID = paymentID
	}
	st.orders[id] = o
	return true, nil
}
