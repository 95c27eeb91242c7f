package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
)

// StorefrontRepo is the storage of the store's entry codes.
type StorefrontRepo struct{ conn }

// InsertEntry implements storefront.Repo; it also drops the player's codes older than a day.
func (r *StorefrontRepo) InsertEntry(ctx context.Context, hash []byte, sc players.Scope, playerID uuid.UUID, expiresAt time.Time) error {
	if err := r.q.StorefrontDeleteOldEntryCodes(ctx, playerID); err != nil {
		return fmt.Errorf("delete old entry codes: %w", err)
	}
	return r.q.StorefrontInsertEntryCode(ctx, db.StorefrontInsertEntryCodeParams{CodeHash: hash, GameID: sc.GameID,
		Environment: string(sc.Environment), PlayerID: playerID, ExpiresAt: expiresAt})
}

// TakeEntry implements storefront.Repo.
func (r *StorefrontRepo) TakeEntry(ctx context.Context, hash []byte, now time.Time) (players.Scope, uuid.UUID, error) {
	row, err := r.q.StorefrontTakeEntryCode(ctx, db.StorefrontTakeEntryCodeParams{CodeHash: hash, Now: &now})
	if isNoRows(err) {
		return players.Scope{}, uuid.Nil, storefront.ErrEntryInvalid
	}
	if err != nil {
		return players.Scope{}, uuid.Nil, fmt.Errorf("take entry code: %w", err)
	}
	return players.Scope{GameID: row.GameID, Environment: studio.Environment(row.Environment)}, row.PlayerID, nil
}
