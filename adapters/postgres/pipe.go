package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rewardsco/rewards/adapters/postgres/db"
)

// pipeTx is a transaction that makes as few round trips to PostgreSQL as its statements allow,
// by sending several in one pgx batch (one round trip, executed in order):
//
//   - BEGIN is not sent on its own: it goes with the first statement (a transaction that runs
//     no statement sends nothing at all);
//   - a statement whose result the use case does not need at once (a lock, an insert, a
//     conditional update that raises when it finds nothing to change) is deferred: it goes
//     with the next statement, or with COMMIT. An error it raises is the error of the statement
//     or the COMMIT it travelled with, and PostgreSQL skips what follows it in the batch, so the
//     transaction rolls back.
//
// It implements pgx.Tx, so that libraries taking part in the transaction (River's InsertTx) use
// it like any other; their statements carry the deferred ones too.
type pipeTx struct {
	conn    *pgxpool.Conn
	begun   bool
	pending []deferred
	// atCommit are deferred statements that go with the COMMIT alone, after every other
	// (atCommitQueries): a lock that many transactions contend on is then held only while the
	// commit runs, however many statements the transaction sends before it.
	atCommit []deferred
	// savepoints numbers the savepoints of nested transactions (Begin).
	savepoints int
}

// deferred is a statement queued by deferredQueries; onErr, when set, turns an error
// PostgreSQL raised for it into the use case's error. A statement queued by queueRow has read,
// which reads its result (one row) from the batch it travelled with, once answered.
type deferred struct {
	sql   string
	args  []any
	onErr func(error) error
	read  func(pgx.BatchResults) error
}

var _ pgx.Tx = (*pipeTx)(nil)

// batch returns a batch of what must go before the next statement (BEGIN, the deferred
// statements) and how many of them are deferred statements; nil when nothing must.
func (t *pipeTx) batch() *pgx.Batch {
	if t.begun && len(t.pending) == 0 {
		return nil
	}
	b := &pgx.Batch{}
	if !t.begun {
		b.Queue("begin")
	}
	for _, d := range t.pending {
		b.Queue(d.sql, d.args...)
	}
	return b
}

// readAhead reads the results of what batch queued before the caller's statement: the first
// error, from PostgreSQL or from a deferred statement's check, is returned.
func (t *pipeTx) readAhead(br pgx.BatchResults) error { return t.readQueued(br, true) }

// readQueued is readAhead; unmapped, a deferred statement's error is returned as PostgreSQL
// raised it, without its onErr.
func (t *pipeTx) readQueued(br pgx.BatchResults, mapped bool) error {
	pending := t.pending
	t.pending = nil
	if !t.begun {
		t.begun = true
		if _, err := br.Exec(); err != nil {
			// A queued row's reader learns why it has no row.
			for _, d := range pending {
				if d.read != nil {
					_ = d.read(errBatch{err})
				}
			}
			return err
		}
	}
	var first error
	for _, d := range pending {
		var err error
		if d.read != nil {
			err = d.read(br)
		} else {
			_, err = br.Exec()
		}
		if err != nil && d.onErr != nil && mapped {
			err = d.onErr(err)
		}
		if err != nil && first == nil {
			first = err
		}
	}
	return first
}

// flush sends what is queued (BEGIN, deferred statements) on its own.
func (t *pipeTx) flush(ctx context.Context) error {
	b := t.batch()
	if b == nil {
		return nil
	}
	br := t.conn.SendBatch(ctx, b)
	err := t.readAhead(br)
	return errors.Join(err, br.Close())
}

// Exec implements pgx.Tx.
func (t *pipeTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if withMode(args) {
		if err := t.flush(ctx); err != nil {
			return pgconn.CommandTag{}, err
		}
	}
	b := t.batch()
	if b == nil {
		return t.conn.Exec(ctx, sql, args...)
	}
	b.Queue(sql, args...)
	br := t.conn.SendBatch(ctx, b)
	ahead := t.readAhead(br)
	tag, err := br.Exec()
	cerr := br.Close()
	if ahead != nil {
		return tag, ahead
	}
	if err != nil {
		return tag, err
	}
	return tag, cerr
}

// withMode reports whether args start with a query exec mode (customPlans), which pgx's
// batches do not take: such a statement runs on its own after a flush.
func withMode(args []any) bool {
	if len(args) == 0 {
		return false
	}
	_, ok := args[0].(pgx.QueryExecMode)
	return ok
}

// Query implements pgx.Tx.
func (t *pipeTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	if withMode(args) {
		if err := t.flush(ctx); err != nil {
			return nil, err
		}
	}
	b := t.batch()
	if b == nil {
		return t.conn.Query(ctx, sql, args...)
	}
	b.Queue(sql, args...)
	br := t.conn.SendBatch(ctx, b)
	if err := t.readAhead(br); err != nil {
		_ = br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		_ = br.Close()
		return nil, err
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow implements pgx.Tx.
func (t *pipeTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if withMode(args) {
		if err := t.flush(ctx); err != nil {
			return errRow{err}
		}
	}
	b := t.batch()
	if b == nil {
		return t.conn.QueryRow(ctx, sql, args...)
	}
	b.Queue(sql, args...)
	br := t.conn.SendBatch(ctx, b)
	if err := t.readAhead(br); err != nil {
		_ = br.Close()
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

// batchRows closes its batch with itself.
type batchRows struct {
	pgx.Rows
	br     pgx.BatchResults
	closed bool
	err    error
}

func (r *batchRows) Close() {
	if r.closed {
		return
	}
	r.closed = true
	r.Rows.Close()
	r.err = r.br.Close()
}

func (r *batchRows) Next() bool {
	if r.closed {
		return false
	}
	if r.Rows.Next() {
		return true
	}
	r.Close()
	return false
}

func (r *batchRows) Err() error {
	if err := r.Rows.Err(); err != nil {
		return err
	}
	return r.err
}

// batchRow closes its batch once scanned.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	err := r.row.Scan(dest...)
	if cerr := r.br.Close(); err == nil {
		err = cerr
	}
	return err
}

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// Commit implements pgx.Tx: the deferred statements and COMMIT in one round trip (none when
// the transaction ran no statement). An error PostgreSQL raises for a deferred statement aborts
// the transaction there, so the COMMIT does not run. A transaction that an earlier statement's
// error aborted (an error its caller went on from) answers COMMIT with ROLLBACK: that is
// pgx.ErrTxCommitRollback, as pgx's own transactions report it, never a success.
func (t *pipeTx) Commit(ctx context.Context) error {
	t.pending = append(t.pending, t.atCommit...)
	t.atCommit = nil
	if !t.begun && len(t.pending) == 0 {
		return nil
	}
	tag, err := t.Exec(ctx, "commit")
	if err == nil && tag.String() == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return err
}

// commitRaw is Commit for a caller that judges the outcome itself (commitOutcome): the
// deferred statements, those held for the commit and COMMIT in one round trip, and COMMIT's tag
// with every error as PostgreSQL raised it (a deferred statement's onErr is not applied).
func (t *pipeTx) commitRaw(ctx context.Context) (pgconn.CommandTag, error) {
	t.pending = append(t.pending, t.atCommit...)
	t.atCommit = nil
	b := t.batch()
	if b == nil {
		b = &pgx.Batch{}
	}
	b.Queue("commit")
	br := t.conn.SendBatch(ctx, b)
	ahead := t.readQueued(br, false)
	tag, err := br.Exec()
	return tag, errors.Join(ahead, err, br.Close())
}

// Rollback implements pgx.Tx.
func (t *pipeTx) Rollback(ctx context.Context) error {
	t.pending, t.atCommit = nil, nil
	if !t.begun {
		return nil
	}
	t.begun = false
	_, err := t.conn.Exec(ctx, "rollback")
	return err
}

// Begin implements pgx.Tx: a savepoint.
func (t *pipeTx) Begin(ctx context.Context) (pgx.Tx, error) {
	t.savepoints++
	name := fmt.Sprintf("sp_%d", t.savepoints)
	if _, err := t.Exec(ctx, "savepoint "+name); err != nil {
		return nil, err
	}
	return &savepointTx{parent: t, name: name}, nil
}

// CopyFrom implements pgx.Tx.
func (t *pipeTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	if err := t.flush(ctx); err != nil {
		return 0, err
	}
	return t.conn.CopyFrom(ctx, table, columns, src)
}

// SendBatch implements pgx.Tx.
func (t *pipeTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	if err := t.flush(ctx); err != nil {
		return errBatch{err}
	}
	return t.conn.SendBatch(ctx, b)
}

// LargeObjects implements pgx.Tx; nothing here uses large objects.
func (t *pipeTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

// Prepare implements pgx.Tx.
func (t *pipeTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return t.conn.Conn().Prepare(ctx, name, sql)
}

// Conn implements pgx.Tx.
func (t *pipeTx) Conn() *pgx.Conn { return t.conn.Conn() }

type errBatch struct{ err error }

func (b errBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, b.err }
func (b errBatch) Query() (pgx.Rows, error)         { return nil, b.err }
func (b errBatch) QueryRow() pgx.Row                { return errRow{b.err} }
func (b errBatch) Close() error                     { return b.err }
func (b errBatch) Tx() pgx.Tx                       { return nil }

// savepointTx is a transaction nested in a pipeTx.
type savepointTx struct {
	parent *pipeTx
	name   string
	done   bool
}

var _ pgx.Tx = (*savepointTx)(nil)

func (s *savepointTx) Begin(ctx context.Context) (pgx.Tx, error) { return s.parent.Begin(ctx) }

func (s *savepointTx) Commit(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.parent.Exec(ctx, "release savepoint "+s.name)
	return err
}

func (s *savepointTx) Rollback(ctx context.Context) error {
	if s.done {
		return pgx.ErrTxClosed
	}
	s.done = true
	_, err := s.parent.Exec(ctx, "rollback to savepoint "+s.name)
	return err
}

func (s *savepointTx) CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error) {
	return s.parent.CopyFrom(ctx, table, columns, src)
}

func (s *savepointTx) SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults {
	return s.parent.SendBatch(ctx, b)
}

func (s *savepointTx) LargeObjects() pgx.LargeObjects { return pgx.LargeObjects{} }

func (s *savepointTx) Prepare(ctx context.Context, name, sql string) (*pgconn.StatementDescription, error) {
	return s.parent.Prepare(ctx, name, sql)
}

func (s *savepointTx) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return s.parent.Exec(ctx, sql, args...)
}

func (s *savepointTx) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return s.parent.Query(ctx, sql, args...)
}

func (s *savepointTx) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return s.parent.QueryRow(ctx, sql, args...)
}

func (s *savepointTx) Conn() *pgx.Conn { return s.parent.Conn() }

// queueRow queues a statement of one row on the transaction, to travel with its next statement
// (or COMMIT) like a deferred one: query runs the statement on the DBTX it is given (a sqlc
// query), once on a batchQueuer to record the statement and once, when the batch is answered,
// on a batchReader to scan its row, which it keeps; its error, passed through onErr (nil: as it
// is), is then also the error of the statement the row travelled with. The returned function
// sends the statement on its own if nothing has yet, and returns the error query returned.
func (t *Tx) queueRow(query func(db.DBTX) error, onErr func(error) error) func(context.Context) error {
	var b pgx.Batch
	_ = query(batchQueuer{&b})
	if len(b.QueuedQueries) != 1 {
		return func(context.Context) error { return errNotDeferrable }
	}
	var err error
	read := false
	q := b.QueuedQueries[0]
	t.tx.pending = append(t.tx.pending, deferred{sql: q.SQL, args: q.Arguments, onErr: onErr, read: func(br pgx.BatchResults) error {
		read = true
		err = query(batchReader{br})
		return err
	}})
	return func(ctx context.Context) error {
		if !read {
			if ferr := t.tx.flush(ctx); !read {
				return errors.Join(errors.New("postgres: a queued statement was not sent"), ferr)
			}
		}
		return err
	}
}

// deferring is the DBTX of deferredQueries: Exec queues the statement on the transaction.
type deferring struct {
	tx    *Tx
	onErr func(error) error
	// atCommit: queued to go with the COMMIT (pipeTx.atCommit), not with the next statement.
	atCommit bool
}

var errNotDeferrable = errors.New("postgres: only statements without rows (:exec) can be deferred")

func (d deferring) Exec(_ context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	if d.atCommit {
		d.tx.tx.atCommit = append(d.tx.tx.atCommit, deferred{sql: sql, args: args, onErr: d.onErr})
		return pgconn.CommandTag{}, nil
	}
	d.tx.tx.pending = append(d.tx.tx.pending, deferred{sql: sql, args: args, onErr: d.onErr})
	return pgconn.CommandTag{}, nil
}

func (d deferring) Query(context.Context, string, ...any) (pgx.Rows, error) {
	return nil, errNotDeferrable
}

func (d deferring) QueryRow(context.Context, string, ...any) pgx.Row { return errRow{errNotDeferrable} }

func (d deferring) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults {
	return errBatch{errNotDeferrable}
}

// deferredQueries returns the queries of c whose :exec statements are deferred: in a
// transaction they go with its next statement or its COMMIT (see pipeTx), and an error
// PostgreSQL raises for one of them is passed through onErr (nil: as it is); on the pool they
// run at once. Only statements whose failure PostgreSQL raises itself belong here (a check that
// must refuse calls rewards_raise), since nothing else can stop the COMMIT they travel with.
func (c conn) deferredQueries(onErr func(error) error) *db.Queries {
	if c.owner == nil {
		return db.New(raising{c.dbtx, onErr})
	}
	return db.New(deferring{tx: c.owner, onErr: onErr})
}

// atCommitQueries is deferredQueries whose statements go with the transaction's COMMIT, after
// every other statement, rather than with its next statement.
func (c conn) atCommitQueries(onErr func(error) error) *db.Queries {
	if c.owner == nil {
		return db.New(raising{c.dbtx, onErr})
	}
	return db.New(deferring{tx: c.owner, onErr: onErr, atCommit: true})
}

// raising runs statements at once, passing their errors through onErr.
type raising struct {
	db.DBTX
	onErr func(error) error
}

func (r raising) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := r.DBTX.Exec(ctx, sql, args...)
	if err != nil && r.onErr != nil {
		err = r.onErr(err)
	}
	return tag, err
}
