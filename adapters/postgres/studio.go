package postgres

import (
	"context"
	"fmt"
	"github.com/rewardsco/rewards/core/money"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/studio"
)

// StudioRepo is the storage of the studio module.
type StudioRepo struct{ conn }

func toCoreStudio(r db.Studio) studio.Studio {
	return studio.Studio{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt}
}

func toCoreGame(r db.Game) studio.Game {
	return studio.Game{ID: r.ID, StudioID: r.StudioID, Name: r.Name, StoreURL: r.StoreUrl, CreatedAt: r.CreatedAt,
		ServerOnlyCoinMovements: r.ServerOnlyCoinMovements,
		PurchaseBudget:          studio.Budgets{Live: amountPtr(r.PurchaseBudgetLive), Test: amountPtr(r.PurchaseBudgetTest)},
		AllowedOrigins:          studio.Origins{Live: r.AllowedOriginsLive, Test: r.AllowedOriginsTest}}
}

func amountPtr(v *int64) *money.Amount {
	if v == nil {
		return nil
	}
	a := money.Amount(*v)
	return &a
}

func int64Ptr(v *money.Amount) *int64 {
	if v == nil {
		return nil
	}
	n := int64(*v)
	return &n
}

// SetPurchaseBudget implements studio.Repo.
func (r *StudioRepo) SetPurchaseBudget(ctx context.Context, gameID uuid.UUID, b studio.Budgets, set map[studio.Environment]bool) (studio.Game, error) {
	row, err := r.q.StudioSetPurchaseBudget(ctx, db.StudioSetPurchaseBudgetParams{ID: gameID,
		SetLive: set[studio.Live], Live: int64Ptr(b.Live), SetTest: set[studio.Test], Test: int64Ptr(b.Test)})
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "set the purchase budget of game %s", gameID)
}

// CreateStudio implements studio.Repo.
func (r *StudioRepo) CreateStudio(ctx context.Context, name string) (studio.Studio, error) {
	row, err := r.q.StudioCreate(ctx, name)
	if err != nil {
		return studio.Studio{}, fmt.Errorf("insert studio: %w", err)
	}
	return toCoreStudio(row), nil
}

// ListStudios implements studio.Repo.
func (r *StudioRepo) ListStudios(ctx context.Context) ([]studio.Studio, error) {
	rows, err := r.q.StudioList(ctx)
	return toCoreAll(rows, err, toCoreStudio, "list studios")
}

// GetStudio implements studio.Repo.
func (r *StudioRepo) GetStudio(ctx context.Context, id uuid.UUID) (studio.Studio, error) {
	row, err := r.q.StudioGet(ctx, id)
	return toCoreOne(row, err, studio.ErrStudioNotFound, toCoreStudio, "get studio %s", id)
}

// CreateGame implements studio.Repo.
func (r *StudioRepo) CreateGame(ctx context.Context, g studio.Game) (studio.Game, error) {
	row, err := r.q.StudioCreateGame(ctx, db.StudioCreateGameParams{StudioID: g.StudioID, Name: g.Name, StoreUrl: g.StoreURL})
	if err != nil {
		return studio.Game{}, fmt.Errorf("insert game: %w", err)
	}
	return toCoreGame(row), nil
}

// GetGame implements studio.Repo.
func (r *StudioRepo) GetGame(ctx context.Context, id uuid.UUID) (studio.Game, error) {
	row, err := r.q.StudioGetGame(ctx, id)
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "get game %s", id)
}

// LockGame implements studio.Repo.
func (r *StudioRepo) LockGame(ctx context.Context, id uuid.UUID) (studio.Game, error) {
	row, err := r.q.StudioLockGame(ctx, id)
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "lock game %s", id)
}

// ListGames implements studio.Repo.
func (r *StudioRepo) ListGames(ctx context.Context, studioID uuid.UUID) ([]studio.Game, error) {
	rows, err := r.q.StudioListGames(ctx, studioID)
	return toCoreAll(rows, err, toCoreGame, "list games")
}

// InsertAPIKey implements studio.Repo.
func (r *StudioRepo) InsertAPIKey(ctx context.Context, gameID uuid.UUID, env studio.Environment, hash []byte, hint string) error {
	err := r.q.StudioInsertAPIKey(ctx, db.StudioInsertAPIKeyParams{GameID: gameID, Environment: string(env), KeyHash: hash, Hint: hint})
	if err != nil {
		return fmt.Errorf("insert api key: %w", err)
	}
	return nil
}

// RevokeAPIKeys implements studio.Repo.
func (r *StudioRepo) RevokeAPIKeys(ctx context.Context, gameID uuid.UUID, env studio.Environment) error {
	return wrapErr(r.q.StudioRevokeAPIKeys(ctx, db.StudioRevokeAPIKeysParams{GameID: gameID, Environment: string(env)}), "revoke api keys")
}

// FindAPIKey implements studio.Repo.
func (r *StudioRepo) FindAPIKey(ctx context.Context, hash []byte) (studio.KeyRecord, error) {
	row, err := r.q.StudioFindAPIKey(ctx, hash)
	return toCoreOne(row, err, studio.ErrKeyUnknown, toCoreKeyRecord, "find api key")
}

func toCoreKeyRecord(r db.StudioFindAPIKeyRow) studio.KeyRecord {
	return studio.KeyRecord{GameID: r.GameID, StudioID: r.StudioID, GameName: r.GameName, Environment: studio.Environment(r.Environment),
		Revoked: r.RevokedAt != nil, ServerOnlyCoinMovements: r.ServerOnlyCoinMovements, AllowedOrigins: r.AllowedOrigins}
}

// SetAllowedOrigins implements studio.Repo.
func (r *StudioRepo) SetAllowedOrigins(ctx context.Context, gameID uuid.UUID, o studio.Origins, set map[studio.Environment]bool) (studio.Game, error) {
	nonNil := func(l []string) []string {
		if l == nil {
			return []string{}
		}
		return l
	}
	row, err := r.q.StudioSetAllowedOrigins(ctx, db.StudioSetAllowedOriginsParams{ID: gameID, SetLive: set[studio.Live], Live: nonNil(o.Live),
		SetTest: set[studio.Test], Test: nonNil(o.Test)})
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "set allowed origins")
}

// OriginAllowed implements studio.Repo.
func (r *StudioRepo) OriginAllowed(ctx context.Context, env studio.Environment, origin string) (bool, error) {
	ok, err := r.q.StudioOriginAllowed(ctx, db.StudioOriginAllowedParams{Environment: string(env), Origin: origin})
	if err != nil {
		return false, fmt.Errorf("origin allowed: %w", err)
	}
	return ok, nil
}

// SetStoreURL implements studio.Repo.
func (r *StudioRepo) SetStoreURL(ctx context.Context, gameID uuid.UUID, storeURL string) (studio.Game, error) {
	row, err := r.q.StudioSetStoreURL(ctx, db.StudioSetStoreURLParams{ID: gameID, StoreUrl: storeURL})
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "set store address of game %s", gameID)
}

// SetServerOnlyCoinMovements implements studio.Repo.
func (r *StudioRepo) SetServerOnlyCoinMovements(ctx context.Context, gameID uuid.UUID, on bool) (studio.Game, error) {
	row, err := r.q.StudioSetServerOnlyCoinMovements(ctx, db.StudioSetServerOnlyCoinMovementsParams{ID: gameID, ServerOnlyCoinMovements: on})
	return toCoreOne(row, err, studio.ErrGameNotFound, toCoreGame, "set server-only coin movements of game %s", gameID)
}

// PutServerSecret implements studio.Repo.
func (r *StudioRepo) PutServerSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	return wrapErr(r.q.StudioPutServerSecret(ctx, db.StudioPutServerSecretParams{GameID: gameID, Environment: string(env), SecretHash: hash}), "put server secret")
}

// FindServerSecret implements studio.Repo.
func (r *StudioRepo) FindServerSecret(ctx context.Context, hash []byte) (studio.SecretRecord, bool, error) {
	row, err := r.q.StudioFindServerSecret(ctx, hash)
	if isNoRows(err) {
		return studio.SecretRecord{}, false, nil
	}
	if err != nil {
		return studio.SecretRecord{}, false, fmt.Errorf("find server secret: %w", err)
	}
	return studio.SecretRecord{GameID: row.GameID, Environment: studio.Environment(row.Environment)}, true, nil
}
