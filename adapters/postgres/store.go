// Package postgres implements the core modules' storage ports on PostgreSQL through
// sqlc-generated queries (package db) and pgx.
package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/rewardsco/rewards/adapters/postgres/db"
)

// Store is the PostgreSQL storage of every module. Repos bound to the pool or to one
// transaction implement each module's Repo port.
type Store struct {
	pool *pgxpool.Pool
	jobs DeliveryEnqueuer
}

// DeliveryEnqueuer queues webhook delivery jobs inside a transaction (the River queue).
type DeliveryEnqueuer interface {
	EnqueueDeliveries(ctx context.Context, tx pgx.Tx, ids []uuid.UUID) error
}

// NewStore returns a Store over pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// SetDeliveryQueue sets where coin events' webhook deliveries are queued. Without one, a coin
// event for a studio with active webhook configurations fails its transaction rather than be
// recorded undeliverable.
func (s *Store) SetDeliveryQueue(q DeliveryEnqueuer) { s.jobs = q }

// Pool returns the underlying pool, for health checks and the job queue.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Repos is one set of queries bound either to the pool or to a single transaction. It
// implements the Repo port of every core module, so a use case that spans modules runs all of
// them in one transaction.
type Repos struct {
	q    *db.Queries
	tx   pgx.Tx // nil outside a transaction
	jobs DeliveryEnqueuer
}

// InTx runs fn in one transaction, committing when fn returns nil and rolling back otherwise.
func (s *Store) InTx(ctx context.Context, fn func(*Repos) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return fn(&Repos{q: db.New(tx), tx: tx, jobs: s.jobs})
	})
}

// Repos returns repos bound to the pool, for reads and single statements.
func (s *Store) Repos() *Repos { return &Repos{q: db.New(s.pool), jobs: s.jobs} }

// ModuleStore adapts Store to the Store port of one core module, whose Repo interface is R.
type ModuleStore[R any] struct {
	s *Store
}

// For returns the Store port of the module whose Repo interface is R. It panics at wiring time
// if *Repos does not implement R, which is a programming error.
func For[R any](s *Store) ModuleStore[R] {
	if _, ok := any(&Repos{}).(R); !ok {
		panic(fmt.Sprintf("postgres.Repos does not implement %T", new(R)))
	}
	return ModuleStore[R]{s: s}
}

// InTx runs fn with the module's repo bound to one transaction.
func (m ModuleStore[R]) InTx(ctx context.Context, fn func(R) error) error {
	return m.s.InTx(ctx, func(r *Repos) error { return fn(any(r).(R)) })
}

// Repo returns the module's repo bound to the pool.
func (m ModuleStore[R]) Repo() R { return any(m.s.Repos()).(R) }

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
