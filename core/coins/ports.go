package coins

import (
	"context"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/idempotency"
)

// Repo is the storage the coins module needs.
type Repo interface {
	CreateCoin(ctx context.Context, c Coin) (Coin, error)
	ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error)
	// GetCoin returns ErrCoinNotFound unless the coin exists and belongs to gameID.
	GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (Coin, error)
	// FirstCoin returns the game's oldest coin, or ErrNoCoins.
	FirstCoin(ctx context.Context, gameID uuid.UUID) (Coin, error)

	// CreditBalance adds amount to the balance and returns the new balance.
	CreditBalance(ctx context.Context, playerID, coinID uuid.UUID, amount int64) (int64, error)
	// DebitBalance takes amount from the balance in one conditional update and returns the new
	// balance, or ErrInsufficientBalance when the balance is smaller than amount.
	DebitBalance(ctx context.Context, playerID, coinID uuid.UUID, amount int64) (int64, error)
	// InsertTransaction appends t to the journal, returning it with its id and time.
	InsertTransaction(ctx context.Context, t Transaction) (Transaction, error)
	// RecordEvent stores the coin event of a balance change, for delivery to the studio.
	RecordEvent(ctx context.Context, e Event) error

	Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]Fund, error)
	// ListTransactions returns a page of the player's journal, newest first, and the total;
	// coinID nil means every coin.
	ListTransactions(ctx context.Context, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) ([]Transaction, int64, error)
	// Savings is the money value of rewards the player bought with the coin, as a decimal string.
	Savings(ctx context.Context, playerID, coinID uuid.UUID) (string, error)

	idempotency.Repo
}

// Store opens transactions over Repo. Repo() serves reads that need none.
type Store interface {
	InTx(ctx context.Context, fn func(Repo) error) error
	Repo() Repo
}
