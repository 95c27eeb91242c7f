package catalogue

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/coins"
)

// SealedCode is a coupon code as the pool keeps it: sealed, with a keyed fingerprint that finds
// duplicates.
type SealedCode struct {
	Fingerprint []byte
	Code        []byte
	Pin         []byte
	Expiry      *time.Time
}

// BrandMeta is a brand as the store's metadata shows it, with the number of rewards the game's
// players see.
type BrandMeta struct {
	Brand       Brand
	RewardCount int64
}

// CategoryMeta is a category with the number of rewards the game's players see in it.
type CategoryMeta struct {
	Category    Category
	RewardCount int64
}

// AdminFilter selects rewards for the operator (every reward, hidden or not).
type AdminFilter struct {
	Type      Type
	BrandCode string
	// Active keeps only active (true) or inactive (false) rewards; nil keeps both.
	Active *bool
	Limit  int
	Offset int
}

// SyncStats count what a sync with the voucher provider changed.
type SyncStats struct {
	Created, Updated, Deactivated int64
}

// Repo is the storage the catalogue module needs.
type Repo interface {
	// UpsertCategory creates or replaces a category; created reports which.
	UpsertCategory(ctx context.Context, c Category) (created bool, err error)
	// MissingCategories returns the codes of codes that name no category.
	MissingCategories(ctx context.Context, codes []string) ([]string, error)
	// UpsertBrand creates or replaces a brand (keeping its provider code); created reports
	// which. It refreshes the search text of the brand's rewards.
	UpsertBrand(ctx context.Context, b Brand) (created bool, err error)
	// GetBrand returns ErrBrandNotFound when no brand has the code.
	GetBrand(ctx context.Context, code string) (Brand, error)
	// BrandByProviderCode returns the brand a provider brand was imported as, or
	// ErrBrandNotFound.
	BrandByProviderCode(ctx context.Context, providerCode string) (Brand, error)

	// InsertReward creates r (with its sealed shared code, if any) and returns it with its id.
	InsertReward(ctx context.Context, r Reward, sharedCode []byte) (Reward, error)
	// LockReward returns a reward locked until the transaction ends, or ErrRewardNotFound.
	LockReward(ctx context.Context, id uuid.UUID) (Reward, error)
	// GetReward returns a reward whatever its state, or ErrRewardNotFound.
	GetReward(ctx context.Context, id uuid.UUID) (Reward, error)
	// RewardByProviderProduct returns the reward a provider product was imported as, or
	// ErrRewardNotFound.
	RewardByProviderProduct(ctx context.Context, productID string) (Reward, error)
	// UpdateReward replaces a reward's fields; sharedCode nil keeps the shared code, an empty
	// slice removes it.
	UpdateReward(ctx context.Context, r Reward, sharedCode []byte) (Reward, error)
	// ListRewards returns a page of every reward for the operator, newest first, and the total.
	ListRewards(ctx context.Context, f AdminFilter) ([]Reward, int64, error)
	// DeactivateProviderRewards deactivates provider rewards and brands not in the lists of
	// what the provider still has, and returns how many rewards it deactivated.
	DeactivateProviderRewards(ctx context.Context, keepProducts, keepBrands []string) (int64, error)

	// AddCodes adds codes to a reward's pool, ignoring those already there, and returns how
	// many it added.
	AddCodes(ctx context.Context, rewardID uuid.UUID, codes []SealedCode) (int64, error)
	// FreeCodes counts a reward's unused codes.
	FreeCodes(ctx context.Context, rewardID uuid.UUID) (int64, error)
	// FreeCodesOf counts the unused codes of the pool rewards (IsPool) among ids, in one
	// statement; rewards that are not pools are left out.
	FreeCodesOf(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error)
	// TakeCodes gives up to n unused codes of a reward's pool to an order, skipping codes
	// other transactions are taking (FOR UPDATE SKIP LOCKED): fewer than n means the pool ran
	// out. Each code goes to one order only.
	TakeCodes(ctx context.Context, rewardID, orderID uuid.UUID, n int) ([]SealedCode, error)
	// SharedCode returns a coupon's sealed shared code.
	SharedCode(ctx context.Context, rewardID uuid.UUID) ([]byte, error)
	// RecordOrder counts a successful order of a reward on the day of at (TRENDING,
	// most-ordered).
	RecordOrder(ctx context.Context, rewardID uuid.UUID, at time.Time) error

	// UpsertProduct creates or replaces a product; created reports which.
	UpsertProduct(ctx context.Context, p Product) (created bool, err error)

	// GameReward returns what a game changed of a reward (zero value when nothing).
	GameReward(ctx context.Context, gameID, rewardID uuid.UUID) (GameReward, error)
	// SaveGameReward stores what a game changes of a reward.
	SaveGameReward(ctx context.Context, g GameReward) error

	// GetVisibleWithCoin returns one reward as q.GameID's players see it (Visible; Free left
	// unset: counting a pool is the caller's choice) with the game's coin q.CoinID, read together,
	// for a purchase the read model cannot plan (orders.Service): coins.ErrCoinNotFound when the
	// coin is not the game's, else ErrRewardNotFound when the players do not see the reward.
	GetVisibleWithCoin(ctx context.Context, q ListQuery, id uuid.UUID) (Listed, coins.Coin, error)

	// ShortLink returns the code of a player's link to a reward, creating it with code when
	// there is none.
	ShortLink(ctx context.Context, playerID, rewardID uuid.UUID, code string) (string, error)
	// FollowLink counts a click on a link and returns the website of the reward's brand, or
	// ErrLinkNotFound.
	FollowLink(ctx context.Context, code string) (string, error)
}
