package postgres

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
)

// DeliveryNotifier hears that webhook deliveries were added to the outbox (WebhookOutbox) and
// committed, so that a dispatcher takes them at once rather than at its next look.
type DeliveryNotifier interface {
	DeliveriesAdded()
}

// CoinsRepo is the storage of the coins module: coins, balances, the journal and the coin
// events, whose webhook deliveries the movement's own statement adds to the outbox.
type CoinsRepo struct {
	conn
	jobs DeliveryNotifier
	db   *DB
	// hot queues the movements of a player's coin that arrive while another of them runs on
	// this instance, to run them together (coins_hot.go); shared by every CoinsRepo of the store.
	hot *hotLines
}

var _ coins.Repo = (*CoinsRepo)(nil)

// NewCoinsStore returns the coins module's storage on d, telling jobs of the webhook
// deliveries its movements add, and those of the movements the other modules' storage on d
// makes.
func NewCoinsStore(d *DB, jobs DeliveryNotifier) store.Of[coins.Repo] {
	if jobs != nil {
		// Told too of the deliveries of the movements other modules' steps make (Charge).
		d.deliveries = jobs
	}
	hot := newHotLines()
	return newModuleStore(d, func(c conn) coins.Repo {
		return &CoinsRepo{conn: c, jobs: jobs, db: d, hot: hot}
	})
}

func toCoreCoin(r db.Coin) coins.Coin {
	return coins.Coin{ID: r.ID, GameID: r.GameID, Name: r.Name, ImageURL: r.ImageUrl, CoinsPerUnit: int64(r.CoinsPerUnit), CreatedAt: r.CreatedAt}
}

// CreateCoin implements coins.Repo.
func (r *CoinsRepo) CreateCoin(ctx context.Context, c coins.Coin) (coins.Coin, error) {
	row, err := r.q.CoinsCreate(ctx, db.CoinsCreateParams{GameID: c.GameID, Name: c.Name, ImageUrl: c.ImageURL, CoinsPerUnit: int32(c.CoinsPerUnit)})
	if err != nil {
		return coins.Coin{}, fmt.Errorf("insert coin: %w", err)
	}
	return toCoreCoin(row), nil
}

// SetCoinsPerUnit implements coins.Repo.
func (r *CoinsRepo) SetCoinsPerUnit(ctx context.Context, coinID uuid.UUID, n int64) (coins.Coin, error) {
	row, err := r.q.CoinsSetValue(ctx, db.CoinsSetValueParams{ID: coinID, CoinsPerUnit: int32(n)})
	if isNoRows(err) {
		return coins.Coin{}, coins.ErrCoinNotFound
	}
	if err != nil {
		return coins.Coin{}, fmt.Errorf("set value of coin %s: %w", coinID, err)
	}
	return toCoreCoin(row), nil
}

// ListCoins implements coins.Repo.
func (r *CoinsRepo) ListCoins(ctx context.Context, gameID uuid.UUID) ([]coins.Coin, error) {
	rows, err := r.q.CoinsListByGame(ctx, gameID)
	return toCoreAll(rows, err, toCoreCoin, "list coins")
}

// GetCoin implements coins.Repo.
func (r *CoinsRepo) GetCoin(ctx context.Context, gameID, coinID uuid.UUID) (coins.Coin, error) {
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
func (r *CoinsRepo) FirstCoin(ctx context.Context, gameID uuid.UUID) (coins.Coin, error) {
	row, err := r.q.CoinsFirstCoin(ctx, gameID)
	if isNoRows(err) {
		return coins.Coin{}, coins.ErrNoCoins
	}
	if err != nil {
		return coins.Coin{}, fmt.Errorf("first coin: %w", err)
	}
	return toCoreCoin(row), nil
}

// ApplyMovement implements coins.Repo in one statement (CoinsApplyMovement), which adds the
// webhook deliveries of its event to the outbox, to the configurations the webhooks module's
// rule picks (webhook_routes), so a delivery exists if and only if the balance change commits. Outside a transaction it commits by itself: one statement that locks
// the balance only while it runs (applyQueued).
func (r *CoinsRepo) ApplyMovement(ctx context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) (coins.Transaction, error) {
	if r.tx == nil {
		return r.applyQueued(ctx, m, typ, event)
	}
	out, deliveries, err := r.apply(ctx, m, typ, event)
	return r.applied(ctx, m, typ, out, deliveries, err)
}

// queueMovement is ApplyMovement whose statement, in a transaction, travels with the
// transaction's next statement (Tx.queueRow): the returned outcome gives what ApplyMovement
// would have, sending the statement then if nothing has. On the pool it is ApplyMovement. It
// lets a step that needs the movement's answer and another statement's (orders' Charge) make
// one round trip of both.
func (r *CoinsRepo) queueMovement(ctx context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) func(context.Context) (coins.Transaction, error) {
	if r.owner == nil {
		out, err := r.ApplyMovement(ctx, m, typ, event)
		return func(context.Context) (coins.Transaction, error) { return out, err }
	}
	params := movementParams(m, typ, event)
	var row db.CoinsApplyMovementRow
	sent := r.owner.queueRow(func(q db.DBTX) (err error) {
		row, err = db.New(q).CoinsApplyMovement(ctx, params)
		return err
	}, nil)
	return func(ctx context.Context) (coins.Transaction, error) {
		err := unavailable(sent(ctx))
		out, deliveries, err := movementResult(m, typ, row, err)
		return r.applied(ctx, m, typ, out, deliveries, err)
	}
}

// applied finishes a movement made in a transaction (ApplyMovement, queueMovement): once
// committed, it counts it and tells of its webhook deliveries.
func (r *CoinsRepo) applied(_ context.Context, m coins.Movement, typ coins.TxType, out coins.Transaction, deliveries []uuid.UUID, err error) (coins.Transaction, error) {
	if err != nil {
		return coins.Transaction{}, err
	}
	r.onCommit(func() {
		r.metrics.CoinMovement(m.Reason, typ, m.Amount)
		r.delivered(deliveries)
	})
	return out, nil
}

// delivered tells jobs of committed webhook deliveries, if there are any.
func (r *CoinsRepo) delivered(deliveries []uuid.UUID) {
	if len(deliveries) > 0 && r.jobs != nil {
		r.jobs.DeliveriesAdded()
	}
}

// apply runs CoinsApplyMovement.
func (r *CoinsRepo) apply(ctx context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) (coins.Transaction, []uuid.UUID, error) {
	row, err := r.q.CoinsApplyMovement(ctx, movementParams(m, typ, event))
	return movementResult(m, typ, row, err)
}

// movementParams are CoinsApplyMovement's parameters for m.
func movementParams(m coins.Movement, typ coins.TxType, event coins.EventType) db.CoinsApplyMovementParams {
	return db.CoinsApplyMovementParams{
		Type: string(typ), CoinID: m.CoinID, GameID: m.GameID, PlayerID: m.PlayerID, Amount: m.Amount,
		Environment: string(m.Environment), Reason: m.Reason, ReferenceID: m.ReferenceID, Description: m.Description,
		Metadata: m.Metadata, EventType: string(event), UserUuid: m.UserUUID,
	}
}

// movementResult turns CoinsApplyMovement's answer for m into the movement's outcome: its
// journal entry and deliveries, or why it did not happen.
func movementResult(m coins.Movement, typ coins.TxType, row db.CoinsApplyMovementRow, err error) (coins.Transaction, []uuid.UUID, error) {
	switch {
	case err != nil:
		return coins.Transaction{}, nil, fmt.Errorf("apply %s of %s: %w", typ, m.PlayerID, err)
	case !row.CoinFound:
		return coins.Transaction{}, nil, coins.ErrCoinNotFound
	case row.TransactionID == nil:
		return coins.Transaction{}, nil, coins.ErrInsufficientBalance
	}
	return coins.Transaction{
		ID: *row.TransactionID, GameID: m.GameID, Environment: string(m.Environment), PlayerID: m.PlayerID, CoinID: m.CoinID,
		Type: typ, Amount: m.Amount, BalanceAfter: *row.BalanceAfter, Reason: m.Reason, ReferenceID: m.ReferenceID,
		Description: m.Description, Metadata: m.Metadata, CreatedAt: *row.CreatedAt,
	}, row.DeliveryIds, nil
}

// applyOne makes a movement as one statement that commits by itself (a transaction of one
// statement, traced as one).
func (r *CoinsRepo) applyOne(ctx context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) (coins.Transaction, error) {
	sctx, end := r.db.span(ctx)
	out, deliveries, err := r.apply(sctx, m, typ, event)
	end(err)
	if err == nil {
		r.metrics.CoinMovement(m.Reason, typ, m.Amount)
		r.delivered(deliveries)
	}
	return out, err
}

// Funds implements coins.Repo.
func (r *CoinsRepo) Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error) {
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
func (r *CoinsRepo) ListTransactions(ctx context.Context, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) ([]coins.Transaction, int64, error) {
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
func (r *CoinsRepo) Savings(ctx context.Context, playerID, coinID uuid.UUID) (string, error) {
	s, err := r.q.CoinsSavings(ctx, db.CoinsSavingsParams{PlayerID: &playerID, CoinID: &coinID})
	if err != nil {
		return "", fmt.Errorf("savings: %w", err)
	}
	return money.Amount(s).String(), nil
}

// coinsOn is the coins module's repository on c, for a step of another module that moves coins
// in its transaction (orders' Charge).
func (d *DB) coinsOn(c conn) *CoinsRepo { return &CoinsRepo{conn: c, jobs: d.deliveries, db: d} }
