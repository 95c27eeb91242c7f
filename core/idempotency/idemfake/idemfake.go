// Package idemfake is an in-memory idempotency.Repo that behaves like the PostgreSQL one
// (adapters/postgres/idempotency.go, sql/queries/idempotency.sql), for core tests: a claim
// inserts the key as running, or takes over a running key with the same request hash whose
// holder went quiet before staleBefore; only the claim token that holds a key completes or
// releases it. Register it with a memstore.Runner (memstore.New) and a failed transaction
// leaves it as it was.
package idemfake

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	mu  sync.Mutex
	now func() time.Time
	st  map[idempotency.Key]row
}

var (
	_ idempotency.Repo     = (*Repo)(nil)
	_ memstore.Snapshotter = (*Repo)(nil)
)

// row is a row of idempotency_keys.
type row struct {
	hash      []byte
	done      bool
	result    []byte
	errorCode string
	lockedAt  time.Time
	createdAt time.Time
	token     uuid.UUID
}

// New returns an empty fake whose clock, the database's now(), is time.Now.
func New() *Repo {
	return &Repo{now: time.Now, st: map[idempotency.Key]row{}}
}

// SetClock replaces the fake's clock: the time a key is claimed (created, locked) is now().
// Tests use it to make keys look old (past idempotency.StaleAfter or idempotency.Retention).
func (r *Repo) SetClock(now func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.now = now
}

// Snapshot implements memstore.Snapshotter.
func (r *Repo) Snapshot() (restore func()) {
	r.mu.Lock()
	saved := clone(r.st)
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		r.st = clone(saved)
		r.mu.Unlock()
	}
}

func clone(m map[idempotency.Key]row) map[idempotency.Key]row {
	c := make(map[idempotency.Key]row, len(m))
	for k, v := range m {
		v.hash, v.result = bytes.Clone(v.hash), bytes.Clone(v.result)
		c[k] = v
	}
	return c
}

// pgTime is t as it comes back from a timestamptz: microseconds, no monotonic reading.
func pgTime(t time.Time) time.Time { return t.Truncate(time.Microsecond) }

// ClaimKey implements idempotency.Repo.
func (r *Repo) ClaimKey(_ context.Context, c idempotency.Claim, hash []byte, staleBefore time.Time) (idempotency.Record, bool, error) {
	switch {
	case len(c.Key.Key) < 1 || len(c.Key.Key) > 255:
		return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: key length %d (check violation)", len(c.Key.Key))
	case hash == nil:
		return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: null request_hash (not-null violation)")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := pgTime(r.now())
	cur, exists := r.st[c.Key]
	switch {
	case !exists:
		r.st[c.Key] = row{hash: bytes.Clone(hash), lockedAt: now, createdAt: now, token: c.Token}
		return idempotency.Record{}, true, nil
	case !cur.done && cur.lockedAt.Before(pgTime(staleBefore)) && bytes.Equal(cur.hash, hash):
		cur.lockedAt, cur.token = now, c.Token
		r.st[c.Key] = cur
		return idempotency.Record{}, true, nil
	}
	return idempotency.Record{RequestHash: bytes.Clone(cur.hash), Done: cur.done, Result: bytes.Clone(cur.result),
		ErrorCode: cur.errorCode}, false, nil
}

// CompleteKey implements idempotency.Repo.
func (r *Repo) CompleteKey(_ context.Context, c idempotency.Claim, result []byte, errorCode string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	cur, ok := r.st[c.Key]
	if !ok || cur.done || cur.token != c.Token {
		return idempotency.ErrClaimLost
	}
	cur.done, cur.result, cur.errorCode = true, bytes.Clone(result), errorCode
	r.st[c.Key] = cur
	return nil
}

// ReleaseKey implements idempotency.Repo: it deletes the key only while c holds it and it is
// running; otherwise it does nothing, without error.
func (r *Repo) ReleaseKey(_ context.Context, c idempotency.Claim) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cur, ok := r.st[c.Key]; ok && !cur.done && cur.token == c.Token {
		delete(r.st, c.Key)
	}
	return nil
}

// PurgeKeys implements idempotency.Repo: it deletes the keys created before before, running or
// done.
func (r *Repo) PurgeKeys(_ context.Context, before time.Time) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	before = pgTime(before)
	var n int64
	for k, v := range r.st {
		if v.createdAt.Before(before) {
			delete(r.st, k)
			n++
		}
	}
	return n, nil
}
