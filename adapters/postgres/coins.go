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

func toCoreTransaction(r db.CoinTransaction) coins.Transaction {
	return coins.Transaction{
		ID: r.ID, GameID: r.GameID, Environment: r.Environment, PlayerID: r.PlayerID, CoinID: r.CoinID,
		Type: coins.TxType(r.Type), Amount: r.Amount, BalanceAfter: r.BalanceAfter, Reason: r.Reason,
		ReferenceID: r.ReferenceID, Description: r.Description, Metadata: r.Metadata, CreatedAt: r.CreatedAt,
	}
}

// FirstCoin implements coins.Repo.
func (r *Repos) FirstCoin(ctx context.Context, gameID uuid.UUID) (coins.Coin, error) {
	row, err := r.q.CoinsFirstCoin(ctx, gameID)
	if isNoRows(err) {
		return coins.Coin{}, coins.ErrNoCoins
	}
	if err != nil {
		return coins.Coin{}, fmt.Errorf("first coin: %w", err)
	}
	return toCoreCoin(row), nil
}

// CreditBalance implements coins.Repo.
func (r *Repos) CreditBalance(ctx context.Context, playerID, coinID uuid.UUID, amount int64) (int64, error) {
	b, err := r.q.CoinsCredit(ctx, db.CoinsCreditParams{PlayerID: playerID, CoinID: coinID, Amount: amount})
	if err != nil {
		return 0, fmt.Errorf("credit %s: %w", playerID, err)
	}
	return b, nil
}

// DebitBalance implements coins.Repo.
func (r *Repos) DebitBalance(ctx context.Context, playerID, coinID uuid.UUID, amount int64) (int64, error) {
	b, err := r.q.CoinsDebit(ctx, db.CoinsDebitParams{PlayerID: playerID, CoinID: coinID, Amount: amount})
	if isNoRows(err) {
		return 0, coins.ErrInsufficientBalance
	}
	if err != nil {
		return 0, fmt.Errorf("debit %s: %w", playerID, err)
	}
	return b, nil
}

// InsertTransaction implements coins.Repo.
func (r *Repos) InsertTransaction(ctx context.Context, t coins.Transaction) (coins.Transaction, error) {
	row, err := r.q.CoinsInsertTransaction(ctx, db.CoinsInsertTransactionParams{
		GameID: t.GameID, Environment: t.Environment, PlayerID: t.PlayerID, CoinID: t.CoinID, Type: string(t.Type),
		Amount: t.Amount, BalanceAfter: t.BalanceAfter, Reason: t.Reason, ReferenceID: t.ReferenceID,
		Description: t.Description, Metadata: t.Metadata,
	})
	if err != nil {
		return coins.Transaction{}, fmt.Errorf("insert transaction: %w", err)
	}
	t.ID, t.CreatedAt = row.ID, row.CreatedAt
	return t, nil
}

// RecordEvent implements coins.Repo: it stores the coin event and, in the same transaction,
// one delivery per active, subscribed, non-excluding webhook configuration of the studio and
// environment, each with its job on the delivery queue. So a delivery exists if and only if
// the balance change committed.
func (r *Repos) RecordEvent(ctx context.Context, e coins.Event) error {
	if r.tx == nil {
		return fmt.Errorf("record coin event: must run inside the balance change's transaction")
	}
	eventID, err := r.q.CoinsInsertEvent(ctx, db.CoinsInsertEventParams{
		GameID: e.GameID, Environment: string(e.Environment), TransactionID: e.TransactionID, EventType: string(e.Type),
		Reason: e.Reason, PlayerID: e.PlayerID, UserUuid: e.UserUUID, CoinID: e.CoinID, Delta: e.Delta,
		NewBalance: e.NewBalance, ReferenceID: e.ReferenceID,
	})
	if err != nil {
		return fmt.Errorf("insert coin event: %w", err)
	}
	ids, err := r.q.WebhooksFanOut(ctx, db.WebhooksFanOutParams{
		EventID: eventID, EventType: string(e.Type), TransactionID: e.TransactionID, EventCreatedAt: e.CreatedAt,
		GameID: e.GameID, Environment: string(e.Environment), Reason: e.Reason,
	})
	if err != nil {
		return fmt.Errorf("fan out coin event: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	if r.jobs == nil {
		return fmt.Errorf("fan out coin event: no delivery queue configured")
	}
	return r.jobs.EnqueueDeliveries(ctx, r.tx, ids)
}

// Funds implements coins.Repo.
func (r *Repos) Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error) {
	rows, err := r.q.CoinsFunds(ctx, db.CoinsFundsParams{GameID: gameID, PlayerID: playerID})
	if err != nil {
		return nil, fmt.Errorf("funds: %w", err)
	}
	out := make([]coins.Fund, len(rows))
	for i, row := range rows {
		out[i] = coins.Fund{
			Coin:    coins.Coin{ID: row.ID, GameID: gameID, Name: row.Name, ImageURL: row.ImageUrl},
			Balance: row.Balance, LifetimeEarned: row.LifetimeEarned, LifetimeSpent: row.LifetimeSpent,
		}
	}
	return out, nil
}

// ListTransactions implements coins.Repo.
func (r *Repos) ListTransactions(ctx context.Context, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) ([]coins.Transaction, int64, error) {
	rows, err := r.q.CoinsListTransactions(ctx, db.CoinsListTransactionsParams{PlayerID: playerID, CoinID: coinID, Lim: int32(limit), Off: int32(offset)})
	if err != nil {
		return nil, 0, fmt.Errorf("list transactions: %w", err)
	}
	total, err := r.q.CoinsCountTransactions(ctx, db.CoinsCountTransactionsParams{PlayerID: playerID, CoinID: coinID})
	if err != nil {
		return nil, 0, fmt.Errorf("count transactions: %w", err)
	}
	out := make([]coins.Transaction, len(rows))
	for i, row := range rows {
		out[i] = toCoreTransaction(row)
	}
	return out, total, nil
}

// Savings implements coins.Repo.
func (r *Repos) Savings(ctx context.Context, playerID, coinID uuid.UUID) (string, error) {
	s, err := r.q.CoinsSavings(ctx, db.CoinsSavingsParams{PlayerID: playerID, CoinID: coinID})
	if err != nil {
		return "", fmt.Errorf("savings: %w", err)
	}
	return s, nil
}
