package postgres

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Group commit of one partner's WALLET orders (partner.WalletOrders).
//
// A WALLET order's transaction debits the partner's wallet with its COMMIT, and the wallet row
// stays locked until that commit's WAL flush: the orders of one partner are serialized at one
// flush each. So on each instance, an order of a wallet that arrives while another order of it
// is running waits in that wallet's queue; when the running one finishes, the first waiter
// leads the next turn, as the coins' hot balances do (coins_hot.go): it takes everything queued
// (at most maxHotBatch) and places it in one transaction on one connection. The transaction
// reads the wallet's balance with its BEGIN, then runs each order's own statements
// (placeWalletOrder: its order's insert, the one statement whose answer it reads, carries what
// the previous order queued), and sends every order's debit, each its own statement with its
// own journal entry, with the COMMIT: one flush for all, the wallet locked only by that last
// round trip.
//
// An order is taken into the transaction only when the balance read covers it after the orders
// before it; one that it does not cover is placed afterwards by its own caller in a transaction
// of its own, as without the queue, and so fails alone with RWWAL unless the wallet was
// credited meanwhile. Every other refusal spoils the whole transaction, whichever order it
// belongs to: a debit that no longer fits (the wallet was debited elsewhere since it was read),
// a taken clientOrderId, an order's statements' error, any error PostgreSQL raises, or one
// raised before the COMMIT was sent. Nothing of it committed, and each of its orders is then
// placed by its own caller in a transaction of its own, as if it had never waited, so that it
// gets exactly the answer it would have had without the queue. A transaction whose outcome is
// unknown (the connection was lost or timed out once the COMMIT was sent) answers its error to
// each of its orders, as a lone transaction's would be: nothing is placed again that may have
// committed.
//
// A waiter whose context ends before its turn is taken leaves the queue with the context's
// error and nothing of it runs; once taken, it waits for its turn's outcome (the turn runs
// detached from the callers' contexts), so an order that committed is never reported as failed.

// PartnerWalletOrders places the partner module's WALLET orders on a DB, in the turns of each
// wallet (above); the turns are the DB's, shared by every PartnerWalletOrders on it.
type PartnerWalletOrders struct {
	d      *DB
	orders store.Of[orders.Repo]
}

var _ partner.WalletOrders = (*PartnerWalletOrders)(nil)

// NewPartnerWalletOrders returns the WALLET orders of the partner module on d.
func NewPartnerWalletOrders(d *DB) *PartnerWalletOrders {
	return &PartnerWalletOrders{d: d, orders: NewOrdersStore(d)}
}

// PlaceWalletOrder implements partner.WalletOrders. An order with a quote is placed in a
// transaction of its own, since its quote's use is a refusal of its own; the others in their
// wallet's turns.
func (w *PartnerWalletOrders) PlaceWalletOrder(ctx context.Context, o orders.Order, quoteID string) (orders.Order, error) {
	var placed orders.Order
	fn := func(ctx context.Context, t store.Tx) (err error) {
		placed, err = w.placeWalletOrder(ctx, t, o, quoteID)
		return err
	}
	var err error
	if quoteID != "" {
		err = w.d.inTxAlone(ctx, fn)
	} else {
		err = w.d.inWalletTurn(ctx, o.GameID, o.Environment, o.Partner.Amount, fn)
	}
	if err != nil {
		return orders.Order{}, err
	}
	return placed, nil
}

// placeWalletOrder is a WALLET order's statements in t: its insert, its quote's use, and its
// debit, which goes with the COMMIT (PartnerRepo.debitWallet).
func (w *PartnerWalletOrders) placeWalletOrder(ctx context.Context, t store.Tx, o orders.Order, quoteID string) (orders.Order, error) {
	o, err := w.orders.WithTx(t).Insert(ctx, o, partner.WalletDebited, orders.SentStep)
	if err != nil {
		return orders.Order{}, err
	}
	repo := &PartnerRepo{w.d.txConn(t)}
	if quoteID != "" {
		fresh, err := repo.UseQuote(ctx, quoteID, o.ID)
		if err != nil {
			return orders.Order{}, err
		}
		if !fresh {
			return orders.Order{}, partner.ErrQuoteUsed
		}
	}
	return o, repo.debitWallet(ctx, o.GameID, o.Environment, o.ID, o.Partner.Amount)
}

// walletKey is what WALLET orders queue by: one partner wallet.
type walletKey struct {
	game uuid.UUID
	env  studio.Environment
}

// walletLines are the queues of the wallets with an order running on this instance.
type walletLines struct {
	turns[walletKey, *walletOp]

	// short counts the orders left out of a turn because the balance read did not cover them.
	short atomic.Int64
}

func newWalletLines() *walletLines { return &walletLines{turns: newTurns[walletKey, *walletOp]()} }

// walletOp is a queued order: its debit and its transaction function.
type walletOp struct {
	amount money.Amount
	fn     func(context.Context, store.Tx) error
}

// walletWaiter is a queued order.
type walletWaiter = waiter[*walletOp]

// inWalletTurn runs fn, a WALLET order's statements, in a transaction of its own when no order
// of the wallet is running on this instance, else in the wallet's next turn (see above). fn
// runs its statements on the ctx it is given (the turn's, which the caller's cancellation does
// not end once the turn is taken) and may run more than once.
func (d *DB) inWalletTurn(ctx context.Context, gameID uuid.UUID, env studio.Environment, amount money.Amount,
	fn func(context.Context, store.Tx) error) error {
	key := walletKey{gameID, env}
	w, first := d.wallets.wait(ctx, key, &walletOp{amount: amount, fn: fn}, func(turn []*walletWaiter) { d.runWalletTurn(key, turn) })
	if first {
		defer d.wallets.next(key)
		return d.inTxAlone(ctx, fn)
	}
	if w.alone {
		return d.inTxAlone(ctx, fn)
	}
	return w.err
}

// inTxAlone runs fn in a transaction of its own, as without the queue.
func (d *DB) inTxAlone(ctx context.Context, fn func(context.Context, store.Tx) error) error {
	return d.InTx(ctx, func(t store.Tx) error { return fn(ctx, t) })
}

// runWalletTurn places a turn's orders, gives each waiter its outcome, and hands the next turn
// on.
func (d *DB) runWalletTurn(key walletKey, turn []*walletWaiter) {
	defer d.wallets.next(key)
	if len(turn) == 1 {
		w := turn[0]
		w.err = d.inTxAlone(w.ctx, w.op.fn)
		close(w.done)
		return
	}
	h := d.wallets
	ctx, cancel, ends := h.together(d, turn)
	defer cancel()
	placed, txs, err := d.placeTurn(ctx, key, turn)
	if err != nil {
		h.failed.Add(1)
	}
	for i, w := range turn {
		switch {
		case err == nil && placed[i]:
			for _, f := range txs[i].committed {
				f()
			}
			ends[i](nil)
		case err == nil:
			// Not covered by the balance read: placed by its caller, alone.
			h.short.Add(1)
			w.alone = true
			ends[i](nil)
		case errors.Is(err, errNotCommitted) || !placed[i]:
			w.alone = true
			ends[i](err)
		default:
			w.err = unavailable(err)
			ends[i](w.err)
		}
		close(w.done)
	}
}

// placeTurn places the orders of a turn that the wallet's balance covers in one transaction,
// and says which it placed (placed[i], with txs[i] the transaction as order i saw it). Its error
// wraps errNotCommitted when nothing committed for sure; any other error leaves the outcome of
// the placed orders unknown.
func (d *DB) placeTurn(ctx context.Context, key walletKey, turn []*walletWaiter) (placed []bool, txs []*Tx, err error) {
	placed = make([]bool, len(turn))
	txs = make([]*Tx, len(turn))
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return placed, nil, errors.Join(errNotCommitted, err)
	}
	// A connection left in a failed transaction is rolled back below, or destroyed on release.
	defer c.Release()
	pipe := &pipeTx{conn: c}
	// BEGIN and the balance, in one round trip; no lock: the debits, sent with the COMMIT,
	// take it.
	balance, err := db.New(pipe).PartnerGetWallet(ctx, db.PartnerGetWalletParams{GameID: key.game, Environment: string(key.env)})
	if isNoRows(err) {
		balance, err = 0, nil
	}
	if err != nil {
		return placed, nil, rolledBack(ctx, c, err)
	}
	var covered int64
	some := false
	for i, w := range turn {
		if covered+int64(w.op.amount) > balance {
			continue
		}
		covered += int64(w.op.amount)
		placed[i] = true
		some = true
		txs[i] = &Tx{tx: pipe, q: db.New(outages{pipe})}
		if err := w.op.fn(ctx, txs[i]); err != nil {
			return placed, nil, rolledBack(ctx, c, err)
		}
	}
	if !some {
		return placed, nil, rolledBack(ctx, c, errors.New("the wallet covers none of the turn's orders"))
	}

	// What is still queued, then the debits, then COMMIT, in one round trip; the deferred
	// statements' own error mapping is not applied: any error here means the transaction did
	// not commit, and each order is placed again alone.
	tag, err := pipe.commitRaw(ctx)
	if err := commitOutcome(ctx, c, tag, err); err != nil {
		return placed, nil, err
	}
	return placed, txs, nil
}
