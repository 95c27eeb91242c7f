package studio

import (
	"context"

	"github.com/google/uuid"
)

// Repo is the storage the studio module needs. Every method returns ErrStudioNotFound or
// ErrGameNotFound where the row is missing.
type Repo interface {
	CreateStudio(ctx context.Context, name string) (Studio, error)
	ListStudios(ctx context.Context) ([]Studio, error)
	GetStudio(ctx context.Context, id uuid.UUID) (Studio, error)
	CreateGame(ctx context.Context, g Game) (Game, error)
	GetGame(ctx context.Context, id uuid.UUID) (Game, error)
	// LockGame reads a game and holds its row lock until the transaction ends, so that key
	// rotations of one game run one at a time.
	LockGame(ctx context.Context, id uuid.UUID) (Game, error)
	ListGames(ctx context.Context, studioID uuid.UUID) ([]Game, error)
	// InsertAPIKey stores a new key of env by its hash, with its hint (KeyHint) for reads.
	InsertAPIKey(ctx context.Context, gameID uuid.UUID, env Environment, hash []byte, hint string) error
	RevokeAPIKeys(ctx context.Context, gameID uuid.UUID, env Environment) error
	// FindAPIKey returns ErrKeyUnknown when no key has the hash.
	FindAPIKey(ctx context.Context, hash []byte) (KeyRecord, error)
	// SetPurchaseBudget sets the budget of the environments in set (to the value in b) and
	// returns the game.
	SetPurchaseBudget(ctx context.Context, gameID uuid.UUID, b Budgets, set map[Environment]bool) (Game, error)
	// SetAllowedOrigins replaces the allowed origins of the environments in set and returns the
	// game.
	SetAllowedOrigins(ctx context.Context, gameID uuid.UUID, o Origins, set map[Environment]bool) (Game, error)
	// OriginAllowed reports whether any game allows origin in env.
	OriginAllowed(ctx context.Context, env Environment, origin string) (bool, error)
	// SetStoreURL replaces the game's store address and returns the game.
	SetStoreURL(ctx context.Context, gameID uuid.UUID, storeURL string) (Game, error)
	// SetServerOnlyCoinMovements changes the game's setting and returns the game.
	SetServerOnlyCoinMovements(ctx context.Context, gameID uuid.UUID, on bool) (Game, error)
	// PutServerSecret stores the hash of the game's server secret of env, replacing the one it
	// had.
	PutServerSecret(ctx context.Context, gameID uuid.UUID, env Environment, hash []byte) error
	// FindServerSecret returns the current secret with the hash, and found=false when there is
	// none.
	FindServerSecret(ctx context.Context, hash []byte) (rec SecretRecord, found bool, err error)
}
