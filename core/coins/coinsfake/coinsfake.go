// Package coinsfake is an in-memory coins.Repo that behaves like the PostgreSQL one
// (adapters/postgres/coins.go, the CoinsApplyMovement query), for core tests: a debit happens
// only where the balance covers it and never takes it below zero, the journal is append-only,
// lists have the same order and paging. Register it with a memstore.Runner (memstore.New) and a
// failed transaction leaves it as it was.
//
// What it does not do: it cannot see the other modules' tables, so it checks no foreign key to
// games or players, and ApplyMovement records the coin event but does not fan it out to webhook
// deliveries (the webhooks module's tables); webhooksfake.Repo.Publish routes an event by the same rule.
//
// coinstest.Run is the contract it passes with PostgreSQL; its package comment lists where the
// two still differ.
package coinsfake

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct{ tab *memstore.Table[state] }

var (
	_ coins.Repo           = (*Repo)(nil)
	_ memstore.Snapshotter = (*Repo)(nil)
)

// Event is a coin event as ApplyMovement records it (a row of coin_events).
type Event struct {
	ID            uuid.UUID
	GameID        uuid.UUID
	Environment   string
	TransactionID uuid.UUID
	Type          coins.EventType
	Reason        string
	PlayerID      uuid.UUID
	UserUUID      string
	CoinID        uuid.UUID
	// Delta is negative for a debit.
	Delta       int64
	NewBalance  int64
	ReferenceID string
	CreatedAt   time.Time
}

type balanceKey struct{ player, coin uuid.UUID }

type balance struct{ balance, earned, spent int64 }

type state struct {
	coins    map[uuid.UUID]coins.Coin
	balances map[balanceKey]balance
	journal  []coins.Transaction // append-only, in insertion order
	events   []Event
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{tab: memstore.NewTable(state{coins: map[uuid.UUID]coins.Coin{}, balances: map[balanceKey]balance{}}, state.clone)}
}

// Snapshot implements memstore.Snapshotter.
func (r *Repo) Snapshot() (restore func()) { return r.tab.Snapshot() }

func (s state) clone() state {
	return state{coins: memstore.CloneMap(s.coins, nil), balances: memstore.CloneMap(s.balances, nil),
		journal: memstore.CloneSlice(s.journal, cloneTx), events: slices.Clone(s.events)}
}

func cloneTx(t coins.Transaction) coins.Transaction {
	t.Metadata = bytes.Clone(t.Metadata)
	return t
}

// Events returns the coin events recorded so far, oldest first.
func (r *Repo) Events() []Event {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	return slices.Clone(st.events)
}

// CreateCoin implements coins.Repo. Like the column's check, it refuses a value outside 1 to
// coins.MaxCoinsPerUnit.
func (r *Repo) CreateCoin(_ context.Context, c coins.Coin) (coins.Coin, error) {
	if !validCoinsPerUnit(c.CoinsPerUnit) {
		return coins.Coin{}, fmt.Errorf("insert coin: coins_per_unit %d (check violation)", c.CoinsPerUnit)
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c.ID, c.CreatedAt = uuid.New(), r.tab.Now()
	st.coins[c.ID] = c
	return c, nil
}

// SetCoinsPerUnit implements coins.Repo as CoinsSetValue does: ErrCoinNotFound for an unknown
// coin, whatever the value (the UPDATE finds no row to check), and the column's check refuses a
// value outside 1 to coins.MaxCoinsPerUnit.
func (r *Repo) SetCoinsPerUnit(_ context.Context, coinID uuid.UUID, n int64) (coins.Coin, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.coins[coinID]
	if !ok {
		return coins.Coin{}, coins.ErrCoinNotFound
	}
	if !validCoinsPerUnit(n) {
		return coins.Coin{}, fmt.Errorf("set value of coin %s: coins_per_unit %d (check violation)", coinID, n)
	}
	c.CoinsPerUnit = n
	st.coins[coinID] = c
	return c, nil
}

// validCoinsPerUnit is the check of coins.coins_per_unit.
func validCoinsPerUnit(n int64) bool { return n >= 1 && n <= coins.MaxCoinsPerUnit }

// gameCoins returns the coins of a game, oldest first.
func (s *state) gameCoins(gameID uuid.UUID) []coins.Coin {
	out := []coins.Coin{}
	for _, c := range s.coins {
		if c.GameID == gameID {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b coins.Coin) int { return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID) })
	return out
}

// ListCoins implements coins.Repo: oldest first.
func (r *Repo) ListCoins(_ context.Context, gameID uuid.UUID) ([]coins.Coin, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	return st.gameCoins(gameID), nil
}

// GetCoin implements coins.Repo.
func (r *Repo) GetCoin(_ context.Context, gameID, coinID uuid.UUID) (coins.Coin, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	c, ok := st.coins[coinID]
	if !ok || c.GameID != gameID {
		return coins.Coin{}, coins.ErrCoinNotFound
	}
	return c, nil
}

// FirstCoin implements coins.Repo.
func (r *Repo) FirstCoin(_ context.Context, gameID uuid.UUID) (coins.Coin, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	list := st.gameCoins(gameID)
	if len(list) == 0 {
		return coins.Coin{}, coins.ErrNoCoins
	}
	return list[0], nil
}

// ApplyMovement implements coins.Repo as CoinsApplyMovement does: ErrCoinNotFound for a coin
// that is not the game's; a credit adds to the balance (creating it); a debit happens only
// where a balance exists and covers the amount, else ErrInsufficientBalance and nothing
// changes. It appends the journal entry and records the coin event, but makes no webhook
// deliveries (see the package comment).
func (r *Repo) ApplyMovement(_ context.Context, m coins.Movement, typ coins.TxType, event coins.EventType) (coins.Transaction, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	if c, ok := st.coins[m.CoinID]; !ok || c.GameID != m.GameID {
		return coins.Transaction{}, coins.ErrCoinNotFound
	}
	if m.Amount <= 0 {
		// coin_transactions.amount > 0 and balances.balance >= 0 refuse it in PostgreSQL.
		return coins.Transaction{}, fmt.Errorf("apply %s of %s: amount %d (check violation)", typ, m.PlayerID, m.Amount)
	}
	k := balanceKey{player: m.PlayerID, coin: m.CoinID}
	b, exists := st.balances[k]
	delta := m.Amount
	switch typ {
	case coins.Credit:
		b.balance += m.Amount
		b.earned += m.Amount
	case coins.Debit:
		if !exists || b.balance < m.Amount {
			return coins.Transaction{}, coins.ErrInsufficientBalance
		}
		b.balance -= m.Amount
		b.spent += m.Amount
		delta = -m.Amount
	default:
		return coins.Transaction{}, fmt.Errorf("apply %s of %s: type (check violation)", typ, m.PlayerID)
	}
	st.balances[k] = b
	t := coins.Transaction{
		ID: uuid.New(), GameID: m.GameID, Environment: string(m.Environment), PlayerID: m.PlayerID, CoinID: m.CoinID,
		Type: typ, Amount: m.Amount, BalanceAfter: b.balance, Reason: m.Reason, ReferenceID: m.ReferenceID,
		Description: m.Description, Metadata: bytes.Clone(m.Metadata), CreatedAt: r.tab.Now(),
	}
	st.journal = append(st.journal, t)
	st.events = append(st.events, Event{
		ID: uuid.New(), GameID: m.GameID, Environment: string(m.Environment), TransactionID: t.ID, Type: event,
		Reason: m.Reason, PlayerID: m.PlayerID, UserUUID: m.UserUUID, CoinID: m.CoinID, Delta: delta,
		NewBalance: b.balance, ReferenceID: m.ReferenceID, CreatedAt: t.CreatedAt,
	})
	return cloneTx(t), nil
}

// Funds implements coins.Repo: every coin of the game, oldest first, with the player's
// holding or zeros. As in the real query, the coins carry no CreatedAt.
func (r *Repo) Funds(_ context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error) {
	st := r.tab.Lock()
	defer r.tab.Unlock()
	list := st.gameCoins(gameID)
	out := make([]coins.Fund, len(list))
	for i, c := range list {
		b := st.balances[balanceKey{player: playerID, coin: c.ID}]
		out[i] = coins.Fund{
			Coin:    coins.Coin{ID: c.ID, GameID: gameID, Name: c.Name, ImageURL: c.ImageURL},
			Balance: b.balance, LifetimeEarned: b.earned, LifetimeSpent: b.spent,
		}
	}
	return out, nil
}

// ListTransactions implements coins.Repo: newest first (created_at, then id, descending), a
// page of limit entries after offset, and the total. Like LIMIT and OFFSET, a negative limit
// or offset is an error and a zero limit returns no entry.
func (r *Repo) ListTransactions(_ context.Context, playerID uuid.UUID, coinID *uuid.UUID, limit, offset int) ([]coins.Transaction, int64, error) {
	if limit < 0 || offset < 0 {
		return nil, 0, fmt.Errorf("list transactions: negative LIMIT or OFFSET")
	}
	st := r.tab.Lock()
	defer r.tab.Unlock()
	var match []coins.Transaction
	for _, t := range st.journal {
		if t.PlayerID == playerID && (coinID == nil || t.CoinID == *coinID) {
			match = append(match, t)
		}
	}
	slices.SortFunc(match, func(a, b coins.Transaction) int { return memstore.CompareCreated(b.CreatedAt, b.ID, a.CreatedAt, a.ID) })
	page := []coins.Transaction{}
	for i := offset; i < len(match) && len(page) < limit; i++ {
		page = append(page, cloneTx(match[i]))
	}
	return page, int64(len(match)), nil
}

// Savings implements coins.Repo. Nothing writes a journal entry's money value yet (ApplyMovement
// leaves it at its default 0, as in PostgreSQL), so the sum is always 0.00.
func (r *Repo) Savings(context.Context, uuid.UUID, uuid.UUID) (string, error) {
	return "0.00", nil
}
