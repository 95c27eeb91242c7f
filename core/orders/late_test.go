package orders_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/coins/coinsfake"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
)

// These tests hold the rule for a provider order past its deadline: the deadline alone refunds
// nothing the provider holds; the order is asked less and less often until the provider answers
// finally (issued: delivered; refused: refunded once), for at most orders.GiveUpAfter, after
// which it waits for an operator.

const (
	latePoll  = 30 * time.Second
	lateSpent = 500
	lateStart = 1000 // the player's coins before the purchase
)

// lateBundle is the orders service on in-memory storage, with a scripted voucher provider and a
// clock the test moves, holding one provider order that the purchase's wait has handed to its
// job (TIMEOUT).
type lateBundle struct {
	svc      *orders.Service
	orders   *stepRepo
	coins    *coinsfake.Repo
	provider *scripted
	refunds  *refunder
	box      sealed.Box
	now      time.Time
	order    orders.Order
}

// setupLate returns the bundle with an order of channel whose deadline is the bundle's clock.
func setupLate(t *testing.T, channel orders.Channel) *lateBundle {
	t.Helper()
	ctx := context.Background()
	box, err := sealed.New([]byte("0123456789abcdef0123456789abcdef"))
	require.NoError(t, err)
	runner := &memstore.Runner{}
	b := &lateBundle{orders: newStepRepo(), coins: coinsfake.New(), provider: &scripted{}, refunds: &refunder{}, box: box,
		now: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	b.svc = orders.NewService(runner, memstore.New[orders.Repo](runner, b.orders), memstore.New[coins.Repo](runner, b.coins),
		memstore.New[catalogue.Repo](runner, recorder{}), nil, orders.Config{
			Box: box, Provider: b.provider, TestProvider: b.provider, Poll: latePoll, Deadline: orders.DefaultDeadline,
			Now: func() time.Time { return b.now }, PartnerRefunds: b.refunds,
		})
	gameID := uuid.New()
	o := orders.Order{ID: uuid.New(), Channel: channel, GameID: gameID, Environment: studio.Test, RewardID: uuid.New(),
		Status: orders.Timeout, Denomination: money.Amount(10000), Quantity: 1, FaceValue: money.Amount(10000),
		ProviderProduct: "UTID-LATE", DeadlineAt: b.now, CreatedAt: b.now.Add(-orders.DefaultDeadline)}
	if channel == orders.Store {
		coin, err := b.coins.CreateCoin(ctx, coins.Coin{GameID: gameID, Name: "Gems", CoinsPerUnit: 1})
		require.NoError(t, err)
		o.PlayerID, o.UserRef, o.CoinID, o.CoinsSpent = uuid.New(), "buyer", coin.ID, lateSpent
		for _, m := range []struct {
			amount int64
			typ    coins.TxType
			reason string
		}{{lateStart, coins.Credit, coins.ReasonGameCredit}, {lateSpent, coins.Debit, orders.ReasonPurchaseDebit}} {
			_, err := b.coins.ApplyMovement(ctx, coins.Movement{GameID: gameID, Environment: studio.Test, PlayerID: o.PlayerID,
				UserUUID: o.UserRef, CoinID: coin.ID, Amount: m.amount, Reason: m.reason, ReferenceID: o.ID.String()}, m.typ, coins.EventRefunded)
			require.NoError(t, err)
		}
	} else {
		o.Partner = &orders.Terms{ClientOrderID: "client-1", Customer: orders.Customer{Ref: "user-1"}, Settlement: orders.Wallet,
			Amount: money.Amount(9500), Currency: "INR", BrandCode: "AMAZON", Payment: orders.Payment{Status: orders.NotRequired}}
	}
	b.order = o
	b.orders.put(o)
	return b
}

// fulfil runs one step of the order's job.
func (b *lateBundle) fulfil(t *testing.T) (time.Duration, error) {
	t.Helper()
	return b.svc.Fulfil(context.Background(), b.order.ID)
}

// stored is the order as stored now.
func (b *lateBundle) stored(t *testing.T) orders.Order {
	t.Helper()
	o, err := b.svc.Get(context.Background(), b.order.ID)
	require.NoError(t, err)
	return o
}

// refunded counts what the order gave back: REFUND_CREDIT entries of the player's journal, or
// the partner refunds made.
func (b *lateBundle) refunded(t *testing.T) int {
	t.Helper()
	if b.order.Channel == orders.Partner {
		return b.refunds.count(b.order.ID)
	}
	list, _, err := b.coins.ListTransactions(context.Background(), b.order.PlayerID, nil, 100, 0)
	require.NoError(t, err)
	n := 0
	for _, tx := range list {
		if tx.Reason == orders.ReasonRefundCredit && tx.ReferenceID == b.order.ID.String() {
			require.Equal(t, int64(lateSpent), tx.Amount)
			n++
		}
	}
	return n
}

// balance is the player's balance (store orders).
func (b *lateBundle) balance(t *testing.T) int64 {
	t.Helper()
	funds, err := b.coins.Funds(context.Background(), b.order.GameID, b.order.PlayerID)
	require.NoError(t, err)
	require.Len(t, funds, 1)
	return funds[0].Balance
}

var channels = []orders.Channel{orders.Store, orders.Partner}

// A card the provider issues after the order's deadline is delivered, and nothing is refunded:
// the order waits, TIMEOUT, while the provider says pending past the deadline.
func TestLateOrderIssuedIsDeliveredNotRefunded(t *testing.T) {
	t.Parallel()
	for _, channel := range channels {
		t.Run(string(channel), func(t *testing.T) {
			t.Parallel()
			b := setupLate(t, channel)
			b.now = b.now.Add(5 * time.Second) // past the deadline
			b.provider.answer(vouchers.Result{Status: vouchers.Pending}, nil)
			next, err := b.fulfil(t)
			require.NoError(t, err)
			require.Equal(t, orders.Timeout, b.stored(t).Status, "pending past the deadline: the order waits for the provider")
			require.Positive(t, next, "and is asked again")
			require.Zero(t, b.refunded(t), "nothing is refunded on the deadline alone")

			b.now = b.now.Add(next)
			b.provider.answer(vouchers.Result{Status: vouchers.Issued, Vouchers: []vouchers.Voucher{
				{Code: "LATE-CODE-1", Pin: "1234", ProviderVoucherID: "VCH-1", Value: money.Amount(10000)}}}, nil)
			next, err = b.fulfil(t)
			require.NoError(t, err)
			require.Zero(t, next, "final")
			o := b.stored(t)
			require.Equal(t, orders.Success, o.Status)
			v, err := b.svc.Open(o)
			require.NoError(t, err)
			require.Len(t, v.Codes, 1)
			require.Equal(t, "LATE-CODE-1", v.Codes[0].Code, "the card issued late is the one delivered")
			require.Zero(t, b.refunded(t), "a delivered order is not refunded")
			if channel == orders.Store {
				require.Equal(t, int64(lateStart-lateSpent), b.balance(t), "the coins are spent once")
			}

			asks := b.provider.asked()
			next, err = b.fulfil(t)
			require.NoError(t, err)
			require.Zero(t, next)
			require.Equal(t, asks, b.provider.asked(), "a final order is not asked again")
			require.Equal(t, []orders.Status{orders.Success}, b.orders.moves(b.order.ID), "delivered once")
		})
	}
}

// An order the provider refuses after its deadline is refunded once, on the provider's word.
func TestLateOrderRefusedIsRefundedOnce(t *testing.T) {
	t.Parallel()
	for _, channel := range channels {
		t.Run(string(channel), func(t *testing.T) {
			t.Parallel()
			b := setupLate(t, channel)
			b.now = b.now.Add(time.Hour)
			b.provider.answer(vouchers.Result{}, vouchers.ErrUnavailable)
			_, err := b.fulfil(t)
			require.NoError(t, err)
			require.Equal(t, orders.Timeout, b.stored(t).Status, "no answer past the deadline: the order waits for one")
			require.Zero(t, b.refunded(t))

			b.provider.answer(vouchers.Result{Status: vouchers.Refused, Reason: "SANDBOX_SLOW_FAIL: the provider refused the order"}, nil)
			next, err := b.fulfil(t)
			require.NoError(t, err)
			require.Zero(t, next)
			o := b.stored(t)
			require.Equal(t, orders.Failed, o.Status)
			require.Equal(t, "refused by the voucher provider (SANDBOX_SLOW_FAIL)", o.FailureReason)
			require.Equal(t, 1, b.refunded(t), "refunded on the provider's refusal")
			if channel == orders.Store {
				require.Equal(t, int64(lateStart), b.balance(t), "the coins are back")
			}

			for range 2 {
				next, err = b.fulfil(t)
				require.NoError(t, err)
				require.Zero(t, next)
			}
			require.Equal(t, 1, b.refunded(t), "refunded once, however often the job runs")
		})
	}
}

// Past its deadline an unanswered order is asked after as long as it has been late: the waits
// double from the poll interval up to orders.MaxLatePoll, and the last ask falls exactly
// orders.GiveUpAfter past the deadline. Before the deadline the interval is the poll's.
func TestLateOrderIsAskedLessAndLessOften(t *testing.T) {
	t.Parallel()
	b := setupLate(t, orders.Store)
	b.provider.answer(vouchers.Result{Status: vouchers.Pending}, nil)
	b.now = b.now.Add(-time.Hour)
	next, err := b.fulfil(t)
	require.NoError(t, err)
	require.Equal(t, latePoll, next, "on time: every poll interval")

	b.now = b.order.DeadlineAt.Add(time.Second)
	asks := b.provider.asked()
	var waits []time.Duration
	for {
		// Pending and outages alternate: no final answer either way.
		if len(waits)%2 == 1 {
			b.provider.answer(vouchers.Result{}, vouchers.ErrUnavailable)
		} else {
			b.provider.answer(vouchers.Result{Status: vouchers.Pending}, nil)
		}
		next, err := b.fulfil(t)
		if err != nil {
			require.ErrorIs(t, err, orders.ErrAwaitingOperator)
			break
		}
		require.Equal(t, orders.Timeout, b.stored(t).Status, "still waiting %s past the deadline", b.now.Sub(b.order.DeadlineAt))
		waits = append(waits, next)
		b.now = b.now.Add(next)
		require.Less(t, len(waits), 100, "the asks end")
	}
	require.Equal(t, orders.GiveUpAfter, b.now.Sub(b.order.DeadlineAt), "the last ask is a day past the deadline")
	want := []time.Duration{latePoll, 31 * time.Second, 62 * time.Second, 124 * time.Second, 248 * time.Second,
		496 * time.Second, 992 * time.Second, orders.MaxLatePoll}
	require.Equal(t, want, waits[:len(want)], "the waits double from the poll interval to the cap")
	for i, w := range waits[len(want) : len(waits)-1] {
		require.Equal(t, orders.MaxLatePoll, w, "wait %d stays at the cap", len(want)+i)
	}
	require.LessOrEqual(t, waits[len(waits)-1], orders.MaxLatePoll, "the last wait ends at the give-up")
	require.Equal(t, 55, b.provider.asked()-asks, "asks in the day past the deadline, the last one included")
	require.Len(t, waits, 54)
	require.Zero(t, b.refunded(t), "never refunded without the provider's final answer")
	require.Equal(t, int64(lateStart-lateSpent), b.balance(t))
}

// A day past its deadline, an order the provider still has not answered finally is asked no
// more: its job ends with ErrAwaitingOperator (the alert), the order stays TIMEOUT, neither
// delivered nor refunded. A final answer got then is still applied.
func TestLateOrderWaitsForAnOperatorAfterADay(t *testing.T) {
	t.Parallel()
	for _, channel := range channels {
		t.Run(string(channel), func(t *testing.T) {
			t.Parallel()
			for i, answer := range []error{nil, vouchers.ErrUnavailable} {
				b := setupLate(t, channel)
				b.now = b.now.Add(orders.GiveUpAfter - time.Minute)
				b.provider.answer(vouchers.Result{Status: vouchers.Pending}, answer)
				next, err := b.fulfil(t)
				require.NoError(t, err)
				require.Equal(t, time.Minute, next, "asked a last time at the give-up")

				b.now = b.now.Add(next)
				next, err = b.fulfil(t)
				require.ErrorIs(t, err, orders.ErrAwaitingOperator, "answer %d", i)
				require.Contains(t, err.Error(), b.order.ID.String(), "the alert names the order")
				require.Zero(t, next)
				o := b.stored(t)
				require.Equal(t, orders.Timeout, o.Status, "it waits, neither delivered nor refunded")
				require.Empty(t, o.FailureReason)
				require.Zero(t, b.refunded(t))
				require.Empty(t, b.orders.moves(b.order.ID), "no move")
			}

			b := setupLate(t, channel)
			b.now = b.now.Add(orders.GiveUpAfter + time.Hour)
			b.provider.answer(vouchers.Result{Status: vouchers.Refused, Reason: "FAILED"}, nil)
			_, err := b.fulfil(t)
			require.NoError(t, err)
			require.Equal(t, orders.Failed, b.stored(t).Status, "a final answer is applied whenever it comes")
			require.Equal(t, 1, b.refunded(t))
		})
	}
}

// An order the provider never got is failed and refunded once its deadline has passed, and not
// sent any more: nothing can be issued behind the refund's back. Before the deadline it is sent.
func TestOrderTheProviderNeverGotFailsAtItsDeadline(t *testing.T) {
	t.Parallel()
	for _, channel := range channels {
		t.Run(string(channel), func(t *testing.T) {
			t.Parallel()
			b := setupLate(t, channel)
			b.provider.answer(vouchers.Result{}, vouchers.ErrOrderNotFound)
			b.now = b.now.Add(-time.Minute)
			_, err := b.fulfil(t)
			require.NoError(t, err)
			require.Equal(t, 1, b.provider.placed(), "before the deadline it is sent again")
			require.Equal(t, orders.Timeout, b.stored(t).Status)

			b.now = b.now.Add(2 * time.Minute)
			next, err := b.fulfil(t)
			require.NoError(t, err)
			require.Zero(t, next)
			o := b.stored(t)
			require.Equal(t, orders.Failed, o.Status)
			require.Equal(t, "never reached the provider before the deadline", o.FailureReason)
			require.Equal(t, 1, b.provider.placed(), "past the deadline it is not sent")
			require.Equal(t, 1, b.refunded(t))
		})
	}
}

// scripted is a voucher provider whose every order call gives the answer the test set.
type scripted struct {
	vouchers.Provider // Catalogue and Stock: not called by a fulfilment step

	mu          sync.Mutex
	res         vouchers.Result
	err         error
	gets, place int
}

func (p *scripted) answer(res vouchers.Result, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.res, p.err = res, err
}

func (p *scripted) GetOrder(context.Context, string) (vouchers.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gets++
	return p.res, p.err
}

// PlaceOrder accepts the order, pending.
func (p *scripted) PlaceOrder(context.Context, vouchers.Order) (vouchers.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.place++
	return vouchers.Result{Status: vouchers.Pending}, nil
}

func (p *scripted) asked() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.gets + p.place
}

func (p *scripted) placed() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.place
}

// refunder records the partner refunds made (orders.Refunder).
type refunder struct {
	mu   sync.Mutex
	made []uuid.UUID
}

func (r *refunder) RefundFailed(_ context.Context, _ store.Tx, o orders.Order, _ string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.made = append(r.made, o.ID)
	return nil
}

func (r *refunder) count(id uuid.UUID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.made {
		if m == id {
			n++
		}
	}
	return n
}

// recorder is the catalogue's storage as a fulfilment step uses it: it counts a delivered order
// (RecordOrder) and nothing else.
type recorder struct{ catalogue.Repo }

func (recorder) RecordOrder(context.Context, uuid.UUID, time.Time) error { return nil }

// stepRepo is the orders' storage as a fulfilment step uses it (Get, the moves, the codes, the
// budget given back), with PostgreSQL's conditional moves: a move from a status the order has
// left changes nothing. Other methods are not called by a step.
type stepRepo struct {
	orders.Repo
	tab *memstore.Table[stepState]
}

type stepState struct {
	orders map[uuid.UUID]orders.Order
	moves  map[uuid.UUID][]orders.Status
}

func newStepRepo() *stepRepo {
	return &stepRepo{tab: memstore.NewTable(stepState{orders: map[uuid.UUID]orders.Order{}, moves: map[uuid.UUID][]orders.Status{}},
		func(s stepState) stepState {
			return stepState{orders: memstore.CloneMap(s.orders, func(o orders.Order) orders.Order {
				o.Codes = slices.Clone(o.Codes)
				return o
			}), moves: memstore.CloneMap(s.moves, slices.Clone)}
		})}
}

// Snapshot implements memstore.Snapshotter, so that a failed transaction leaves it as it was.
func (r *stepRepo) Snapshot() (restore func()) { return r.tab.Snapshot() }

func (r *stepRepo) put(o orders.Order) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	st.orders[o.ID] = o
}

// moves lists the statuses an order moved to, in order.
func (r *stepRepo) moves(id uuid.UUID) []orders.Status {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	return slices.Clone(st.moves[id])
}

func (r *stepRepo) Get(_ context.Context, id uuid.UUID) (orders.Order, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return orders.Order{}, orders.ErrOrderNotFound
	}
	o.Codes = slices.Clone(o.Codes)
	return o, nil
}

func (r *stepRepo) Move(_ context.Context, id uuid.UUID, from, to orders.Status, reason string, refundTxID *uuid.UUID) (bool, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	o, ok := st.orders[id]
	if !ok || o.Status != from {
		return false, nil
	}
	if !orders.CanMove(from, to) {
		return false, fmt.Errorf("order %s cannot move from %s to %s", id, from, to)
	}
	o.Status = to
	if to == orders.Failed {
		o.FailureReason, o.RefundTxID = reason, refundTxID
	}
	st.orders[id] = o
	st.moves[id] = append(st.moves[id], to)
	return true, nil
}

func (r *stepRepo) Advance(ctx context.Context, id uuid.UUID, from, to orders.Status, reason string) error {
	moved, err := r.Move(ctx, id, from, to, reason, nil)
	if err == nil && !moved {
		err = orders.ErrMovedElsewhere
	}
	return err
}

func (r *stepRepo) AddCodes(_ context.Context, id uuid.UUID, codes []orders.SealedCode) error {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	o, ok := st.orders[id]
	if !ok {
		return errors.New("no such order")
	}
	o.Codes = append(o.Codes, codes...)
	st.orders[id] = o
	return nil
}

func (r *stepRepo) ReturnBudget(context.Context, uuid.UUID, studio.Environment, time.Time, money.Amount) error {
	return nil
}
