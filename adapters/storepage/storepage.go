// Package storepage serves the player's store: the service's own pages under Path, what a
// game opens in a web view (POST /player/store-session gives the link) and what a touchpoint's
// link opens for a game without a store of its own.
//
// One small file per page action (home.go, list.go, reward.go, buy.go, orders.go, profile.go,
// enter.go), forms parsed in form.go, the session in session.go, the security headers and the
// cross-origin check of every POST in headers.go, the embedded assets in render.go and every
// route in routes.go. The pages are html/template, which escapes every value it prints:
// catalogue text is never markup. Every page works without JavaScript; static/store.js only
// adds copy buttons and refreshes a pending order's page.
//
// Caches: games keeps each game's store settings, allowed origins and name for gameTTL (what
// the theme, the landing page and frame-ancestors are made of), so that a change a studio
// makes shows within that time; balances keeps each player's balance of the store's coin for
// balanceTTL (a purchase here drops it); fragments keeps rendered cards and options, keyed by
// all they show (never stale). Everything else is read from the catalogue's read model, the
// players module's lookups and the orders module, as the API reads them.
package storepage

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/webpage"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
)

// Path is where the pages are served. {REWARDS_PUBLIC_URL}/store is the store address of a
// game without one.
const Path = "/store"

// Catalogue is what the pages read of the catalogue without a session: one item by id.
type Catalogue interface {
	// GetReward returns a reward, or an error coded catalogue.ErrRewardNotFound.
	GetReward(ctx context.Context, id uuid.UUID) (catalogue.Reward, error)
	// Products returns the products of ids that exist.
	Products(ctx context.Context, ids []string) ([]catalogue.Product, error)
}

// Shelf is what a signed-in player's pages read: the game's catalogue priced in its coin, as
// GET /rewards, GET /search and GET /rewards/{id} read it.
type Shelf interface {
	List(ctx context.Context, q catalogue.ListQuery) ([]catalogue.Listed, int64, error)
	Search(ctx context.Context, q catalogue.SearchQuery, kinds []string) (catalogue.SearchResult, error)
	Fetch(ctx context.Context, q catalogue.ListQuery, rewardID, playerID uuid.UUID) (catalogue.Detail, error)
	Categories(ctx context.Context, gameID uuid.UUID) ([]catalogue.CategoryMeta, error)
}

// Sessions opens and resumes store sessions (core/storefront).
type Sessions interface {
	Enter(ctx context.Context, code string) (storefront.Session, string, error)
	Resume(ctx context.Context, value string) (storefront.Session, error)
}

// Orders buys and shows a player's orders (core/orders).
type Orders interface {
	Buy(ctx context.Context, p orders.Purchase) (orders.View, bool, error)
	PlayerOrder(ctx context.Context, playerID, id uuid.UUID) (orders.View, error)
	PlayerOrders(ctx context.Context, playerID uuid.UUID, rewardID *uuid.UUID, limit, offset int) ([]orders.View, int64, error)
}

// Wallet reads a player's coins (core/coins).
type Wallet interface {
	Funds(ctx context.Context, gameID, playerID uuid.UUID) ([]coins.Fund, error)
}

// Games reads what a game's store looks like and who may frame it.
type Games interface {
	GetGame(ctx context.Context, id uuid.UUID) (studio.Game, error)
	StoreSettings(ctx context.Context, gameID uuid.UUID) (players.StoreSettings, error)
}

// Profiles changes a player's delivery address (core/players).
type Profiles interface {
	UpdateProfile(ctx context.Context, p players.Player, u players.ProfileUpdate) (players.Player, error)
}

// Config is what the pages need. Catalogue and Currency serve the item pages anyone may open;
// the rest serve signed-in players (nil Sessions: no one signs in).
type Config struct {
	Catalogue Catalogue
	Currency  string
	Shelf     Shelf
	Sessions  Sessions
	Orders    Orders
	Wallet    Wallet
	Games     Games
	Profiles  Profiles
	// SecureCookies marks cookies Secure: everywhere but a plain-http local run.
	SecureCookies bool
	// PurchaseWait bounds how long a purchase waits for a first tap of the same form still
	// running (zero: 15 s).
	PurchaseWait time.Duration
	Log          *slog.Logger
}

// Pages serves the store pages. Use New.
type Pages struct {
	cfg      Config
	games    *gameCache
	balances *balances
	cookies  webpage.Cookies
	handler  http.Handler
}

// New returns the pages of cfg.
func New(cfg Config) *Pages {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.PurchaseWait == 0 {
		cfg.PurchaseWait = 15 * time.Second
	}
	p := &Pages{cfg: cfg, games: newGameCache(cfg.Games), balances: &balances{m: map[uuid.UUID]balanceEntry{}},
		cookies: webpage.Cookies{Path: Path, Secure: cfg.SecureCookies}}
	p.handler = p.routes()
	return p
}

// ServeHTTP serves every page under Path.
func (p *Pages) ServeHTTP(w http.ResponseWriter, r *http.Request) { p.handler.ServeHTTP(w, r) }
