// Package store is how the core asks for transactions without knowing the database: a use case
// runs one module's repository in a transaction through Of.InTx, or several modules' in one
// transaction through Runner.InTx and each module's Of.WithTx (the shape of ardanlabs/service's
// NewWithTx).
//
// A transaction function may run more than once: the storage retries it on a serialization
// failure or a deadlock. So it must not talk to the outside world (no HTTP, no SMS); calls to
// providers happen between transactions, with their state recorded.
package store

import "context"

// Tx is one open transaction. Its concrete type belongs to the storage adapter; the core only
// hands it to the WithTx of the modules a use case spans.
type Tx any

// Runner opens transactions.
type Runner interface {
	// InTx runs fn in one transaction, committing when fn returns nil and rolling back
	// otherwise. It may run fn again after a serialization failure or deadlock.
	InTx(ctx context.Context, fn func(Tx) error) error
}

// Of is the storage of one module, whose repository interface is R.
type Of[R any] interface {
	// Repo returns R outside any transaction, for reads and single statements.
	Repo() R
	// WithTx returns R bound to t, a transaction opened by the Runner of the same storage.
	WithTx(t Tx) R
	// InTx runs fn with R bound to a new transaction, as Runner.InTx does.
	InTx(ctx context.Context, fn func(R) error) error
}
