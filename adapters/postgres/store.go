package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/store"
)

// maxTxAttempts bounds how often a transaction runs when PostgreSQL aborts it with a
// serialization failure or a deadlock.
const maxTxAttempts = 3

// DB is the database every module's storage is built on. It implements store.Runner.
type DB struct {
	pool *pgxpool.Pool
	// metrics counts committed coin movements and order transitions (nil: not counted).
	metrics *metrics.Metrics
	// tracer, when set, opens a span around each transaction.
	tracer trace.Tracer
	// wallets are the queues of the partner wallets' orders (PartnerWalletOrders).
	wallets *walletLines
	// deliveries hears of the webhook deliveries that committed coin movements added
	// (NewCoinsStore's jobs); nil: nobody.
	deliveries DeliveryNotifier
}

// Option configures a DB.
type Option func(*DB)

// WithMetrics counts committed coin movements and order transitions on m.
func WithMetrics(m *metrics.Metrics) Option { return func(d *DB) { d.metrics = m } }

// WithTracing opens a span ("db.transaction") around each InTx on tp; nil leaves tracing off.
func WithTracing(tp trace.TracerProvider) Option {
	return func(d *DB) {
		if tp != nil {
			d.tracer = tp.Tracer("github.com/rewardsco/rewards/adapters/postgres")
		}
	}
}

// NewDB returns a DB over pool.
func NewDB(pool *pgxpool.Pool, opts ...Option) *DB {
	d := &DB{pool: pool, wallets: newWalletLines()}
	for _, o := range opts {
		o(d)
	}
	return d
}

// Pool returns the underlying pool, for health checks and the job queue.
func (d *DB) Pool() *pgxpool.Pool { return d.pool }

// Tx is an open transaction: the store.Tx of this adapter.
type Tx struct {
	tx *pipeTx
	q  *db.Queries
	// committed runs once the transaction has committed (metrics of what it changed); an
	// attempt that rolls back or is retried drops its own.
	committed []func()
}

// PgxTx returns the pgx transaction, for libraries that take part in it (River's InsertTx).
func (t *Tx) PgxTx() pgx.Tx { return t.tx }

// InTx implements store.Runner. A transaction that PostgreSQL aborts with a serialization
// failure (40001) or a deadlock (40P01) is run again, up to maxTxAttempts times in all, as
// formancehq/ledger does: the loser of such a race usually succeeds at once on a retry.
func (d *DB) InTx(ctx context.Context, fn func(store.Tx) error) (err error) {
	ctx, end := d.span(ctx)
	defer func() { end(err) }()
	for attempt := 1; ; attempt++ {
		var t *Tx
		err = unavailable(d.attempt(ctx, func(tx *pipeTx) error {
			t = &Tx{tx: tx, q: db.New(outages{tx})}
			return fn(t)
		}))
		if err == nil {
			for _, f := range t.committed {
				f()
			}
		}
		if d.tracer != nil && attempt > 1 {
			trace.SpanFromContext(ctx).SetAttributes(attribute.Int("db.transaction.attempts", attempt))
		}
		if !retryable(err) || attempt == maxTxAttempts || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(attempt) * 5 * time.Millisecond):
		}
	}
}

// span opens the "db.transaction" span of a transaction (when tracing is on); end closes it
// with the transaction's outcome.
func (d *DB) span(ctx context.Context) (_ context.Context, end func(error)) {
	if d.tracer == nil {
		return ctx, func(error) {}
	}
	ctx, span := d.tracer.Start(ctx, "db.transaction", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("db.system.name", "postgresql")))
	return ctx, func(err error) {
		if err != nil {
			span.RecordError(err)
			span.SetStatus(codes.Error, "transaction failed")
		}
		span.End()
	}
}

// attempt runs fn in one transaction on a connection of its own (a pipeTx: BEGIN goes with the
// first statement, COMMIT with the last deferred ones), committing when fn returns nil and
// rolling back otherwise, even when fn panics.
func (d *DB) attempt(ctx context.Context, fn func(*pipeTx) error) (err error) {
	c, err := d.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// A connection left inside a transaction (a rollback that could not be sent) is destroyed by
	// the pool rather than reused.
	defer c.Release()
	tx := &pipeTx{conn: c}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	committed = true
	return nil
}

func retryable(err error) bool {
	switch pgCode(err) {
	case "40001", "40P01":
		return true
	}
	return false
}

// conn is what a module's repository runs its queries on: the pool, or one transaction (then
// tx is set).
type conn struct {
	q  *db.Queries
	tx pgx.Tx
	// dbtx is what q runs on, for a repository that needs other query options (customPlans).
	dbtx db.DBTX
	// metrics counts what commits (nil: nothing); owner is the transaction, nil on the pool.
	metrics *metrics.Metrics
	owner   *Tx
}

// onCommit runs f once the repository's work has committed: at the end of its transaction, or
// at once on the pool (each statement commits by itself).
func (c conn) onCommit(f func()) {
	if c.owner != nil {
		c.owner.committed = append(c.owner.committed, f)
		return
	}
	f()
}

// customPlans runs every statement unnamed, with its description cached
// (pgx.QueryExecModeCacheDescribe): PostgreSQL plans it for the actual parameters each time and
// never switches to a cached generic plan. The catalogue's lists need this: their optional
// filters ("$n = ” OR …") make the generic plan a nested loop over every reward (350 ms instead
// of 70 ms in the benchmark), while for the ledger's one-row statements a cached plan is the
// faster one.
type customPlans struct{ db.DBTX }

func (c customPlans) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return c.DBTX.Query(ctx, sql, append([]any{pgx.QueryExecModeCacheDescribe}, args...)...)
}

func (c customPlans) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return c.DBTX.QueryRow(ctx, sql, append([]any{pgx.QueryExecModeCacheDescribe}, args...)...)
}

// moduleStore is the store.Of of one module: it builds the module's repository on the pool or
// on a transaction.
type moduleStore[R any] struct {
	db     *DB
	pooled R
	bind   func(conn) R
}

// newModuleStore returns the store of a module whose repository bind builds.
func newModuleStore[R any](d *DB, bind func(conn) R) store.Of[R] {
	return &moduleStore[R]{db: d, pooled: bind(conn{q: db.New(outages{d.pool}), dbtx: outages{d.pool}, metrics: d.metrics}), bind: bind}
}

func (m *moduleStore[R]) Repo() R { return m.pooled }

func (m *moduleStore[R]) WithTx(t store.Tx) R { return m.bind(m.db.txConn(t)) }

// txConn is the conn of a transaction that d's InTx opened.
func (d *DB) txConn(t store.Tx) conn {
	tx, ok := t.(*Tx)
	if !ok {
		panic(fmt.Sprintf("postgres: WithTx given %T, not a transaction of this adapter", t))
	}
	return conn{q: tx.q, tx: tx.tx, dbtx: outages{tx.tx}, metrics: d.metrics, owner: tx}
}

func (m *moduleStore[R]) InTx(ctx context.Context, fn func(R) error) error {
	return m.db.InTx(ctx, func(t store.Tx) error { return fn(m.WithTx(t)) })
}

// isNoRows reports whether err means a query returned no row.
func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}
