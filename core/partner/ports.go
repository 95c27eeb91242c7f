package partner

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
)

// Repo is the storage the partner module needs.
type Repo interface {
	// PutSettings creates or replaces a game's partner settings.
	PutSettings(ctx context.Context, s Settings) (Settings, error)
	// GetSettings returns a game's settings, found=false when it has none.
	GetSettings(ctx context.Context, gameID uuid.UUID) (s Settings, found bool, err error)
	// PutSecret stores the hash of the client secret of a game and environment, replacing the old.
	PutSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error
	// SecretHash returns the hash of the current secret, found=false when none is set.
	SecretHash(ctx context.Context, gameID uuid.UUID, env studio.Environment) (hash []byte, found bool, err error)
	// DeleteTokens revokes every token of a game and environment.
	DeleteTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment) error
	// LockTokens serialises the token exchanges of a game and environment until the
	// transaction ends.
	LockTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment) error
	// TrimTokens keeps the newest keep tokens of a game and environment and deletes the others.
	TrimTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment, keep int) error
	// InsertToken stores a token with the API key and client secret it was exchanged with.
	InsertToken(ctx context.Context, g TokenGrant) error
	// FindToken returns ErrTokenInvalid when no token has the hash, or when the API key or the
	// client secret it was exchanged with is no longer current.
	FindToken(ctx context.Context, hash []byte) (TokenRecord, error)
	// PurgeTokens deletes at most batch expired tokens and says how many.
	PurgeTokens(ctx context.Context, batch int) (int64, error)

	// LockWallet returns a wallet's balance (creating it at zero) and locks it until the
	// transaction ends.
	LockWallet(ctx context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error)
	// Wallet returns a wallet's balance (zero when it has none).
	Wallet(ctx context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error)
	// Apply records an entry of a locked wallet and sets the balance to e.BalanceAfter.
	Apply(ctx context.Context, e Entry) (Entry, error)
	// CreditExists reports whether the wallet has a credit with the reference.
	CreditExists(ctx context.Context, gameID uuid.UUID, env studio.Environment, reference string) (bool, error)
	// OrderEntryExists reports whether an order has an entry of the kind.
	OrderEntryExists(ctx context.Context, orderID uuid.UUID, kind EntryKind) (bool, error)
	// Entries returns a wallet's entries, oldest first.
	Entries(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]Entry, error)
	// EntriesPage returns a page of a wallet's entries, oldest first, and how many it has.
	EntriesPage(ctx context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) ([]Entry, int64, error)

	// Brands returns the gift cards of q and the total.
	Brands(ctx context.Context, q BrandQuery) ([]Brand, int64, error)
	// Brand returns the gift card of one brand by its code; found is false when partners have
	// none of it.
	Brand(ctx context.Context, code string) (b Brand, found bool, err error)
	// ClaimPaymentCheck claims asking the provider about an order's payment now: false when it
	// was asked less than every ago (by any instance).
	ClaimPaymentCheck(ctx context.Context, orderID uuid.UUID, every time.Duration) (bool, error)
	// UseQuote records that an order used a quote; fresh is false when another order did first.
	UseQuote(ctx context.Context, quoteID string, orderID uuid.UUID) (fresh bool, err error)
	// RecordEvent records a provider event once: fresh is false when its id was seen before.
	// env is the environment whose secret verified the event.
	RecordEvent(ctx context.Context, provider string, env studio.Environment, e payments.Event, orderID *uuid.UUID) (fresh bool, err error)
}

// WalletOrders places WALLET orders: storing an order and debiting its wallet for it are one
// step here, so that the storage may place several orders of one wallet together (PostgreSQL
// commits the orders waiting for a busy wallet in one transaction), while each order keeps
// the outcome it would have had alone.
type WalletOrders interface {
	// PlaceWalletOrder places o, a new WALLET order (o.Partner.Amount is its price): it stores
	// o as sent to the voucher provider (INITIATED for WalletDebited, then PROCESSING by
	// orders.SentStep), records that o used the quote quoteID when one is given, and debits
	// o's wallet by the price with a DEBIT entry of o, all or nothing, alone or together with
	// other orders of the same wallet. It returns o as stored. An order that fails keeps
	// nothing, and fails with its own error whatever it was placed with: ErrInsufficientBalance
	// when the wallet does not cover it, ErrQuoteUsed when another order used the quote,
	// orders.ErrClientOrderTaken when another order has its clientOrderId.
	PlaceWalletOrder(ctx context.Context, o orders.Order, quoteID string) (orders.Order, error)
}

// Jobs queues the partner module's jobs inside a transaction.
type Jobs interface {
	// ScheduleReconcile queues a look at a CASH order's payment at a time (an expiry, an event).
	ScheduleReconcile(ctx context.Context, t store.Tx, orderID uuid.UUID, at time.Time) error
	// ScheduleRefund queues the refund of a CASH order's payment through its provider.
	ScheduleRefund(ctx context.Context, t store.Tx, orderID uuid.UUID) error
}

// Games is what the partner module asks of the studio module's games: that the game an
// operator sets up or funds exists.
type Games interface {
	// GetGame returns one game, or the studio module's not-found error.
	GetGame(ctx context.Context, id uuid.UUID) (studio.Game, error)
}

// Keys is what the partner module asks of the studio module's API keys, which are partners'
// client ids.
type Keys interface {
	// Authenticate resolves an API key sent to a host of hostEnv, failing Unauthorized for a
	// missing, unknown, rotated-away or other environment's key.
	Authenticate(ctx context.Context, key string, hostEnv studio.Environment) (studio.Caller, error)
	// WhenKeysRotate has f called with a game's id after each rotation of one of its keys, so
	// that the tokens exchanged with the old key stop working on this instance at once.
	WhenKeysRotate(f func(gameID uuid.UUID))
}

// Fulfilment is what the partner module asks of the orders module's saga, which fulfils partner
// orders as it does the store's: the voucher provider, how long to wait for it, and the views
// of orders with their codes opened.
type Fulfilment interface {
	// Provider is the voucher provider of env, nil when none is configured; the test
	// environment's is never the live one.
	Provider(env studio.Environment) vouchers.Provider
	// Wait is how long a placement waits for the provider's answer.
	Wait() time.Duration
	// Deadline is how long the provider has to finish an order before it is late.
	Deadline() time.Duration
	// FulfilSent sends an order, stored PROCESSING by the committed transaction that placed it
	// (orders.SentStep), to the provider and returns it as it is after at most Wait; an order
	// not final by then is handed to a job.
	FulfilSent(ctx context.Context, o orders.Order) orders.View
	// FulfilWithin sends an order to the provider (or asks it again) and waits at most Wait
	// for the final answer; what is not final by then is left to the order's fulfilment job.
	FulfilWithin(ctx context.Context, id uuid.UUID)
	// Open returns a partner order with its codes opened.
	Open(o orders.Order) (orders.View, error)
}
