package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/coins"
)

var _ coins.Repo = (*Repos)(nil)

func toCoreCoin(r db.Coin) coins.Coin {
	return coins.Coin{ID: r.ID, GameID: r.GameID, Name: r.Name, ImageURL: r.ImageUrl, CreatedAt: r.CreatedAt}
}

// CreateCoin implements coins.Repo.
func (r *Repos) CreateCoin(ctx context.Context, c coins.Coin) (coins.Coin, error) {
	row, err := r.q.CoinsCreate(ctx, db.CoinsCreateParams{GameID: c.GameID, Name: c.Name, ImageUrl: c.ImageURL})
	if err != nil {
		return coins.Coin{}, fmt.Errorf("insert coin: %w", err)
	}
	return toCoreCoin(row), nil
}

// ListCoins implements coins.Repo.
func (r *Repos) ListCoins(ctx context.Context, gameID uuid.UUID) ([]coins.Coin, error) {
	rows, err := r.q.CoinsListByGame(ctx, gameID)
	if err != nil {
		return nil, fmt.Errorf("list coins: %w", err)
	}
	out := make([]coins.Coin, len(rows))
	for i, row := range rows {
		out[i] = toCoreCoin(row)
	}
	return out, nil
}

// GetCoin implements coins.Repo.
func (r *Repos) GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (coins.Coin, error) {
	row, err := r.q.CoinsGet(ctx, db.CoinsGetParams{ID: coinID, GameID: gameID})
	if isNoRows(err) {
		return coins.Coin{}, coins.ErrCoinNotFound
	}
	if err != nil {
		return coins.Coin{}, fmt.Errorf("get coin %s: %w", coinID, err)
	}
	return toCoreCoin(row), nil
}
