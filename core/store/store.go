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
//
// Refusals: a step of a transaction whose only answer is an error (a conditional write such as
// a budget or a wallet debit) may report its refusal when it is made or later, as the error of
// a later step of the same transaction or of InTx itself; either way the transaction keeps
// nothing. A use case therefore returns the first error any step gives it and relies on no
// order of steps for a refusal to be seen; how the storage sends the steps (one by one, several
// per round trip, some with the commit) is its own business.
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
