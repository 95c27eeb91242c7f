package partner

import (
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/vouchers"
)

// Config holds the partner module's collaborators and settings.
type Config struct {
	// Currency is the deployment's (INR or USD): the wallet's, the cards' and the payments'.
	Currency string
	// Payments collects the live environment's CASH orders; nil when none is configured (CASH
	// orders then fail with PAYMENT_INIT_FAILED).
	Payments payments.Provider
	// TestPayments collects the test environment's CASH orders (a provider's test mode, or the
	// built-in sandbox): test orders never reach Payments. nil when none is configured.
	TestPayments payments.Provider
	// Box seals quotes.
	Box sealed.Box
	// Jobs queues payment reconciliations and refunds; OrderJobs queues fulfilments.
	Jobs      Jobs
	OrderJobs orders.Scheduler
	// SessionTTL is how long a CASH order's payment session stays open.
	SessionTTL time.Duration
	// ReturnURL is where a payer goes after paying when the order names no returnUrl.
	ReturnURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StockLive and StockTest answer the stock endpoint of each environment (a cache of the
	// provider's answers); nil means the environment's provider itself. Orders always ask the
	// provider.
	StockLive, StockTest vouchers.Provider
	// PaymentCheckEvery is how often a read of a PENDING_PAYMENT order may ask the provider
	// (per order, across instances); zero means DefaultPaymentCheckEvery.
	PaymentCheckEvery time.Duration
	// AllowHTTPURLs lets returnUrl be plain http (outside production); otherwise https.
	AllowHTTPURLs bool
	// Log records what partners are not told (a payment that does not match its order); nil
	// discards.
	Log *slog.Logger
	// Audit records each change of a game's partner settings, secrets and wallet funding
	// (audit.Log), in the change's transaction; it must be on the runner's storage. Required.
	Audit *audit.Log
}

// Service holds the partner use cases.
type Service struct {
	runner  store.Runner
	partner store.Of[Repo]
	orders  store.Of[orders.Repo]
	wallet  WalletOrders
	games   Games
	keys    Keys
	fulfil  Fulfilment
	cfg     Config
	now     func() time.Time
	// tokens keeps found tokens, by hash, for authcache.TTL: an order or read costs no token
	// lookup while it is fresh. Whatever revokes tokens here (settings, a secret, an exchange
	// trimming the oldest) or in the studio module (a key rotation) drops the game's at once
	// on this instance; other instances see it within authcache.TTL.
	tokens *authcache.Cache[string, TokenRecord]
}

// maxCachedTokens bounds Service.tokens.
const maxCachedTokens = 50_000

// NewService returns a Service. wallet places WALLET orders, on the storage of runner;
// games are the games a partner setting or wallet belongs to; keys authenticates client ids
// and says when a game's keys rotate; fulfil is the orders module's saga, which fulfils
// partner orders.
func NewService(runner store.Runner, partnerStore store.Of[Repo], orderStore store.Of[orders.Repo], wallet WalletOrders,
	games Games, keys Keys, fulfil Fulfilment, cfg Config) *Service {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.PaymentCheckEvery <= 0 {
		cfg.PaymentCheckEvery = DefaultPaymentCheckEvery
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{runner: runner, partner: partnerStore, orders: orderStore, wallet: wallet, games: games, keys: keys, fulfil: fulfil, cfg: cfg,
		now: now, tokens: authcache.New[string, TokenRecord](maxCachedTokens)}
	// A key rotation revokes the game's tokens.
	keys.WhenKeysRotate(s.dropGame)
	return s
}

// dropGame forgets the game's cached tokens (and any lookup in flight).
func (s *Service) dropGame(gameID uuid.UUID) {
	s.tokens.Drop(func(_ string, r TokenRecord) bool { return r.GameID == gameID })
}

// Currency is the deployment's currency.
func (s *Service) Currency() string { return s.cfg.Currency }
