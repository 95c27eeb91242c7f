package touchpoints

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/studio"
)

// RewardQuery picks the best rewards a game's players see.
type RewardQuery struct {
	GameID uuid.UUID
	// CoinID is the coin whose game price (override) comes with each reward; uuid.Nil for none.
	CoinID   uuid.UUID
	Type     catalogue.Type
	Category string
	Brand    string
	SortBy   string
	// InStock keeps only rewards a player could get now (a coupon with a pool needs a code).
	InStock bool
	Limit   int
	Now     time.Time
}

// ProductQuery picks the best active products.
type ProductQuery struct {
	Category string
	// Brand is the product's brand name.
	Brand  string
	SortBy string
	Limit  int
}

// TreeKey names one of a game's trees: by ID when it is set, else by Name.
type TreeKey struct {
	Name string
	ID   uuid.UUID
}

// Screen is what serving a screen reads: its placements, the game's store address and its
// touchpoint coin.
type Screen struct {
	// Placements are the screen's active placements (as Repo.Placements).
	Placements []Placement
	StoreURL   string
	// Coin is the game's touchpoint coin with the player's balance, nil when the game has none.
	Coin *Coin
}

// Lookup is every catalogue read of serving trees, made together.
type Lookup struct {
	GameID uuid.UUID
	// CoinID is the coin whose game price comes with each reward; uuid.Nil for none.
	CoinID     uuid.UUID
	RewardIDs  []uuid.UUID
	ProductIDs []string
	// BestRewards and BestProducts are queries, each answered in Found in its order.
	BestRewards  []RewardQuery
	BestProducts []ProductQuery
}

// Found is what a Lookup found: the rewards (as Repo.Rewards) and products (as Repo.Products)
// of its ids that exist, and the answer to each of its queries, in their order.
type Found struct {
	Rewards      []RewardItem
	Products     []catalogue.Product
	BestRewards  [][]RewardItem
	BestProducts [][]catalogue.Product
}

// Stock tells whether the voucher provider of an environment can issue a synced reward now (the
// catalogue module's cached answer).
type Stock interface {
	ProviderAvailable(ctx context.Context, env studio.Environment, r catalogue.Reward) bool
}

// CoinValues tells what a game's coin is worth from memory (coins.Values: kept for
// authcache.TTL, a change made through this instance served at once).
type CoinValues interface {
	// CoinsPerUnit returns what the game's coin is worth, or coins.ErrCoinNotFound unless the
	// coin is the game's.
	CoinsPerUnit(ctx context.Context, gameID, coinID uuid.UUID) (int64, error)
}

// Reads answers the reward reads of serving trees and placements from memory (the catalogue's
// read model) where it holds what they ask, so that they cost no round trip to the database.
type Reads interface {
	// Rewards returns the rewards of ids it holds, as Repo.Rewards does, and missing: the ids it
	// does not hold (an inactive reward or brand, or none), which only Repo.Rewards can answer.
	Rewards(ctx context.Context, gameID, coinID uuid.UUID, ids []uuid.UUID) (found []RewardItem, missing []uuid.UUID, err error)
	// BestRewards returns the first q.Limit rewards of q, best first, as Repo.BestRewards does.
	BestRewards(ctx context.Context, q RewardQuery) ([]RewardItem, error)
}

// Repo is the storage the touchpoints module needs. The reads of serving come in as few calls
// as the rules allow (Screen, TreeWithCoin, Lookup): each call is one round trip to the database.
type Repo interface {
	// UpsertAsset creates or replaces a library asset; created reports which.
	UpsertAsset(ctx context.Context, a PresetAsset) (created bool, err error)
	ListAssets(ctx context.Context) ([]PresetAsset, error)
	// GetAsset returns ErrAssetNotFound when no library asset has the id.
	GetAsset(ctx context.Context, id string) (PresetAsset, error)
	// LockGame locks the game until the transaction ends, or returns studio.ErrGameNotFound.
	LockGame(ctx context.Context, gameID uuid.UUID) error

	// UpsertPlacement creates or replaces a placement (ErrPlacementConflict when another one
	// has its screen and type) and returns when it was stored.
	UpsertPlacement(ctx context.Context, p Placement) (created bool, updatedAt time.Time, err error)
	// Placements returns a game's placements of env, PRESET frames read from the library;
	// screen "" lists all, else only the screen's active ones.
	Placements(ctx context.Context, gameID uuid.UUID, env studio.Environment, screen string) ([]Placement, error)
	// PromotePlacements replaces the game's live placements with copies of its test ones and
	// returns how many it copied.
	PromotePlacements(ctx context.Context, gameID uuid.UUID) (int64, error)
	// SetCoin makes coinID the game's touchpoint coin.
	SetCoin(ctx context.Context, gameID, coinID uuid.UUID) error
	// Screen returns the active placements of a screen of the game's env, its store address and
	// its touchpoint coin (with the player's balance when playerID is set); studio.ErrGameNotFound
	// when the screen has placements and the game is gone.
	Screen(ctx context.Context, gameID uuid.UUID, env studio.Environment, screen string, playerID *uuid.UUID) (Screen, error)
	// Coin returns a coin of the game with the player's balance when playerID is set (0 when
	// the player has none), or coins.ErrCoinNotFound.
	Coin(ctx context.Context, gameID, coinID uuid.UUID, playerID *uuid.UUID) (Coin, error)

	// Rewards returns the rewards of ids that exist, as the game sees them, with its price
	// override for coinID.
	Rewards(ctx context.Context, gameID, coinID uuid.UUID, ids []uuid.UUID) ([]RewardItem, error)
	// BestRewards returns the first q.Limit rewards of q, best first.
	BestRewards(ctx context.Context, q RewardQuery) ([]RewardItem, error)
	// Products returns the products of ids that exist.
	Products(ctx context.Context, ids []string) ([]catalogue.Product, error)
	// BestProducts returns the first q.Limit active products of q, best first.
	BestProducts(ctx context.Context, q ProductQuery) ([]catalogue.Product, error)
	// RewardTypes returns the type of each reward of ids that exists.
	RewardTypes(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]catalogue.Type, error)
	// ExistingProducts returns the ids of ids that name a product.
	ExistingProducts(ctx context.Context, ids []string) ([]string, error)
	// Lookup makes every read of l at once.
	Lookup(ctx context.Context, l Lookup) (Found, error)

	// UpsertTree creates or replaces the game's tree of t.Name; created reports which.
	UpsertTree(ctx context.Context, t Tree) (Tree, bool, error)
	// DeleteTree deletes the game's tree of name, or returns ErrTouchpointNotFound.
	DeleteTree(ctx context.Context, gameID uuid.UUID, name string) error
	// TreeWithCoin returns the game's tree of key and, when coinID is set, that coin of the game
	// with the player's balance (nil when playerID is nil or the player has none), read together:
	// coins.ErrCoinNotFound when coinID is not a coin of the game (whether or not the tree
	// exists), else ErrTouchpointNotFound when there is no such tree.
	// known, when set, is the caller's copy of the tree: while the stored tree is that version
	// (its ID and UpdatedAt), the answer is known itself, its nodes neither read nor decoded.
	TreeWithCoin(ctx context.Context, gameID uuid.UUID, key TreeKey, coinID, playerID *uuid.UUID, known *Tree) (Tree, *Coin, error)
	// TreeSizes returns the first n of the game's trees in list order (by name, then id),
	// without their nodes, and how many trees the game has.
	TreeSizes(ctx context.Context, gameID uuid.UUID, n int) (sizes []TreeSize, total int, err error)
	// TreesByID returns the game's trees of ids that exist, in list order; a tree still the
	// version of the caller's copy in known (by id) is that copy, not decoded again.
	TreesByID(ctx context.Context, gameID uuid.UUID, ids []uuid.UUID, known map[uuid.UUID]Tree) ([]Tree, error)
}
