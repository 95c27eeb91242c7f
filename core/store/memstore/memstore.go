// Package memstore runs core modules on in-memory fakes of their repositories, for core tests.
// Transactions behave like the real ones where the rules depend on it: they run one at a time,
// and one that fails leaves every fake as it was before it began.
package memstore

import (
	"context"
	"sync"

	"github.com/rewardsco/rewards/core/store"
)

// Snapshotter is a fake that can be put back as it was: Snapshot returns the function that
// restores the state of the moment it was called.
type Snapshotter interface {
	Snapshot() (restore func())
}

// Runner is an in-memory store.Runner. Its rollback restores whole fakes, so a write made
// outside a transaction while one is open (through Repo()) is undone with it when that
// transaction fails: tests of races between a transaction and a concurrent write belong on
// PostgreSQL (pgtest).
type Runner struct {
	mu    sync.Mutex // held for the whole of a transaction
	fakes []Snapshotter
}

type tx struct{}

// InTx implements store.Runner: fn runs alone, and when it fails every fake registered with
// the runner is restored.
func (r *Runner) InTx(_ context.Context, fn func(store.Tx) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	restores := make([]func(), len(r.fakes))
	for i, f := range r.fakes {
		restores[i] = f.Snapshot()
	}
	committed := false
	defer func() {
		// Also on a panic, as a real rollback would.
		if !committed {
			for i := len(restores) - 1; i >= 0; i-- {
				restores[i]()
			}
		}
	}()
	if err := fn(tx{}); err != nil {
		return err
	}
	committed = true
	return nil
}

// Of is the store.Of of one fake repository.
type Of[R any] struct {
	runner *Runner
	repo   R
}

// New returns the store of repo on runner. When repo is a Snapshotter, runner's transactions
// roll it back.
func New[R any](runner *Runner, repo R) *Of[R] {
	if s, ok := any(repo).(Snapshotter); ok {
		runner.fakes = append(runner.fakes, s)
	}
	return &Of[R]{runner: runner, repo: repo}
}

// Repo implements store.Of.
func (o *Of[R]) Repo() R { return o.repo }

// WithTx implements store.Of.
func (o *Of[R]) WithTx(store.Tx) R { return o.repo }

// InTx implements store.Of.
func (o *Of[R]) InTx(ctx context.Context, fn func(R) error) error {
	return o.runner.InTx(ctx, func(store.Tx) error { return fn(o.repo) })
}
