// Package coins owns a game's coins: their definitions and, per (player, coin), the ledger of
// balances that studios credit and debit.
package coins

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Coin is a currency a game gives its players.
type Coin struct {
	ID        uuid.UUID
	GameID    uuid.UUID
	Name      string
	ImageURL  string
	CreatedAt time.Time
}

var (
	// ErrCoinNotFound means the coin does not exist or belongs to another game.
	ErrCoinNotFound = errors.New("coin not found")
	// ErrInvalid wraps a rule broken by the caller's input.
	ErrInvalid = errors.New("invalid input")
)

// Repo is the storage the coins module needs.
type Repo interface {
	CreateCoin(ctx context.Context, c Coin) (Coin, error)
	ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error)
	// GetCoin returns ErrCoinNotFound unless the coin exists and belongs to gameID.
	GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (Coin, error)
}

// Store opens transactions over Repo. Repo() serves reads that need none.
type Store interface {
	InTx(ctx context.Context, fn func(Repo) error) error
	Repo() Repo
}

// Service holds the coin use cases.
type Service struct {
	store Store
}

// NewService returns a Service over store.
func NewService(store Store) *Service { return &Service{store: store} }

// CreateCoin defines a new coin for a game. The caller has checked that the game exists.
func (s *Service) CreateCoin(ctx context.Context, c Coin) (Coin, error) {
	c.Name = strings.TrimSpace(c.Name)
	if c.Name == "" {
		return Coin{}, fmt.Errorf("%w: name must not be blank", ErrInvalid)
	}
	return s.store.Repo().CreateCoin(ctx, c)
}

// ListCoins returns the coins of a game, oldest first.
func (s *Service) ListCoins(ctx context.Context, gameID uuid.UUID) ([]Coin, error) {
	return s.store.Repo().ListCoins(ctx, gameID)
}
