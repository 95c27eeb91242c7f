package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The services the console calls are named by what it needs of them; the modules' *Service types
// implement them (app wires them into Deps, and the compiler checks it here), and tests put
// fakes in their place where a module has none.
var (
	_ Studios     = (*studio.Service)(nil)
	_ Partner     = (*partner.Service)(nil)
	_ Touchpoints = (*touchpoints.Service)(nil)
	_ Webhooks    = (*webhooks.Service)(nil)
	_ Players     = (*players.Service)(nil)
	_ Coins       = (*coins.Service)(nil)
	_ Orders      = (*orders.Service)(nil)
)

// Studios is what the console needs of *studio.Service.
type Studios interface {
	ListGames(ctx context.Context, studioID uuid.UUID) ([]studio.Game, error)
	GetGame(ctx context.Context, id uuid.UUID) (studio.Game, error)
	RotateKey(ctx context.Context, gameID uuid.UUID, env studio.Environment) (string, error)
	IssueServerSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment) (string, error)
	SetStoreURL(ctx context.Context, gameID uuid.UUID, storeURL string) (studio.Game, error)
	SetAllowedOrigins(ctx context.Context, gameID uuid.UUID, o studio.Origins, set map[studio.Environment]bool) (studio.Game, error)
	SetServerOnlyCoinMovements(ctx context.Context, gameID uuid.UUID, on bool) (studio.Game, error)
}

// Partner is what the console needs of *partner.Service: reads, and the client secret. The
// commercial terms (enablement, settlement, discount, funding) are the operator's.
type Partner interface {
	GetSettings(ctx context.Context, gameID uuid.UUID) (partner.Settings, error)
	IssueSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment) (string, error)
	Ledger(ctx context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) (money.Amount, []partner.Entry, int64, error)
}

// Touchpoints is what the console needs of *touchpoints.Service.
type Touchpoints interface {
	Placements(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]touchpoints.Placement, error)
	PutPlacement(ctx context.Context, p touchpoints.Placement) (touchpoints.Placement, bool, error)
	PromoteChecked(ctx context.Context, gameID uuid.UUID, version string) (touchpoints.Diff, error)
	SetCoin(ctx context.Context, gameID, coinID uuid.UUID) error
}

// Webhooks is what the console needs of *webhooks.Service.
type Webhooks interface {
	Configure(ctx context.Context, sc webhooks.Scope, ch webhooks.Change) (webhooks.Config, bool, error)
	List(ctx context.Context, sc webhooks.Scope) ([]webhooks.Config, error)
	Get(ctx context.Context, sc webhooks.Scope, id uuid.UUID) (webhooks.Config, error)
	Update(ctx context.Context, sc webhooks.Scope, id uuid.UUID, ch webhooks.Change) (webhooks.Config, error)
	Delete(ctx context.Context, sc webhooks.Scope, id uuid.UUID) error
	RotateSecret(ctx context.Context, sc webhooks.Scope, id uuid.UUID, grace time.Duration) (webhooks.Config, error)
	Resend(ctx context.Context, sc webhooks.Scope, id uuid.UUID) (uuid.UUID, error)
	Recover(ctx context.Context, sc webhooks.Scope, id uuid.UUID, since time.Time) (int, error)
	Deliveries(ctx context.Context, sc webhooks.Scope, f webhooks.DeliveryFilter) ([]webhooks.Delivery, int64, error)
	Stats(ctx context.Context, sc webhooks.Scope) (webhooks.Stats, error)
	SendTest(ctx context.Context, sc webhooks.Scope, c studio.Caller, configID uuid.UUID, eventType string) (webhooks.TestResult, error)
}

// Players is what the console needs of *players.Service.
type Players interface {
	// Lookup finds a player of the scope by the studio's uuid, the player's id or its phone.
	Lookup(ctx context.Context, sc players.Scope, ref string) (players.Player, error)
	// Forget drops what the service remembers of a player, after a change made beside it.
	Forget(id uuid.UUID)
	StoreSettings(ctx context.Context, gameID uuid.UUID) (players.StoreSettings, error)
	ChangeStoreSettings(ctx context.Context, gameID uuid.UUID, ch players.SettingsChange) (players.StoreSettings, error)
}

// Coins is what the console needs of *coins.Service.
type Coins interface {
	ListCoins(ctx context.Context, gameID uuid.UUID) ([]coins.Coin, error)
	Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error)
	Transactions(ctx context.Context, playerID uuid.UUID, limit, offset int) ([]coins.Transaction, int64, error)
}

// Orders is what the console needs of *orders.Service.
type Orders interface {
	// History returns an order (codes sealed) with its transitions, or orders.ErrOrderNotFound.
	History(ctx context.Context, id uuid.UUID) (orders.Order, []orders.Transition, error)
}

// Repo is the console's own storage: the reads of a studio's data no module offers, and the few
// changes the console makes itself (each with its audit entry, in one transaction).
type Repo interface {
	// Credentials returns what is known of the game's current credentials, per environment
	// (environments without a key are absent).
	Credentials(ctx context.Context, gameID uuid.UUID) ([]Credentials, error)
	// TouchpointCoin returns the game's touchpoint coin, nil when none was chosen.
	TouchpointCoin(ctx context.Context, gameID uuid.UUID) (*uuid.UUID, error)
	// SetPlayerBlocked blocks or unblocks a player of scope sc, or returns
	// players.ErrPlayerNotFound.
	SetPlayerBlocked(ctx context.Context, sc players.Scope, id uuid.UUID, blocked bool) (players.Player, error)
	// Orders returns orders of q's game and environment, newest first (by creation time, then
	// id), at most q.Limit.
	Orders(ctx context.Context, q OrderQuery) ([]orders.Order, error)
	// DeletePlacement deletes a placement of the game's env, or returns
	// touchpoints.ErrPlacementNotFound.
	DeletePlacement(ctx context.Context, gameID uuid.UUID, env studio.Environment, id uuid.UUID) error
}

// Credentials are a game's credentials of one environment, as far as they may be shown.
type Credentials struct {
	Environment studio.Environment
	// KeyHint is the last characters of the current API key ("" when it was issued before hints
	// were kept); KeyIssuedAt when it was issued.
	KeyHint     string
	KeyIssuedAt time.Time
	// ServerSecretIssuedAt and PartnerSecretIssuedAt are when the current secrets were issued;
	// nil when there is none.
	ServerSecretIssuedAt  *time.Time
	PartnerSecretIssuedAt *time.Time
}

// OrderQuery selects orders of one game and environment.
type OrderQuery struct {
	GameID      uuid.UUID
	Environment studio.Environment
	// Status, when set, keeps orders in that status.
	Status orders.Status
	// PlayerID, when set, keeps the player's orders.
	PlayerID *uuid.UUID
	// From and To, when set, keep orders created at or after From and before To.
	From, To *time.Time
	// After, when set, continues a listing: orders older than this one (by creation time, then
	// id).
	After *OrderKey
	Limit int
}

// OrderKey is an order's place in a listing.
type OrderKey struct {
	CreatedAt time.Time
	ID        uuid.UUID
}
