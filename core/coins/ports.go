package coins

import (
	"context"

	"github.com/google/uuid"
)

// Repo is the storage the coins module needs.
type Repo interface {
	CreateCoin(ctx context.Context, c Coin) (Coin, error)
	// SetCoinsPerUnit changes a coin's value, or returns ErrCoinNotFound.
	SetCoinsPerUnit(ctx context.Context, coinID uuid.UUID, n int64) (Coin, error)
	ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error)
	// GetCoin returns ErrCoinNotFound unless the coin exists and belongs to gameID.
	GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (Coin, error)
	// FirstCoin returns the game's oldest coin, or ErrNoCoins.
	FirstCoin(ctx context.Context, gameID uuid.UUID) (Coin, error)

	// ApplyMovement makes one balance change as a unit: it checks the coin is the game's
	// (ErrCoinNotFound), changes the balance — a debit only where the balance covers it
	// (ErrInsufficientBalance), never below zero — appends the journal entry, and records the
	// coin event of type event with its webhook deliveries, and returns the journal entry. In a
	// transaction it is part of the caller's; outside one it commits by itself, all of it or
	// nothing.
	ApplyMovement(ctx context.Context, m Movement, typ TxType, event EventType) (Transaction, error)

	Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]Fund, error)
	// ListTransactions returns a page of the player's journal, newest first, and the total;
	// coinID nil means every coin.
	ListTransactions(ctx context.Context, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) ([]Transaction, int64, error)
	// Savings is the money value of rewards the player bought with the coin, as a decimal string.
	Savings(ctx context.Context, playerID, coinID uuid.UUID) (string, error)
}
