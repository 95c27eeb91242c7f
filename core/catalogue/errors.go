package catalogue

import "github.com/rewardsco/rewards/core/errs"

var (
	// ErrRewardNotFound means no reward has the id, or the game's players do not see it.
	ErrRewardNotFound = errs.New(errs.NotFound, "REWARD_NOT_FOUND", "reward not found")
	// ErrBrandNotFound means no brand has the code.
	ErrBrandNotFound = errs.New(errs.NotFound, "BRAND_NOT_FOUND", "brand not found")
	// ErrCategoryNotFound means no category has the code.
	ErrCategoryNotFound = errs.New(errs.NotFound, "CATEGORY_NOT_FOUND", "category not found")
	// ErrProductNotFound means no product has the id.
	ErrProductNotFound = errs.New(errs.NotFound, "PRODUCT_NOT_FOUND", "product not found")
	// ErrLinkNotFound means no short link has the code.
	ErrLinkNotFound = errs.New(errs.NotFound, "LINK_NOT_FOUND", "link not found")
	// ErrPriceNotEditable means the game set coin prices for a reward that does not allow it.
	ErrPriceNotEditable = errs.New(errs.Invalid, "PRICE_NOT_EDITABLE", "this reward does not allow studios to set coin prices (flagAllowStudioEditPrice is false)")
	// ErrNoProvider means the deployment has no voucher provider to sync from.
	ErrNoProvider = errs.New(errs.Unavailable, "VOUCHER_PROVIDER_NOT_CONFIGURED", "no voucher provider is configured (REWARDS_VOUCHER_BASE_URL)")
)
