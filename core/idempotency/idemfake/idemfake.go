// Package idemfake is an in-memory idempotency.Repo that behaves like the PostgreSQL one
// (adapters/postgres/idempotency.go, sql/queries/idempotency.sql), for core tests: a claim
// inserts the key as running, or takes over a running key with the same request hash whose
// holder went quiet more than staleAfter ago by the fake's clock (the database's now()); only the claim token that holds a key completes or
// releases it. Register it with a memstore.Runner (memstore.New) and a failed transaction
// leaves it as it was.
//
// idemtest.Run is the contract it passes with PostgreSQL; its package comment names where the
// two still differ.
package idemfake

import (
	"bytes"
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	*memstore.Table[map[idempotency.Key]row]
	now func() time.Time // the database's now(); the table's lock guards it, and a snapshot leaves it as it is
}

var _ idempotency.Repo = (*Repo)(nil)

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
	return &Repo{now: time.Now, Table: memstore.NewTable(map[idempotency.Key]row{}, clone)}
}

// SetClock replaces the fake's clock: the time a key is claimed (created, locked) is now().
// Tests use it to make keys look old (past idempotency.StaleAfter or idempotency.Retention).
func (r *Repo) SetClock(now func() time.Time) {
	r.Lock()
	defer r.Unlock()
	r.now = now
}

func clone(m map[idempotency.Key]row) map[idempotency.Key]row {
	return memstore.CloneMap(m, func(v row) row {
		v.hash, v.result = bytes.Clone(v.hash), bytes.Clone(v.result)
		return v
	})
}

// ClaimKey implements idempotency.Repo.
// Like the query, it compares the claim's time with the fake's own clock, never with the caller's.
func (r *Repo) ClaimKey(_ context.Context, c idempotency.Claim, hash []byte, staleAfter time.Duration) (idempotency.Record, bool, error) {
	switch {
	case utf8.RuneCountInString(c.Key.Key) < 1 || utf8.RuneCountInString(c.Key.Key) > 255: // length() counts characters
		return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: key length %d (check violation)", utf8.RuneCountInString(c.Key.Key))
	case hash == nil:
		return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: null request_hash (not-null violation)")
	}
	keys := *r.Lock() // the map itself: no restore runs while it is locked
	defer r.Unlock()
	now := memstore.PGTime(r.now())
	cur, exists := keys[c.Key]
	switch {
	case !exists:
		keys[c.Key] = row{hash: bytes.Clone(hash), lockedAt: now, createdAt: now, token: c.Token}
		return idempotency.Record{}, true, nil
	case !cur.done && cur.lockedAt.Before(now.Add(-staleAfter)) && bytes.Equal(cur.hash, hash):
		cur.lockedAt, cur.token = now, c.Token
		keys[c.Key] = cur
		return idempotency.Record{}, true, nil
	}
	return idempotency.Record{RequestHash: bytes.Clone(cur.hash), Done: cur.done, Result: bytes.Clone(cur.result),
		ErrorCode: cur.errorCode}, false, nil
}

// CompleteKey implements idempotency.Repo.
func (r *Repo) CompleteKey(_ context.Context, c idempotency.Claim, result []byte, errorCode string) error {
	keys := *r.Lock()
	defer r.Unlock()
	cur, ok := keys[c.Key]
	if !ok || cur.done || cur.token != c.Token {
		return idempotency.ErrClaimLost
	}
	cur.done, cur.result, cur.errorCode = true, bytes.Clone(result), errorCode
	keys[c.Key] = cur
	return nil
}

// ReleaseKey implements idempotency.Repo: it deletes the key only while c holds it and it is
// running; otherwise it does nothing, without error.
func (r *Repo) ReleaseKey(_ context.Context, c idempotency.Claim) error {
	keys := *r.Lock()
	defer r.Unlock()
	if cur, ok := keys[c.Key]; ok && !cur.done && cur.token == c.Token {
		delete(keys, c.Key)
	}
	return nil
}

// PurgeKeys implements idempotency.Repo: it deletes the keys created more than olderThan ago
// by the fake's clock, running or done.
func (r *Repo) PurgeKeys(_ context.Context, olderThan time.Duration) (int64, error) {
	keys := *r.Lock()
	defer r.Unlock()
	before := memstore.PGTime(r.now()).Add(-olderThan)
	var n int64
	for k, v := range keys {
		if v.createdAt.Before(before) {
			delete(keys, k)
			n++
		}
	}
	return n, nil
}
