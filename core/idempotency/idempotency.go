// Package idempotency makes a money- or coin-moving request happen at most once per key: the
// first request with a key runs; a later one with the same key and body gets the first
// outcome back; one with a different body is refused; one that arrives while the first is
// still running is told so. It is one mechanism for every module (coin movements, purchases,
// partner orders), in the shape of formancehq/ledger's log processor: claim the key, run the
// work and record its outcome in one transaction, replay the outcome to later requests.
package idempotency

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/store"
)

var (
	// ErrKeyReused means the key was first used with a different request body.
	ErrKeyReused = errs.New(errs.Unprocessable, "IDEMPOTENCY_KEY_REUSED", "this idempotency key was used with a different request body")
	// ErrInProgress means the first request with this key is still running.
	ErrInProgress = errs.New(errs.Conflict, "IDEMPOTENCY_IN_PROGRESS", "a request with this idempotency key is still in progress; retry shortly")
	// ErrClaimLost means this request's claim on the key was taken over by a retry after it
	// stalled past StaleAfter; its work must not commit. It matches ErrInProgress.
	ErrClaimLost = ErrInProgress.Withf("%s (this attempt stalled and a retry took over)", ErrInProgress.Message)
)

// StaleAfter is how long a running key may go without finishing before another request may take
// it over: its holder is assumed to have crashed. Should it only have stalled, its claim token no
// longer matches and its work rolls back (ErrClaimLost).
const StaleAfter = 2 * time.Minute

// WorkTimeout bounds the work done under a claim, well inside StaleAfter.
const WorkTimeout = 30 * time.Second

// Retention is how long finished keys are kept at least.
const Retention = 24 * time.Hour

// Key identifies one idempotent request: a client's key within a (game, environment, scope),
// where the scope is the player or partner the request acts for.
type Key struct {
	GameID      uuid.UUID
	Environment string
	Scope       string
	Key         string
}

// Claim is a request's hold on a key: only the holder of the current claim may complete or
// release it.
type Claim struct {
	Key
	Token uuid.UUID
}

// Record is a key's stored state.
type Record struct {
	RequestHash []byte
	Done        bool
	// Result is the JSON of the first outcome: the value when it succeeded, the coded error
	// when it was refused (then ErrorCode is that error's code).
	Result    []byte
	ErrorCode string
}

// Repo stores keys.
type Repo interface {
	// ClaimKey records c.Key as running for hash under c.Token and returns claimed=true, or,
	// when the key is already held or done, returns claimed=false and its record. A running key
	// with the same hash whose claim is older than staleAfter is taken over. The age is measured
	// by the storage's own clock (the database's now() against the time it recorded the claim),
	// never by the application's: instances whose clocks disagree with the database, or with
	// each other, must not take a live claim over or keep a dead one.
	ClaimKey(ctx context.Context, c Claim, hash []byte, staleAfter time.Duration) (rec Record, claimed bool, err error)
	// CompleteKey stores the outcome of the claimed request, or returns ErrClaimLost when the
	// claim no longer holds the key.
	CompleteKey(ctx context.Context, c Claim, result []byte, errorCode string) error
	// ReleaseKey forgets a running key held by c, so that a retry runs the request afresh.
	ReleaseKey(ctx context.Context, c Claim) error
	// PurgeKeys deletes keys created more than olderThan ago, by the storage's own clock.
	PurgeKeys(ctx context.Context, olderThan time.Duration) (int64, error)
}

// Request is one request that may carry an idempotency key.
type Request struct {
	// Key is the client's key; an empty Key.Key means the request has none and simply runs.
	Key Key
	// Op names the operation, so that a key is never replayed across operations.
	Op string
	// Body is what two requests with the same key must share to count as the same request. It
	// is fingerprinted as JSON, after the module has validated and normalised it (a default
	// filled in counts as sent).
	Body any
	// Prepare, when set, runs once the key is claimed and before the work's transaction, for
	// checks that must not run inside it (an outside system's answer). A replay skips it, so a
	// replayed request gets its first outcome even when the checks would now refuse it; a coded
	// refusal from it is an outcome like the work's.
	Prepare func(ctx context.Context) error
	// Again, when set, is asked about an error of the work's transaction (which committed
	// nothing): when it says so, Prepare and the work run once more, under the same claim of
	// the key (a plan made from memory that the transaction found stale, made again).
	Again func(err error) bool
}

// Keeper runs requests at most once per key. It has no clock of its own: every age of a key
// (stale claims, retention) is measured by the storage's clock.
type Keeper struct {
	runner store.Runner
	keys   store.Of[Repo]
}

// NewKeeper returns a Keeper that runs work through runner and keeps keys in keys (the same
// storage, so that an outcome commits with the work).
func NewKeeper(runner store.Runner, keys store.Of[Repo]) *Keeper {
	return &Keeper{runner: runner, keys: keys}
}

// Do runs work in one transaction, at most once per key. With no key it just runs work. With
// one, the first request runs work and stores its outcome in work's own transaction, so the two
// commit together or not at all; a later request with the same key and body gets that outcome
// back with replayed=true and runs nothing; another body gets ErrKeyReused; a request arriving
// while the first runs gets ErrInProgress.
//
// A coded refusal (an *errs.Error of kind Invalid, NotFound, Forbidden or Unprocessable, such
// as an insufficient balance) is an outcome too and is replayed; any other failure frees the key
// so that a retry runs afresh. T must survive a JSON round trip.
func Do[T any](ctx context.Context, k *Keeper, req Request, work func(ctx context.Context, t store.Tx) (T, error)) (out T, replayed bool, err error) {
	if req.Key.Key == "" {
		err = k.run(ctx, req, func(t store.Tx) error {
			var err error
			out, err = work(ctx, t)
			return err
		})
		return out, false, err
	}
	hash, err := fingerprint(req.Op, req.Body)
	if err != nil {
		return out, false, err
	}
	claim := Claim{Key: req.Key, Token: uuid.New()}
	rec, claimed, err := k.keys.Repo().ClaimKey(ctx, claim, hash, StaleAfter)
	if err != nil {
		return out, false, err
	}
	if !claimed {
		switch {
		case string(rec.RequestHash) != string(hash):
			return out, false, ErrKeyReused
		case !rec.Done:
			return out, false, ErrInProgress
		}
		out, err = replay[T](rec)
		return out, true, err
	}

	// The work under the claim must end well before a retry could take the key over.
	workCtx, cancel := context.WithTimeout(ctx, WorkTimeout)
	defer cancel()
	err = k.run(workCtx, req, func(t store.Tx) error {
		var err error
		if out, err = work(workCtx, t); err != nil {
			return err
		}
		result, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encode outcome: %w", err)
		}
		return k.keys.WithTx(t).CompleteKey(workCtx, claim, result, "")
	})
	if err == nil {
		return out, false, nil
	}
	// Both run even when the client has gone: a key must not stay held.
	bg := context.WithoutCancel(ctx)
	if refusal, ok := replayable(err); ok {
		result, merr := json.Marshal(refusal)
		if merr == nil {
			merr = k.keys.Repo().CompleteKey(bg, claim, result, refusal.Code)
		}
		if merr != nil {
			return out, false, fmt.Errorf("%w (and keeping the outcome failed: %v)", err, merr)
		}
		return out, false, err
	}
	if rerr := k.keys.Repo().ReleaseKey(bg, claim); rerr != nil {
		return out, false, fmt.Errorf("%w (and releasing the key failed: %v)", err, rerr)
	}
	return out, false, err
}

// run is req's Prepare and then work in a transaction, once more when req.Again asks for it.
func (k *Keeper) run(ctx context.Context, req Request, work func(t store.Tx) error) error {
	attempt := func() error {
		if req.Prepare != nil {
			if err := req.Prepare(ctx); err != nil {
				return err
			}
		}
		return k.runner.InTx(ctx, work)
	}
	err := attempt()
	if err != nil && req.Again != nil && req.Again(err) {
		err = attempt()
	}
	return err
}

// Purge deletes keys past the retention period.
func (k *Keeper) Purge(ctx context.Context) (int64, error) {
	return k.keys.Repo().PurgeKeys(ctx, Retention)
}

// replayable returns the refusal in err that is the request's outcome, to be replayed.
func replayable(err error) (*errs.Error, bool) {
	e, ok := errs.As(err)
	if !ok || errs.KindOf(err) == errs.Internal {
		return nil, false
	}
	switch e.Kind {
	case errs.Invalid, errs.NotFound, errs.Forbidden, errs.Unprocessable:
		return &errs.Error{Kind: e.Kind, Code: e.Code, Message: e.Message}, true
	}
	return nil, false
}

func replay[T any](rec Record) (T, error) {
	var out T
	if rec.ErrorCode != "" {
		var e errs.Error
		if err := json.Unmarshal(rec.Result, &e); err != nil || e.Code != rec.ErrorCode {
			return out, fmt.Errorf("stored outcome %q cannot be replayed", rec.ErrorCode)
		}
		return out, &e
	}
	if err := json.Unmarshal(rec.Result, &out); err != nil {
		return out, fmt.Errorf("decode stored outcome: %w", err)
	}
	return out, nil
}

// fingerprint is what two requests must share to count as the same request: the operation and
// the JSON of the body (encoding/json writes struct fields in order and map keys sorted, so equal
// values give equal bytes).
func fingerprint(op string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("fingerprint %s request: %w", op, err)
	}
	h := sha256.New()
	h.Write([]byte(op))
	h.Write([]byte{0})
	h.Write(b)
	return h.Sum(nil), nil
}
