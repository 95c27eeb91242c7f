package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/idempotency"
)

// IdempotencyRepo is the storage of idempotency keys.
type IdempotencyRepo struct{ conn }

// ClaimKey implements idempotency.Repo.
// The claim's age is measured by the database's now() alone.
func (r *IdempotencyRepo) ClaimKey(ctx context.Context, c idempotency.Claim, hash []byte, staleAfter time.Duration) (idempotency.Record, bool, error) {
	k := c.Key
	claimed, err := r.q.IdempotencyClaim(ctx, db.IdempotencyClaimParams{
		GameID: k.GameID, Environment: k.Environment, Scope: k.Scope, Key: k.Key, RequestHash: hash,
		StaleAfterSeconds: staleAfter.Seconds(), ClaimToken: &c.Token,
	})
	if err == nil && claimed {
		return idempotency.Record{}, true, nil
	}
	if err != nil && !isNoRows(err) {
		return idempotency.Record{}, false, fmt.Errorf("claim idempotency key: %w", err)
	}
	row, err := r.q.IdempotencyGet(ctx, db.IdempotencyGetParams{GameID: k.GameID, Environment: k.Environment, Scope: k.Scope, Key: k.Key})
	if isNoRows(err) {
		// Released between our claim and this read: the caller may simply try again.
		return idempotency.Record{}, false, fmt.Errorf("idempotency key vanished while claiming: %w", idempotency.ErrInProgress)
	}
	if err != nil {
		return idempotency.Record{}, false, fmt.Errorf("read idempotency key: %w", err)
	}
	return idempotency.Record{RequestHash: row.RequestHash, Done: row.State == "done", Result: row.Result, ErrorCode: row.ErrorCode}, false, nil
}

// CompleteKey implements idempotency.Repo.
// In a transaction it travels with the COMMIT, which a lost claim stops (RWCLM).
func (r *IdempotencyRepo) CompleteKey(ctx context.Context, c idempotency.Claim, result []byte, errorCode string) error {
	if r.owner != nil {
		return r.deferredQueries(claimLost).IdempotencyCompleteInTx(ctx, db.IdempotencyCompleteInTxParams{
			GameID: c.GameID, Environment: c.Environment, Scope: c.Scope, Key: c.Key.Key, Result: result, ErrorCode: errorCode,
			ClaimToken: &c.Token,
		})
	}
	n, err := r.q.IdempotencyComplete(ctx, db.IdempotencyCompleteParams{
		GameID: c.GameID, Environment: c.Environment, Scope: c.Scope, Key: c.Key.Key, Result: result, ErrorCode: errorCode,
		ClaimToken: &c.Token,
	})
	if err != nil {
		return fmt.Errorf("complete idempotency key: %w", err)
	}
	if n == 0 {
		return idempotency.ErrClaimLost
	}
	return nil
}

// claimLost is the error of a completion that found its claim gone.
func claimLost(err error) error {
	if pgCode(err) == "RWCLM" {
		return idempotency.ErrClaimLost
	}
	return fmt.Errorf("complete idempotency key: %w", err)
}

// ReleaseKey implements idempotency.Repo.
func (r *IdempotencyRepo) ReleaseKey(ctx context.Context, c idempotency.Claim) error {
	return wrapErr(r.q.IdempotencyRelease(ctx, db.IdempotencyReleaseParams{GameID: c.GameID, Environment: c.Environment, Scope: c.Scope, Key: c.Key.Key, ClaimToken: &c.Token}), "release idempotency key")
}

// PurgeKeys implements idempotency.Repo, by the database's clock.
func (r *IdempotencyRepo) PurgeKeys(ctx context.Context, olderThan time.Duration) (int64, error) {
	n, err := r.q.IdempotencyPurge(ctx, olderThan.Seconds())
	if err != nil {
		return 0, fmt.Errorf("purge idempotency keys: %w", err)
	}
	return n, nil
}
