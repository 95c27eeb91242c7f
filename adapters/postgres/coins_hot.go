package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"runtime"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/coins"
)

// Group commit of movements.
//
// A movement without an idempotency key is one statement that commits by itself: one round
// trip, one transaction and one commit's WAL flush each, and its lock on the player's balance
// row lasts until that flush, so the movements of one player (a hot balance) are serialized at
// one flush each. So on each instance the balances are spread over hotShards lines by their
// (player, coin); a movement that arrives while another one of its line is running waits in the
// line's queue, and when the running one finishes, the first waiter leads the next turn: it
// takes everything queued (at most maxHotBatch) and runs it as one transaction sent in one pgx
// batch (BEGIN, the movements' statements, COMMIT): one round trip and one flush for all of
// them, whether they are one player's or many players'. A movement that finds nothing of its
// line running goes at once, alone, as before; so does a turn of one. Each movement keeps its
// own outcome: its journal entry and coin event, its balance after (each statement sees the
// ones before it: one balance's movements run in arrival order), and a debit that does not fit
// fails alone (the statement changes nothing and the others commit). A batch locks its balance
// rows in the order of (player, coin), as every instance's batches do, so that two batches
// never wait on each other in a cycle.
//
// A batch that PostgreSQL refused (a statement's error, a deadlock, a failed COMMIT) committed
// nothing: each of its movements is then made by its own caller as if it had never waited, one
// statement alone, so each gets exactly the answer it would have had without the queue, and a
// bad movement fails alone. A batch whose outcome is unknown (the connection
// was lost or timed out after it was sent) answers its error to each movement, as a lone
// statement's would be: nothing is made again that may have committed.
//
// A waiter whose context ends before its turn is taken leaves the queue with the context's
// error; once taken, it waits for its batch's outcome (the batch runs detached from the callers'
// contexts), so a movement that committed is never reported as failed.

// maxHotBatch bounds the movements of one batch.
const maxHotBatch = 64

// hotKey is what movements queue by: the line of their balance row (hotLines.keyOf).
type hotKey uint16

// hotLines are the queues of the lines with a movement running on this instance.
type hotLines struct {
	turns[hotKey, *hotOp]
	// shards is how many lines the balances are spread over: how many batches of movements may
	// run at once on the instance, one per core and at least 2 (on 2 cores, 1 line gave a lower
	// p99 and 4 a lower throughput than 2).
	shards uint64
}

func newHotLines() *hotLines {
	return &hotLines{turns: newTurns[hotKey, *hotOp](), shards: uint64(max(2, runtime.GOMAXPROCS(0)))}
}

// keyOf is the line of a balance: one balance's movements are always in the same line.
func (h *hotLines) keyOf(player, coin uuid.UUID) hotKey {
	return hotKey((binary.LittleEndian.Uint64(player[8:]) ^ binary.LittleEndian.Uint64(coin[8:])) % h.shards)
}

// hotOp is a queued movement, and its outcome.
type hotOp struct {
	m     coins.Movement
	typ   coins.TxType
	event coins.EventType
	out   coins.Transaction
}

// hotWaiter is a queued movement.
type hotWaiter = waiter[*hotOp]

// applyQueued makes m as one statement that commits by itself, or, when a movement of its line
// is running on this instance, in the batch of the next turn (see above).
func (r *CoinsRepo) applyQueued(ctx context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) (coins.Transaction, error) {
	key, op := r.hot.keyOf(m.PlayerID, m.CoinID), &hotOp{m: m, typ: typ, event: event}
	w, first := r.hot.wait(ctx, key, op, func(batch []*hotWaiter) { r.runTurn(key, batch) })
	if first {
		defer r.hot.next(key)
		return r.applyOne(ctx, m, typ, event)
	}
	if w.alone {
		return r.applyOne(ctx, m, typ, event)
	}
	return op.out, w.err
}

// runTurn runs a turn's movements, gives each waiter its outcome, and hands the next turn on.
func (r *CoinsRepo) runTurn(key hotKey, batch []*hotWaiter) {
	defer r.hot.next(key)
	if len(batch) == 1 {
		w := batch[0]
		w.op.out, w.err = r.applyOne(w.ctx, w.op.m, w.op.typ, w.op.event)
		close(w.done)
		return
	}
	// The balance rows in one order on every instance; one balance's movements keep theirs.
	batch = slices.Clone(batch)
	slices.SortStableFunc(batch, func(a, b *hotWaiter) int {
		if c := bytes.Compare(a.op.m.PlayerID[:], b.op.m.PlayerID[:]); c != 0 {
			return c
		}
		return bytes.Compare(a.op.m.CoinID[:], b.op.m.CoinID[:])
	})
	ctx, cancel, ends := r.hot.together(r.db, batch)
	defer cancel()
	results, err := r.sendBatch(ctx, batch)
	for i, w := range batch {
		switch {
		case err == nil:
			var deliveries []uuid.UUID
			w.op.out, deliveries, w.err = movementResult(w.op.m, w.op.typ, results[i], nil)
			if w.err == nil {
				r.metrics.CoinMovement(w.op.m.Reason, w.op.typ, w.op.m.Amount)
				r.delivered(deliveries)
			}
			ends[i](w.err)
		case errors.Is(err, errNotCommitted):
			w.alone = true
			ends[i](err)
		default:
			w.err = unavailable(err)
			ends[i](w.err)
		}
		close(w.done)
	}
	if err != nil {
		r.hot.failed.Add(1)
	}
}

// errNotCommitted marks a batch that PostgreSQL refused, or that was never sent: nothing of it
// committed.
var errNotCommitted = errors.New("the batch of movements did not commit")

// sendBatch runs the movements in one transaction, sent as one batch, and returns each
// movement's row. Its error wraps errNotCommitted when nothing committed for sure; any other
// error leaves the outcome unknown.
func (r *CoinsRepo) sendBatch(ctx context.Context, batch []*hotWaiter) ([]db.CoinsApplyMovementRow, error) {
	c, err := r.db.pool.Acquire(ctx)
	if err != nil {
		return nil, errors.Join(errNotCommitted, err)
	}
	// A connection left in a failed transaction is rolled back below, or destroyed on release.
	defer c.Release()
	b := &pgx.Batch{}
	b.Queue("begin")
	for _, w := range batch {
		// The generated query queues itself (its statement and arguments) on b.
		_, _ = db.New(batchQueuer{b}).CoinsApplyMovement(ctx, movementParams(w.op.m, w.op.typ, w.op.event))
	}
	b.Queue("commit")
	br := c.SendBatch(ctx, b)
	_, beginErr := br.Exec()
	rows := make([]db.CoinsApplyMovementRow, len(batch))
	errs := []error{beginErr}
	for i, w := range batch {
		// The generated query reads the next result of br as its own.
		row, err := db.New(batchReader{br}).CoinsApplyMovement(ctx, movementParams(w.op.m, w.op.typ, w.op.event))
		rows[i] = row
		errs = append(errs, err)
	}
	tag, commitErr := br.Exec()
	errs = append(errs, commitErr, br.Close())
	if err := commitOutcome(ctx, c, tag, errors.Join(errs...)); err != nil {
		return nil, err
	}
	return rows, nil
}

// commitOutcome is the outcome of a transaction sent on c as one batch ending with its COMMIT,
// from the errors of the batch's results (joined) and the COMMIT's tag: nil when it committed;
// an error wrapping errNotCommitted when PostgreSQL aborted it (nothing committed; rolled back
// here); any other error, when the outcome is unknown, as it is.
func commitOutcome(ctx context.Context, c *pgxpool.Conn, tag pgconn.CommandTag, err error) error {
	if err == nil && tag.String() == "COMMIT" {
		return nil
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) || (err == nil && tag.String() == "ROLLBACK") {
		return rolledBack(ctx, c, errors.Join(err, errors.New("the transaction rolled back")))
	}
	if err == nil {
		err = errors.New("COMMIT answered " + tag.String())
	}
	return err
}

// rolledBack ends the transaction open on c, if one is, and returns err as not committed.
func rolledBack(ctx context.Context, c *pgxpool.Conn, err error) error {
	if c.Conn().PgConn().TxStatus() != 'I' {
		_, _ = c.Exec(ctx, "rollback")
	}
	return errors.Join(errNotCommitted, err)
}

// batchQueuer is a db.DBTX that queues the statement a generated query runs on a batch; the
// row it answers scans as an error.
type batchQueuer struct{ b *pgx.Batch }

var errQueued = errors.New("queued on a batch")

func (q batchQueuer) QueryRow(_ context.Context, sql string, args ...any) pgx.Row {
	q.b.Queue(sql, args...)
	return errRow{errQueued}
}

func (q batchQueuer) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errQueued
}

func (q batchQueuer) Query(context.Context, string, ...any) (pgx.Rows, error) { return nil, errQueued }

func (q batchQueuer) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults { return nil }

// batchReader is a db.DBTX that answers a generated query with the next result of a batch
// (the statement it queued through batchQueuer).
type batchReader struct{ br pgx.BatchResults }

func (q batchReader) QueryRow(context.Context, string, ...any) pgx.Row { return q.br.QueryRow() }

func (q batchReader) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return q.br.Exec()
}

func (q batchReader) Query(context.Context, string, ...any) (pgx.Rows, error) { return q.br.Query() }

func (q batchReader) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults { return nil }
