// Package contract runs the contract suites of the modules' ports (coinstest, ordertest,
// playerstest, …): each suite is a list of cases, and Run gives every case a parallel subtest
// and a bundle of its own, so that a suite reads as its cases alone and runs the same way on
// the in-memory fake and on PostgreSQL.
package contract

import (
	"errors"
	"testing"
)

// Case is one case of a suite, run on a bundle B that the suite makes for it.
type Case[B any] struct {
	Name string
	Run  func(t *testing.T, b B)
}

// Run runs every case in a parallel subtest, on a bundle that setup makes for that case alone.
func Run[B any](t *testing.T, setup func(t *testing.T) B, cases []Case[B]) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			c.Run(t, setup(t))
		})
	}
}

// ErrRollback is what a case's transaction returns to roll back.
var ErrRollback = errors.New("the test rolls back")
