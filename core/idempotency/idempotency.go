// Package idempotency makes a money- or coin-moving request happen at most once per key: the
// first request with a key runs; a later one with the same key and body gets the first
// outcome back; one with a different body is refused; one that arrives while the first is
// still running is told so.
package idempotency

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

var (
	// ErrKeyReused means the key was first used with a different request body.
	ErrKeyReused = errors.New("this idempotency key was used with a different request body")
	// ErrInProgress means the first request with this key is still running.
	ErrInProgress = errors.New("a request with this idempotency key is still in progress; retry shortly")
	// ErrClaimLost means this request's claim on the key was taken over by a retry after it
	// stalled past StaleAfter; its work must not commit.
	ErrClaimLost = fmt.Errorf("%w (this attempt stalled and a retry took over)", ErrInProgress)
)

// StaleAfter is how long a running key may go without finishing before another request may take
// it over: its holder is assumed to have crashed. Should it only have stalled, its claim token no
// longer matches and its work rolls back (ErrClaimLost).
const StaleAfter = 2 * time.Minute

// WorkTimeout bounds the work done under a claim, well inside StaleAfter.
const WorkTimeout = 30 * time.Second

// Retention is how long finished keys are kept at least.
const Retention = 24 * time.Hour

// Claim is a request's hold on a key: only the holder of the current claim may complete or
// release it.
type Claim struct {
	Key
	Token uuid.UUID
}

// Key identifies one idempotent request: a client's key within a (game, environment, scope),
// where the scope is the player or partner the request acts for.
type Key struct {
	GameID      uuid.UUID
	Environment string
	Scope       string
	Key         string
}

// Record is a key's stored state.
type Record struct {
	RequestHash []byte
	Done        bool
	// Result is the JSON of the first outcome when it succeeded.
	Result []byte
	// ErrorCode names the first outcome when it was a business error, so it can be replayed.
	ErrorCode string
}

// Repo stores keys.
type Repo interface {
	// ClaimKey records c.Key as running for hash under c.Token and returns claimed=true, or,
	// when the key is already held or done, returns claimed=false and its record. A running key
	// older than staleBefore with the same hash is taken over.
	ClaimKey(ctx context.Context, c Claim, hash []byte, staleBefore time.Time) (rec Record, claimed bool, err error)
	// CompleteKey stores the outcome of the claimed request, or returns ErrClaimLost when the
	// claim no longer holds the key.
	CompleteKey(ctx context.Context, c Claim, result []byte, errorCode string) error
	// ReleaseKey forgets a running key held by c, so that a retry runs the request afresh.
	ReleaseKey(ctx context.Context, c Claim) error
	// PurgeKeys deletes keys created before before.
	PurgeKeys(ctx context.Context, before time.Time) (int64, error)
}

// HashRequest is the fingerprint two requests must share to count as the same request.
func HashRequest(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		var n [8]byte
		l := len(p)
		for i := range n {
			n[i] = byte(l >> (8 * i))
		}
		h.Write(n[:])
		h.Write(p)
	}
	return h.Sum(nil)
}

// Begin claims k for a request with hash. It returns the claim and a nil record when the
// caller now holds the key and must run the request, then CompleteKey (in the request's own
// transaction) or ReleaseKey; it returns the first outcome's record when there is one to
// replay, and ErrKeyReused or ErrInProgress otherwise.
func Begin(ctx context.Context, r Repo, k Key, hash []byte, now time.Time) (Claim, *Record, error) {
	c := Claim{Key: k, Token: uuid.New()}
	rec, claimed, err := r.ClaimKey(ctx, c, hash, now.Add(-StaleAfter))
	if err != nil {
		return c, nil, err
	}
	if claimed {
		return c, nil, nil
	}
	if string(rec.RequestHash) != string(hash) {
		return c, nil, ErrKeyReused
	}
	if !rec.Done {
		return c, nil, ErrInProgress
	}
	return c, &rec, nil
}
