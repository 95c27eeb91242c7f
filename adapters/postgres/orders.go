package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// OrdersRepo is the storage of the orders module.
type OrdersRepo struct {
	conn
	db *DB
}

func toCoreOrder(r db.Order) (orders.Order, error) {
	o := orders.Order{
		ID: r.ID, Channel: orders.Channel(r.Channel), GameID: r.GameID, Environment: studio.Environment(r.Environment), UserRef: r.UserRef,
		RewardID: r.RewardID, RewardType: catalogue.Type(r.RewardType), Status: orders.Status(r.Status),
		Denomination: money.Amount(r.Denomination), Quantity: int(r.Quantity), FaceValue: money.Amount(r.FaceValue),
		CoinsSpent: r.CoinsSpent, DebitTxID: r.DebitTxID, RefundTxID: r.RefundTxID, FailureReason: r.FailureReason,
		DeadlineAt: r.DeadlineAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if r.PlayerID != nil {
		o.PlayerID = *r.PlayerID
	}
	if r.CoinID != nil {
		o.CoinID = *r.CoinID
	}
	if r.ProviderProduct != nil {
		o.ProviderProduct = *r.ProviderProduct
	}
	if r.Address != nil {
		o.Address = &players.Address{}
		if err := json.Unmarshal(r.Address, o.Address); err != nil {
			return orders.Order{}, fmt.Errorf("decode the address of order %s: %w", r.ID, err)
		}
	}
	if o.Channel == orders.Partner {
		t := &orders.Terms{ClientOrderID: deref(r.ClientOrderID), Settlement: orders.Settlement(deref(r.Settlement)),
			Currency: deref(r.Currency), BrandCode: deref(r.BrandCode), BrandName: deref(r.BrandName),
			Payment: orders.Payment{Status: orders.PaymentStatus(deref(r.PaymentStatus)), Provider: deref(r.PaymentProvider),
				SessionID: deref(r.PaymentSession), PayerToken: deref(r.PayerToken), PaymentID: deref(r.PaymentID),
				ExpiresAt: r.PaymentExpiresAt, ReturnURL: deref(r.ReturnUrl)}}
		if r.Amount != nil {
			t.Amount = money.Amount(*r.Amount)
		}
		if err := json.Unmarshal(r.Customer, &t.Customer); err != nil {
			return orders.Order{}, fmt.Errorf("decode the customer of order %s: %w", r.ID, err)
		}
		o.Partner = t
	}
	return o, nil
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// orNil is nil for the zero value, else a pointer to v.
func orNil[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// transitions are an order's first transition (to o.Status) and the steps after it, as the
// arrays of OrdersInsertInTx and OrdersAddTransitions (an empty from is none), and the status
// they leave it in.
func transitions(o orders.Order, reason string, then []orders.Step) (froms, tos, reasons []string, last orders.Status) {
	froms, tos, reasons, last = []string{""}, []string{string(o.Status)}, []string{reason}, o.Status
	for _, st := range then {
		froms, tos, reasons = append(froms, string(last)), append(tos, string(st.To)), append(reasons, st.Reason)
		last = st.To
	}
	return froms, tos, reasons, last
}

// Insert implements orders.Repo.
func (r *OrdersRepo) Insert(ctx context.Context, o orders.Order, reason string, then ...orders.Step) (orders.Order, error) {
	froms, tos, reasons, last := transitions(o, reason, then)
	o.Status = last
	// Counted as Move counts moves: every transition of a store order, the moves of a partner
	// order (its first transition is not counted).
	counted := tos
	if o.Channel == orders.Partner {
		counted = tos[1:]
	}
	record := func() {
		for _, to := range counted {
			r.metrics.OrderTransition(to)
		}
	}
	if o.Channel == orders.Partner {
		return r.insertPartner(ctx, o, froms, tos, reasons, record)
	}
	var provider *string
	if o.ProviderProduct != "" {
		provider = &o.ProviderProduct
	}
	var address []byte
	if o.Address != nil {
		address, _ = json.Marshal(o.Address)
	}
	if r.owner != nil && !o.CreatedAt.IsZero() {
		// In a transaction that knows its own time (now(), read by an earlier statement): one
		// statement with the first transition, sent with the next one.
		o.UpdatedAt = o.CreatedAt
		if err := r.deferredQueries(nil).OrdersInsertInTx(ctx, db.OrdersInsertInTxParams{ID: o.ID, GameID: o.GameID,
			Environment: string(o.Environment), PlayerID: &o.PlayerID, UserRef: o.UserRef, RewardID: o.RewardID,
			RewardType: string(o.RewardType), CoinID: &o.CoinID, Status: string(o.Status), Denomination: int64(o.Denomination),
			Quantity: int32(o.Quantity), FaceValue: int64(o.FaceValue), CoinsSpent: o.CoinsSpent, DebitTxID: o.DebitTxID,
			ProviderProduct: provider, Address: address, DeadlineAt: o.DeadlineAt, CreatedAt: o.CreatedAt,
			Froms: froms, Tos: tos, Reasons: reasons}); err != nil {
			return orders.Order{}, fmt.Errorf("insert order: %w", err)
		}
		r.onCommit(record)
		return o, nil
	}
	row, err := r.q.OrdersInsert(ctx, db.OrdersInsertParams{ID: o.ID, GameID: o.GameID, Environment: string(o.Environment),
		PlayerID: &o.PlayerID, UserRef: o.UserRef, RewardID: o.RewardID, RewardType: string(o.RewardType), CoinID: &o.CoinID,
		Status: string(o.Status), Denomination: int64(o.Denomination), Quantity: int32(o.Quantity), FaceValue: int64(o.FaceValue),
		CoinsSpent: o.CoinsSpent, DebitTxID: o.DebitTxID, ProviderProduct: provider, Address: address, DeadlineAt: o.DeadlineAt})
	if err != nil {
		return orders.Order{}, fmt.Errorf("insert order: %w", err)
	}
	o.CreatedAt, o.UpdatedAt = row.CreatedAt, row.UpdatedAt
	if err := r.q.OrdersAddTransitions(ctx, db.OrdersAddTransitionsParams{OrderID: o.ID, Froms: froms, Tos: tos, Reasons: reasons}); err != nil {
		return orders.Order{}, fmt.Errorf("record the transitions of %s: %w", o.ID, err)
	}
	r.onCommit(record)
	return o, nil
}

// CheckPlan implements orders.Repo: the check travels with the transaction's next statement
// and raises RWPLN when the plan no longer holds, so that PostgreSQL skips what the
// transaction sent after it and every later statement fails with ErrPlanMoved.
func (r *OrdersRepo) CheckPlan(ctx context.Context, gameID, coinID uuid.UUID, coinsPerUnit, version int64) error {
	if r.owner == nil {
		return errors.New("a purchase's plan is checked in its transaction")
	}
	params := db.OrdersPlanHoldsParams{Version: version, CoinID: coinID, GameID: gameID, CoinsPerUnit: coinsPerUnit}
	r.owner.queueRow(func(q db.DBTX) error {
		_, err := db.New(q).OrdersPlanHolds(ctx, params)
		return err
	}, planMoved)
	return nil
}

// planMoved is ErrPlanMoved for the error of a statement that a failed plan check (RWPLN)
// aborted or travelled with.
func planMoved(err error) error {
	if pgCode(err) == "RWPLN" {
		return orders.ErrPlanMoved
	}
	return err
}

// Charge implements orders.Repo in one round trip: the debit (queued, CoinsRepo.queueMovement)
// travels with the take of the coupon's codes, or goes alone; with them go what the
// transaction queued before (its BEGIN, a plan check, a lock).
func (r *OrdersRepo) Charge(ctx context.Context, c orders.Charge) (orders.Charged, error) {
	if r.owner == nil {
		return orders.Charged{}, errors.New("a purchase is charged in its transaction")
	}
	debited := r.db.coinsOn(r.conn).queueMovement(ctx, c.Debit, coins.Debit, coins.EventDebited)
	var out orders.Charged
	var cerr error
	if t := c.Coupon; t != nil {
		cat := catalogueOn(r.conn)
		if t.Shared {
			var code []byte
			if code, cerr = cat.SharedCode(ctx, t.RewardID); cerr == nil {
				out.Codes = []catalogue.SealedCode{{Code: code}}
			}
		} else {
			out.Codes, cerr = cat.TakeCodes(ctx, t.RewardID, t.OrderID, t.Quantity)
		}
	}
	debit, err := debited(ctx)
	// A plan check that failed is every statement's answer; else the debit's refusal comes
	// before the codes'.
	err, cerr = planMoved(err), planMoved(cerr)
	switch {
	case errors.Is(cerr, orders.ErrPlanMoved):
		return orders.Charged{}, cerr
	case err != nil:
		return orders.Charged{}, err
	case cerr != nil:
		return orders.Charged{}, cerr
	}
	out.Debit = debit
	return out, nil
}

// Move implements orders.Repo.
func (r *OrdersRepo) Move(ctx context.Context, id uuid.UUID, from, to orders.Status, reason string, refundTxID *uuid.UUID) (bool, error) {
	_, err := r.q.OrdersMove(ctx, db.OrdersMoveParams{ID: id, FromStatus: string(from), ToStatus: string(to), Reason: reason, RefundTxID: refundTxID})
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("move order %s to %s: %w", id, to, err)
	}
	f := string(from)
	if err := r.q.OrdersAddTransition(ctx, db.OrdersAddTransitionParams{OrderID: id, FromStatus: &f, ToStatus: string(to), Reason: reason}); err != nil {
		return false, fmt.Errorf("record the move of %s to %s: %w", id, to, err)
	}
	r.onCommit(func() { r.metrics.OrderTransition(string(to)) })
	return true, nil
}

// Advance implements orders.Repo: one statement with the transition, which travels with the
// transaction's next one (or its commit) and raises RWMOV when the order is no longer in from.
func (r *OrdersRepo) Advance(ctx context.Context, id uuid.UUID, from, to orders.Status, reason string) error {
	err := r.deferredQueries(func(err error) error {
		if pgCode(err) == "RWMOV" {
			return orders.ErrMovedElsewhere
		}
		return fmt.Errorf("move order %s to %s: %w", id, to, err)
	}).OrdersMoveInTx(ctx, db.OrdersMoveInTxParams{ID: id, FromStatus: string(from), ToStatus: string(to), Reason: reason})
	if err == nil {
		r.onCommit(func() { r.metrics.OrderTransition(string(to)) })
	}
	return err
}

// AddCodes implements orders.Repo: one statement for every code.
func (r *OrdersRepo) AddCodes(ctx context.Context, id uuid.UUID, codes []orders.SealedCode) error {
	if len(codes) == 0 {
		return nil
	}
	p := db.OrdersAddCodesInTxParams{OrderID: id}
	for i, c := range codes {
		expiry := ""
		if c.Expiry != nil {
			expiry = c.Expiry.UTC().Format(time.RFC3339Nano)
		}
		p.Positions = append(p.Positions, int32(i+1))
		p.Codes = append(p.Codes, c.Code)
		p.Pins = append(p.Pins, c.Pin)
		p.ProviderVoucherIds = append(p.ProviderVoucherIds, c.ProviderVoucherID)
		p.Vals = append(p.Vals, int64(c.Value))
		p.Expiries = append(p.Expiries, expiry)
	}
	return r.deferredQueries(func(err error) error {
		return fmt.Errorf("store the codes of order %s: %w", id, err)
	}).OrdersAddCodesInTx(ctx, p)
}

// withCodes fills the codes of list.
func (r *OrdersRepo) withCodes(ctx context.Context, list []orders.Order) error {
	if len(list) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(list))
	at := make(map[uuid.UUID]int, len(list))
	for i, o := range list {
		ids[i], at[o.ID] = o.ID, i
	}
	rows, err := r.q.OrdersCodes(ctx, ids)
	if err != nil {
		return fmt.Errorf("read codes: %w", err)
	}
	for _, c := range rows {
		o := &list[at[c.OrderID]]
		o.Codes = append(o.Codes, orders.SealedCode{Code: c.Code, Pin: c.Pin, ProviderVoucherID: c.ProviderVoucherID,
			Value: money.Amount(c.Value), Expiry: c.Expiry})
	}
	return nil
}

// Get implements orders.Repo.
func (r *OrdersRepo) Get(ctx context.Context, id uuid.UUID) (orders.Order, error) {
	row, err := r.q.OrdersGet(ctx, id)
	return r.one(ctx, row, err, "get order "+id.String())
}

// one is the order a single-row query read, with its codes; no row is ErrOrderNotFound.
func (r *OrdersRepo) one(ctx context.Context, row db.Order, err error, what string) (orders.Order, error) {
	if isNoRows(err) {
		return orders.Order{}, orders.ErrOrderNotFound
	}
	if err != nil {
		return orders.Order{}, fmt.Errorf("%s: %w", what, err)
	}
	o, err := toCoreOrder(row)
	if err != nil {
		return orders.Order{}, err
	}
	list := []orders.Order{o}
	return list[0], r.withCodes(ctx, list)
}

// ListForPlayer implements orders.Repo.
func (r *OrdersRepo) ListForPlayer(ctx context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]orders.Order, int64, error) {
	rows, err := r.q.OrdersListForPlayer(ctx, db.OrdersListForPlayerParams{PlayerID: &playerID, RewardID: rewardID, Lim: int32(limit), Off: int32(offset)})
	return orderPage(ctx, r, rows, err, "list orders")
}

// pagedOrder is a row of a paged list of orders, as each list's query reads it under a name
// of its own: the order and the total of the list.
type pagedOrder = struct {
	Order db.Order
	Total int64
}

// orderPage converts a page of orders, with their codes, and says the total of the list.
func orderPage[R ~pagedOrder](ctx context.Context, r *OrdersRepo, rows []R, err error, what string) ([]orders.Order, int64, error) {
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", what, err)
	}
	out := make([]orders.Order, len(rows))
	var total int64
	for i, row := range rows {
		p := pagedOrder(row)
		if out[i], err = toCoreOrder(p.Order); err != nil {
			return nil, 0, err
		}
		total = p.Total
	}
	return out, total, r.withCodes(ctx, out)
}

// Transitions implements orders.Repo.
func (r *OrdersRepo) Transitions(ctx context.Context, id uuid.UUID) ([]orders.Transition, error) {
	rows, err := r.q.OrdersTransitions(ctx, id)
	return toCoreAll(rows, err, toCoreTransition, "transitions of %s", id)
}

func toCoreTransition(r db.OrderTransition) orders.Transition {
	t := orders.Transition{To: orders.Status(r.ToStatus), Reason: r.Reason, At: r.At}
	if r.FromStatus != nil {
		from := orders.Status(*r.FromStatus)
		t.From = &from
	}
	return t
}

// LockPlayerReward implements orders.Repo with transaction-scoped advisory locks.
// In a transaction the locks are taken with the transaction's next statement.
func (r *OrdersRepo) LockPlayerReward(ctx context.Context, gameID, playerID, rewardID uuid.UUID) error {
	if err := r.deferredQueries(nil).OrdersLockPlayerReward(ctx, db.OrdersLockPlayerRewardParams{PlayerID: playerID.String(),
		RewardID: rewardID.String(), GameID: gameID.String()}); err != nil {
		return fmt.Errorf("lock purchases of %s by %s: %w", rewardID, playerID, err)
	}
	return nil
}

// utcDay is the UTC date of t.
func utcDay(t time.Time) pgtype.Date {
	u := t.UTC()
	return pgtype.Date{Time: time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
}

// SpendBudget implements orders.Repo: one statement that raises RWBDG past the budget, sent
// with the transaction's COMMIT after every other statement, so that the day's total is locked
// only while the commit runs.
func (r *OrdersRepo) SpendBudget(ctx context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error {
	return r.atCommitQueries(func(err error) error {
		if pgCode(err) == "RWBDG" {
			tomorrow := day.UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
			return orders.ErrBudgetExceeded.WithRetryAfter(time.Until(tomorrow))
		}
		return fmt.Errorf("spend the purchase budget: %w", err)
	}).OrdersSpendBudgetInTx(ctx, db.OrdersSpendBudgetInTxParams{GameID: gameID, Environment: string(env), Day: utcDay(day), Amount: int64(amount)})
}

// ReturnBudget implements orders.Repo.
func (r *OrdersRepo) ReturnBudget(ctx context.Context, gameID uuid.UUID, env studio.Environment, day time.Time, amount money.Amount) error {
	return wrapErr(r.q.OrdersReturnBudget(ctx, db.OrdersReturnBudgetParams{GameID: gameID, Environment: string(env), Day: utcDay(day), Amount: int64(amount)}), "return to the purchase budget")
}

// LastPurchase implements orders.Repo.
func (r *OrdersRepo) LastPurchase(ctx context.Context, playerID, rewardID uuid.UUID) (*time.Time, error) {
	at, err := r.q.OrdersLastPurchase(ctx, db.OrdersLastPurchaseParams{PlayerID: &playerID, RewardID: rewardID})
	if isNoRows(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("last purchase: %w", err)
	}
	return &at, nil
}

func (r *OrdersRepo) insertPartner(ctx context.Context, o orders.Order, froms, tos, reasons []string, record func()) (orders.Order, error) {
	t := o.Partner
	customer, _ := json.Marshal(t.Customer)
	amount := int64(t.Amount)
	if r.owner != nil && !o.CreatedAt.IsZero() {
		// In a transaction that knows its own time (read by an earlier statement): one
		// statement with the transitions, sent with the next one or the COMMIT, whose error a
		// taken clientOrderId then is.
		o.UpdatedAt = o.CreatedAt
		if err := r.deferredQueries(func(err error) error {
			if pgCode(err) == "23505" {
				return orders.ErrClientOrderTaken
			}
			return fmt.Errorf("insert partner order: %w", err)
		}).OrdersInsertPartnerInTx(ctx, db.OrdersInsertPartnerInTxParams{ID: o.ID, GameID: o.GameID, Environment: string(o.Environment),
			UserRef: o.UserRef, RewardID: o.RewardID, RewardType: string(o.RewardType), Status: string(o.Status),
			Denomination: int64(o.Denomination), Quantity: int32(o.Quantity), FaceValue: int64(o.FaceValue),
			ProviderProduct: &o.ProviderProduct, DeadlineAt: o.DeadlineAt, ClientOrderID: &t.ClientOrderID, Customer: customer,
			Settlement: (*string)(&t.Settlement), Amount: &amount, Currency: &t.Currency, BrandCode: &t.BrandCode, BrandName: &t.BrandName,
			PaymentStatus: (*string)(&t.Payment.Status), PaymentProvider: orNil(t.Payment.Provider), PaymentSession: orNil(t.Payment.SessionID),
			PayerToken: orNil(t.Payment.PayerToken), PaymentExpiresAt: t.Payment.ExpiresAt, ReturnUrl: orNil(t.Payment.ReturnURL),
			CreatedAt: o.CreatedAt, Froms: froms, Tos: tos, Reasons: reasons}); err != nil {
			return orders.Order{}, err
		}
		r.onCommit(record)
		return o, nil
	}
	row, err := r.q.OrdersInsertPartner(ctx, db.OrdersInsertPartnerParams{ID: o.ID, GameID: o.GameID, Environment: string(o.Environment),
		UserRef: o.UserRef, RewardID: o.RewardID, RewardType: string(o.RewardType), Status: string(o.Status),
		Denomination: int64(o.Denomination), Quantity: int32(o.Quantity), FaceValue: int64(o.FaceValue),
		ProviderProduct: &o.ProviderProduct, DeadlineAt: o.DeadlineAt, ClientOrderID: &t.ClientOrderID, Customer: customer,
		Settlement: (*string)(&t.Settlement), Amount: &amount, Currency: &t.Currency, BrandCode: &t.BrandCode, BrandName: &t.BrandName,
		PaymentStatus: (*string)(&t.Payment.Status), PaymentProvider: orNil(t.Payment.Provider), PaymentSession: orNil(t.Payment.SessionID),
		PayerToken: orNil(t.Payment.PayerToken), PaymentExpiresAt: t.Payment.ExpiresAt, ReturnUrl: orNil(t.Payment.ReturnURL)})
	if pgCode(err) == "23505" {
		return orders.Order{}, orders.ErrClientOrderTaken
	}
	if err != nil {
		return orders.Order{}, fmt.Errorf("insert partner order: %w", err)
	}
	o.CreatedAt, o.UpdatedAt = row.CreatedAt, row.UpdatedAt
	// In a transaction the transitions go with its next statement.
	if err := r.deferredQueries(nil).OrdersAddTransitions(ctx, db.OrdersAddTransitionsParams{OrderID: o.ID, Froms: froms, Tos: tos, Reasons: reasons}); err != nil {
		return orders.Order{}, fmt.Errorf("record the transitions of %s: %w", o.ID, err)
	}
	r.onCommit(record)
	return o, nil
}

// FindByClientOrderID implements orders.Repo.
func (r *OrdersRepo) FindByClientOrderID(ctx context.Context, gameID uuid.UUID, env studio.Environment, clientOrderID string) (orders.Order, error) {
	row, err := r.q.OrdersByClientOrderID(ctx, db.OrdersByClientOrderIDParams{GameID: gameID, Environment: string(env), ClientOrderID: &clientOrderID})
	return r.one(ctx, row, err, fmt.Sprintf("find order %q", clientOrderID))
}

// FindBySession implements orders.Repo.
func (r *OrdersRepo) FindBySession(ctx context.Context, sessionID string) (uuid.UUID, error) {
	id, err := r.q.OrdersBySession(ctx, &sessionID)
	if isNoRows(err) {
		return uuid.Nil, orders.ErrOrderNotFound
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("find the order of session %q: %w", sessionID, err)
	}
	return id, nil
}

// ListForPartner implements orders.Repo.
func (r *OrdersRepo) ListForPartner(ctx context.Context, gameID uuid.UUID, env studio.Environment, customerRef, clientOrderID string, limit, offset int) ([]orders.Order, int64, error) {
	rows, err := r.q.OrdersListForPartner(ctx, db.OrdersListForPartnerParams{GameID: gameID, Environment: string(env),
		CustomerRef: orNil(customerRef), ClientOrderID: orNil(clientOrderID), Lim: int32(limit), Off: int32(offset)})
	return orderPage(ctx, r, rows, err, "list partner orders")
}

// SetPayment implements orders.Repo.
func (r *OrdersRepo) SetPayment(ctx context.Context, id uuid.UUID, from, to orders.PaymentStatus, paymentID string) (bool, error) {
	from_, to_ := string(from), string(to)
	_, err := r.q.OrdersSetPayment(ctx, db.OrdersSetPaymentParams{ID: id, FromStatus: &from_, ToStatus: &to_, PaymentID: orNil(paymentID)})
	if isNoRows(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("set the payment of %s to %s: %w", id, to, err)
	}
	return true, nil
}
