package memstore

import (
	"bytes"
	"sync"
	"time"

	"github.com/google/uuid"
)

// This file holds what the fakes of the modules' repositories (studiofake, coinsfake, …) have
// in common: their state behind a mutex that a Runner can snapshot and restore, PostgreSQL's
// clock, its ORDER BY created_at, id, and deep copies.

// Table is a fake's database: its state, of type S, behind a mutex, and its clock. It
// implements Snapshotter for the state. The zero value is not ready; use NewTable.
type Table[S any] struct {
	mu    sync.Mutex
	st    S
	clone func(S) S
	clock Clock
}

var _ Snapshotter = (*Table[struct{}])(nil)

// NewTable returns a Table holding st. clone returns a deep copy of a state: one that shares
// nothing a fake writes to (maps, slices and byte slices are copied).
func NewTable[S any](st S, clone func(S) S) *Table[S] {
	return &Table[S]{st: st, clone: clone}
}

// Lock locks the table and returns its state, which the caller may read and change until it
// calls Unlock.
func (t *Table[S]) Lock() *S {
	t.mu.Lock()
	return &t.st
}

// Unlock unlocks the table locked by Lock.
func (t *Table[S]) Unlock() { t.mu.Unlock() }

// Now is the database's now(): see Clock. Snapshots do not turn it back.
func (t *Table[S]) Now() time.Time { return t.clock.Now() }

// Snapshot implements Snapshotter: restore puts back a copy of the state as it is now.
func (t *Table[S]) Snapshot() (restore func()) {
	t.mu.Lock()
	saved := t.clone(t.st)
	t.mu.Unlock()
	return func() {
		t.mu.Lock()
		t.st = t.clone(saved)
		t.mu.Unlock()
	}
}

// Clock is PostgreSQL's now() as a timestamptz keeps it: microseconds, no monotonic reading.
// Its readings never repeat, so that rows written one after the other sort in that order, as
// rows written by separate transactions do. The zero value is ready; it is safe for concurrent
// use.
type Clock struct {
	mu   sync.Mutex
	last time.Time
}

// Now returns the current time in microseconds, or, when that is not after the last reading,
// the last reading plus a microsecond.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := PGTime(time.Now())
	if !t.After(c.last) {
		t = c.last.Add(time.Microsecond)
	}
	c.last = t
	return t
}

// PGTime is t as it comes back from a timestamptz: microseconds, no monotonic reading.
func PGTime(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

// CompareCreated orders rows by created_at, then id, as ORDER BY created_at, id does: it
// returns -1, 0 or +1 as row 1 sorts before, with or after row 2. Swap the rows for DESC.
func CompareCreated(at1 time.Time, id1 uuid.UUID, at2 time.Time, id2 uuid.UUID) int {
	if c := at1.Compare(at2); c != 0 {
		return c
	}
	return bytes.Compare(id1[:], id2[:])
}

// ClonePtr returns a pointer to a copy of *p, or nil when p is nil.
func ClonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// CloneMap returns a copy of m, never nil, whose values are clone's copies of m's; a nil clone
// copies them by assignment.
func CloneMap[K comparable, V any](m map[K]V, clone func(V) V) map[K]V {
	c := make(map[K]V, len(m))
	for k, v := range m {
		if clone != nil {
			v = clone(v)
		}
		c[k] = v
	}
	return c
}

// CloneSlice returns a copy of s, nil when s is nil, whose elements are clone's copies of s's;
// a nil clone copies them by assignment.
func CloneSlice[T any](s []T, clone func(T) T) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i, v := range s {
		if clone != nil {
			v = clone(v)
		}
		c[i] = v
	}
	return c
}

// Get returns the row of m with key k, or notFound when m has none: a SELECT of one row by its
// key. The row is m's own; a fake that hands it out clones what the caller may change.
func Get[K comparable, V any](m map[K]V, k K, notFound error) (V, error) {
	v, ok := m[k]
	if !ok {
		return v, notFound
	}
	return v, nil
}
