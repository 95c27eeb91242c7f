// Package console is the studio's own hand on its data: the one role-checked façade that the
// studio API (/studio/v1) and the console pages (/console) both call, so that roles, ownership
// and cross-studio answers live in one place.
//
// Every method takes the authenticated members.Principal first and checks its role before
// anything else: reads need VIEWER, changes DEVELOPER (members and tokens are the members
// module's, which checks OWNER itself). A game of another studio, and so any player, order,
// placement, webhook configuration or delivery reached through it, answers the module's own
// NotFound error, exactly as an id that does not exist: another studio's ids are not even
// confirmed to exist.
//
// The console calls the modules' services, which record their changes in the audit log in the
// change's own transaction; the few changes the console makes itself (blocking a player,
// deleting a placement) it records the same way. Who acts travels in the context
// (audit.WithActor), set where the principal was authenticated; when the context carries none,
// the console names the principal itself, without an address.
//
// Commercial terms stay with the operator: partner enablement, settlement and discount, wallet
// funding and the purchase budget have no method here.
package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Deps are the services and storage the console works with.
type Deps struct {
	Studio      Studios
	Partner     Partner
	Touchpoints Touchpoints
	Webhooks    Webhooks
	Players     Players
	Coins       Coins
	Orders      Orders
	Audit       *audit.Log
	// Store is the console's own storage (Repo), on the runner Audit writes with.
	Store store.Of[Repo]
}

// Service is the console's use cases.
type Service struct{ d Deps }

// New returns the console over d.
func New(d Deps) *Service { return &Service{d: d} }

// GameView is one game as its studio sees it: settings, masked credentials per environment and
// the partner terms the operator set (read only).
type GameView struct {
	Game studio.Game
	// Credentials are live first, then test.
	Credentials []CredentialsView
	Partner     partner.Settings
}

// CredentialsView is what may be shown of a game's credentials of one environment: never a
// whole key or secret.
type CredentialsView struct {
	Environment studio.Environment
	// APIKey is the masked key, rk_live_…a1b2 (rk_live_… alone for a key issued before the last
	// characters were kept).
	APIKey      string
	KeyIssuedAt time.Time
	// ServerSecretIssuedAt and PartnerSecretIssuedAt are nil when none was issued.
	ServerSecretIssuedAt  *time.Time
	PartnerSecretIssuedAt *time.Time
}

// Wallet is a game's partner wallet of one environment: the terms, the balance and a page of
// its entries, oldest first. Funding it is the operator's.
type Wallet struct {
	Settings partner.Settings
	Balance  money.Amount
	Entries  []partner.Entry
	Total    int64
}

// Integration is how a game is wired to its players: the settings a studio changes itself.
type Integration struct {
	GameID   uuid.UUID
	StoreURL string
	// AllowedOrigins are the browser origins allowed to call the API with the game's keys (CORS).
	AllowedOrigins          studio.Origins
	ServerOnlyCoinMovements bool
	// Store is the store's switches and theme.
	Store players.StoreSettings
	// TouchpointCoinID is the coin touchpoints price in; nil: the game's oldest coin.
	TouchpointCoinID *uuid.UUID
	// Coins are the game's coins, to choose the touchpoint coin from.
	Coins []coins.Coin
}

// IntegrationChange changes the integration settings it sets; nil fields stay as they are.
// Each setting is its module's change (and audit entry): a change that fails part way leaves
// the settings before the failing one changed, and says which failed.
type IntegrationChange struct {
	StoreURL *string
	// AllowedOriginsLive and AllowedOriginsTest replace an environment's origins.
	AllowedOriginsLive      *[]string
	AllowedOriginsTest      *[]string
	ServerOnlyCoinMovements *bool
	// Store changes the store's switches and theme (a JSON object).
	Store            players.SettingsChange
	TouchpointCoinID *uuid.UUID
}

// PlayerView is one player with what support needs at a glance.
type PlayerView struct {
	Player players.Player
	// Funds are the player's holding of each coin of the game.
	Funds []coins.Fund
	// Transactions are the newest PlayerPage movements of every coin, of TransactionsTotal.
	Transactions      []coins.Transaction
	TransactionsTotal int64
	// Orders are the newest PlayerPage orders (codes not included); Orders with the player's id
	// lists the rest from OrdersNext.
	Orders     []OrderSummary
	OrdersNext string
}

// PlayerPage is how many transactions and orders Player shows.
const PlayerPage = 20

// OrderFilter selects orders of a game and environment.
type OrderFilter struct {
	// Status, when set, keeps orders in that status.
	Status orders.Status
	// PlayerID, when set, keeps one player's orders.
	PlayerID *uuid.UUID
	// From and To, when set, keep orders created at or after From and before To.
	From, To *time.Time
	// Limit is 1 to MaxOrderPage (default DefaultOrderPage).
	Limit int
	// Cursor continues a listing: the Next of the page before.
	Cursor string
}

// Order pages.
const (
	DefaultOrderPage = 50
	MaxOrderPage     = 200
)

// OrderPage is a page of orders, newest first; Next continues it ("" at the end).
type OrderPage struct {
	Orders []OrderSummary
	Next   string
}

// OrderSummary is an order without its codes: a studio sees that codes were delivered, and
// their provider ids, values and expiries, never the codes or PINs (the player's to redeem).
type OrderSummary struct {
	orders.Order
	Codes []CodeSummary
}

// CodeSummary is what a studio sees of a delivered code.
type CodeSummary struct {
	ProviderVoucherID string
	Value             money.Amount
	Expiry            *time.Time
}

// OrderView is one order with its history, oldest transition first.
type OrderView struct {
	Order   OrderSummary
	History []orders.Transition
}

// Games returns the principal's studio's games, oldest first.
func (s *Service) Games(ctx context.Context, p members.Principal) ([]studio.Game, error) {
	if err := p.Require(viewer); err != nil {
		return nil, err
	}
	return s.d.Studio.ListGames(ctx, p.StudioID)
}

// Game returns one game of the principal's studio with its masked credentials.
func (s *Service) Game(ctx context.Context, p members.Principal, gameID uuid.UUID) (GameView, error) {
	g, err := s.read(ctx, p, gameID)
	if err != nil {
		return GameView{}, err
	}
	creds, err := s.d.Store.Repo().Credentials(ctx, gameID)
	if err != nil {
		return GameView{}, err
	}
	v := GameView{Game: g}
	for _, env := range []studio.Environment{studio.Live, studio.Test} {
		for _, c := range creds {
			if c.Environment == env {
				v.Credentials = append(v.Credentials, CredentialsView{Environment: env,
					APIKey: studio.MaskedKey(env, c.KeyHint), KeyIssuedAt: c.KeyIssuedAt,
					ServerSecretIssuedAt: c.ServerSecretIssuedAt, PartnerSecretIssuedAt: c.PartnerSecretIssuedAt})
			}
		}
	}
	if v.Partner, err = s.d.Partner.GetSettings(ctx, gameID); err != nil {
		return GameView{}, err
	}
	return v, nil
}

// PlayerTransactions is a page of a player's movements, newest first, of Total.
type PlayerTransactions struct {
	Transactions []coins.Transaction
	Total        int64
}
