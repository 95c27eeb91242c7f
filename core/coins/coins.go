// Package coins owns a game's coins: their definitions and, per (player, coin), the ledger of
// balances that studios credit and debit. Every balance change writes, in one transaction, the
// balance, an append-only journal entry and the coin event that webhooks deliver.
package coins

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Coin is a currency a game gives its players.
type Coin struct {
	ID       uuid.UUID
	GameID   uuid.UUID
	Name     string
	ImageURL string
	// CoinsPerUnit is how many coins are worth one unit of the deployment currency: it turns
	// money prices into coin prices.
	CoinsPerUnit int64
	CreatedAt    time.Time
}

// Limits of a coin's value.
const (
	DefaultCoinsPerUnit = 10
	MaxCoinsPerUnit     = 1_000_000
)

// TxType is the direction of a journal entry.
type TxType string

const (
	// Credit adds coins.
	Credit TxType = "CREDIT"
	// Debit removes coins.
	Debit TxType = "DEBIT"
)

// Default reasons of the studio's own distribute and deduct calls.
const (
	ReasonGameCredit = "GAME_CREDIT"
	ReasonGameDebit  = "GAME_DEBIT"
)

// Limits of a movement.
const (
	MinAmount         = 1
	MaxAmount         = 1_000_000_000
	MaxReferenceIDLen = 128
	MaxDescriptionLen = 256
	// MaxMetadataBytes caps a movement's metadata, as JSON: it is kept with the journal entry
	// for good.
	MaxMetadataBytes = 4 << 10
)

// EventType is what a coin event tells a studio.
type EventType string

// The coin event types.
const (
	EventCredited EventType = "COINS_CREDITED"
	EventDebited  EventType = "COINS_DEBITED"
	EventRefunded EventType = "COINS_REFUNDED"
)

// Movement is a request to credit or debit a player's coins.
type Movement struct {
	GameID      uuid.UUID
	Environment studio.Environment
	PlayerID    uuid.UUID
	// UserUUID identifies the player to the studio in the coin event: its studio uuid, or the
	// player id where it has none.
	UserUUID    string
	CoinID      uuid.UUID
	Amount      int64
	Reason      string
	ReferenceID string
	Description string
	// Metadata is a JSON object kept with the journal entry, or nil; at most MaxMetadataBytes.
	Metadata []byte
	// IdempotencyKey, when set, makes the movement happen at most once per player: a repeat with
	// the same fields replays the first outcome.
	IdempotencyKey string
}

// Transaction is one journal entry.
type Transaction struct {
	ID           uuid.UUID `json:"id"`
	GameID       uuid.UUID `json:"gameId"`
	Environment  string    `json:"environment"`
	PlayerID     uuid.UUID `json:"playerId"`
	CoinID       uuid.UUID `json:"coinId"`
	Type         TxType    `json:"type"`
	Amount       int64     `json:"amount"`
	BalanceAfter int64     `json:"balanceAfter"`
	Reason       string    `json:"reason"`
	ReferenceID  string    `json:"referenceId"`
	Description  string    `json:"description"`
	Metadata     []byte    `json:"metadata,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Fund is a player's holding of one coin.
type Fund struct {
	Coin           Coin
	Balance        int64
	LifetimeEarned int64
	LifetimeSpent  int64
}

// History is a page of a player's journal for one coin with its summary.
type History struct {
	Coin           Coin
	CurrentBalance int64
	LifetimeEarned int64
	LifetimeSpent  int64
	// Savings is the money value of rewards bought with this coin, in the deployment currency,
	// as a decimal string.
	Savings      string
	Transactions []Transaction
	Total        int64
}
