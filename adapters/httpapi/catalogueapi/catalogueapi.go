// Package catalogueapi serves the catalogue module over HTTP: the rewards store players browse
// (GET /rewards in its two shapes, brands, categories, search, one reward, short links to brand
// sites) and the operator's catalogue (categories, brands, rewards and their coupon codes,
// products, what each game hides and the coin prices it sets, the voucher provider sync).
package catalogueapi

import (
	"net/http"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
)

// Tag groups the store's catalogue operations on the docs page.
const Tag = "Rewards"

// TagDescription describes Tag on the docs page.
const TagDescription = "The rewards store: what the game's players see of the catalogue, priced in the game's coins. Every operation needs the key and a player token, except GET /r/{code}."

// moneyRule documents how every operator body writes money.
const moneyRule = "Money is a JSON number of units of the deployment currency with at most two decimals (500, 10.99); percentages are numbers from 0 to 100 with at most two decimals; more decimals or a negative amount is 400 VALIDATION_FAILED naming the field."

// shapesRule documents the two shapes of GET /rewards.
const shapesRule = "**Shapes.** With `api-version=2` (query) or `x-api-version: 2` (header) every item is a **RewardShapeB** " +
	"`{id, brandId, brandName, organizationId, metadata: {…shape A metadata, campaignExpiryDate}, inventory: {availableQuantity, type}, price: {amount, coinId}}`; " +
	"otherwise a **RewardShapeA** `{id, name, description, type, brandId, brandName, organizationId, endDate, metadata: {brandName, brandLogoImage, campaignCoverImage, " +
	"campaignTitle, campaignSubTitle, campaignDetails, termsAndConditions, howToRedeem, brandCategory, campaignAssets}, availableQuantity, price, maxPrice, minPrice, flagAllowStudioEditPrice}`. " +
	"`brandId` is the brand's code, `organizationId` its issuer (the code unless set). Prices are whole coins of `coinId`: ceil(selling price × the coin's coinsPerUnit), " +
	"unless the game set its own price for the reward's smallest face value (the others scale with it); `price` and `minPrice` are the smallest face value's, `maxPrice` the largest's. " +
	"`availableQuantity` is what can be bought now: the unused codes of a pool reward (a coupon with a code pool, or a gift card or credit the operator made, which is fulfilled from its pool: 0 until codes are added); for a reward the voucher provider fulfils, the provider's stock (cached up to 60 s), 0 when out of stock; -1 for unlimited."

// urlRule states the rule of every web address the operator stores.
const urlRule = "Every web address (websiteUrl, logoUrl, imageUrl, heroImageUrl, coverImage, assets) is an absolute https URL with a host (plain http outside production only), " +
	"no user info, no quotes or markup, at most 2,048 characters; anything else (javascript:, data:, relative) is 400 VALIDATION_FAILED."

// Register adds the catalogue operations to s.
func Register(s *httpapi.Server, svc *catalogue.Service) {
	s.AddTag(Tag, TagDescription)
	h := handlers{svc: svc}
	registerOperator(s, h)
	registerStore(s, h)
}

// registerOperator adds the operator's catalogue operations.
func registerOperator(s *httpapi.Server, h handlers) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	// Categories and brands.
	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-category", http.MethodPut, "/admin/v1/catalogue/categories/{code}", "Create or replace a category",
		urlRule+" "+"Categories group brands; the catalogue is shared by every game of the deployment. 201 when the code is new, 200 when it replaced a category. "+
			"Codes are `^[A-Z0-9_]{2,64}$`; `translations` maps a language tag (hi, ta, pt-BR) to `{name?, description?}`. Bad input is 400 VALIDATION_FAILED and changes nothing.",
		http.StatusBadRequest)), h.putCategory)

	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-brand", http.MethodPut, "/admin/v1/catalogue/brands/{code}", "Create or replace a brand",
		urlRule+" "+"201 when the code is new, 200 when it replaced a brand (a brand imported by a sync keeps its link to the provider). "+
			"Every code in `categories` must name a category (400 VALIDATION_FAILED otherwise). `countries` are ISO 3166-1 alpha-2 codes; none means everywhere. "+
			"`isActive` defaults to true: an inactive brand's rewards are not shown. `websiteUrl` is where players' short links lead. The brand's code is `brandId` in the store, "+
			"its `issuer` (the code unless set) is `organizationId`.",
		http.StatusBadRequest)), h.putBrand)

	// Rewards, code pools included.
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-create-reward", http.MethodPost, "/admin/v1/catalogue/rewards", "Create a reward",
		urlRule+" "+"Adds a reward to the catalogue every game shares. `brandCode` must name a brand (400 VALIDATION_FAILED otherwise). "+
			"Every face value, `mrp` and `maxValue` is at most 10,000,000 units (400 VALIDATION_FAILED beyond), so that no coin price can overflow. "+
			"GIFT_CARD and DIGITAL_CREDIT are priced by face value: `valueType` FIXED (the default) with 1 to 50 distinct `denominations`, or RANGE from `minValue` to `maxValue`; "+
			"a face value d sells for d × (1 − discountPct/100). COUPON and PHYSICAL have `mrp` (required, positive) and `sellingPrice` (at most mrp; default the mrp) and count as FIXED with one value; "+
			"fields of the other pricing are ignored. A COUPON with `sharedCode` gives that code to every buyer (unlimited); otherwise add codes to its pool. "+
			"Defaults: isActive true, discountPct 0, purchaseCooldown 0 s, xScore 0, flagAllowStudioEditPrice false. "+moneyRule,
		http.StatusBadRequest)), h.createReward)

	httpapi.Register(ops, httpapi.Op("admin-update-reward", http.MethodPatch, "/admin/v1/catalogue/rewards/{rewardId}", "Change a reward",
		"Sets the fields sent; the rest stay. The result must satisfy every rule of a new reward (400 VALIDATION_FAILED otherwise, and nothing changes). "+
			"`endDate: null` removes the end date; `sharedCode: \"\"` removes a coupon's shared code. 404 REWARD_NOT_FOUND. "+moneyRule,
		http.StatusBadRequest, http.StatusNotFound), h.updateReward)

	httpapi.Register(ops, httpapi.Op("admin-list-rewards", http.MethodGet, "/admin/v1/catalogue/rewards", "List the catalogue's rewards",
		"Every reward, active or not, newest first, paginated (`limit` default 10, at most 100; `page` from 1); filters `type`, `brandCode` and `active`.",
		http.StatusBadRequest), h.listRewards)

	httpapi.Register(ops, httpapi.Op("admin-get-reward", http.MethodGet, "/admin/v1/catalogue/rewards/{rewardId}", "One reward of the catalogue",
		"The reward whatever its state. 404 REWARD_NOT_FOUND.",
		http.StatusNotFound), h.getReward)

	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-add-reward-codes", http.MethodPost, "/admin/v1/catalogue/rewards/{rewardId}/codes", "Add codes to a reward's pool",
		"Adds 1 to 10,000 codes to the pool of a COUPON, or of the operator's own GIFT_CARD or DIGITAL_CREDIT (one without a provider product); codes already there are ignored. The codes and pins are stored encrypted and shown only to the player who buys them. "+
			"A pool reward is limited by its pool: each purchase takes one code, and with no unused code it is listed as out of stock and answers OUT_OF_STOCK. Answers how many were added and how many are unused now. "+
			"400 VALIDATION_FAILED for goods, a reward the voucher provider fulfils, or a coupon with a shared code; 404 REWARD_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound)), h.addCodes)

	// Products.
	httpapi.Register(ops, httpapi.CreateOrReplace(httpapi.Op("admin-put-product", http.MethodPut, "/admin/v1/catalogue/products/{productId}", "Create or replace a product",
		urlRule+" "+"Products are physical goods sold for money in the store web, with a coin discount; they feed touchpoints, never /rewards or search. "+
			"201 when the id is new, 200 when it replaced a product. Prices must satisfy discountedListingPrice ≤ listingPrice ≤ mrp; `maxCoinDiscountPct` (default 0) is the "+
			"largest share of the price coins may pay; `rating` 0 to 5; `isActive` defaults to true. "+moneyRule,
		http.StatusBadRequest)), h.putProduct)

	// What one game changes of a reward.
	httpapi.Register(ops, httpapi.Op("admin-set-game-reward", http.MethodPut, "/admin/v1/games/{gameId}/rewards/{rewardId}", "Hide a reward from a game or set its coin prices",
		"What one game changes of a shared reward; fields left out stay as they are. `hidden: true` takes the reward out of the game's store. "+
			"`coinPrices` sets the game's price of the reward's smallest face value, by coin id (whole coins from 1; the other face values scale with it); "+
			"it replaces the previous prices and `{}` removes them. Only for rewards with flagAllowStudioEditPrice (400 PRICE_NOT_EDITABLE otherwise); "+
			"every key must be a coin id of this game (400 VALIDATION_FAILED otherwise). 404 GAME_NOT_FOUND, REWARD_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.setGameReward)

	// The voucher provider's catalogue.
	httpapi.Register(ops, httpapi.Op("admin-sync-catalogue", http.MethodPost, "/admin/v1/catalogue/sync", "Import the voucher provider's catalogue",
		"Imports the provider's brands (and their categories) as brands and its products in the deployment currency as GIFT_CARD rewards, keyed by the provider's codes, "+
			"so a second sync changes only what changed. Products and brands gone upstream become inactive, never deleted: past orders keep showing them. "+
			"Answers the counts created, updated and deactivated. 503 VOUCHER_PROVIDER_NOT_CONFIGURED without a provider (REWARDS_VOUCHER_BASE_URL); 502 when the provider fails.",
		http.StatusBadGateway, http.StatusServiceUnavailable), h.sync)
}

// registerStore adds what players see of the catalogue.
func registerStore(s *httpapi.Server, h handlers) {
	tags := []string{Tag}
	ops := httpapi.Operations{API: s.API, Auth: s.Player, Tags: tags}
	// Listings: rewards, brands and categories.
	httpapi.Register(ops, httpapi.Op("rewards-list", http.MethodGet, "/rewards", "List the rewards the player can buy",
		"A page `{items, page, limit, total}` (`limit` default 10, at most 100; `page` from 1) of the rewards the game's players see: active, unexpired, of an active brand, "+
			"not hidden by the game and, with `country`, available there. `coinId` must be a coin of the key's game (404 COIN_NOT_FOUND otherwise, a malformed id included). "+
			"Filters: `category` and `brand` (codes), `giftCard`, `rewardIds` (repeated or a comma list; malformed ids match nothing), `country`; "+
			"`dedupeBrandsByDiscount=true` keeps one reward per brand, the one with the largest discount on mrp. `contentLogic` orders the list; ties go to the higher xScore, then the newest. "+
			"`layoutStyle` is validated and changes no data. Names and descriptions (of rewards and brands) are localised by `x-language` (required: 400 without it).\n\n"+shapesRule,
		http.StatusBadRequest, http.StatusNotFound), h.list)

	httpapi.Register(ops, httpapi.Op("rewards-brands", http.MethodGet, "/rewards/metadata/brands", "The brands of the store",
		"BrandMetadata of every brand with rewards the game's players see, by name, with the number of those rewards. "+
			"`giftCard=true` keeps brands with gift cards, `false` brands with other rewards; `category` keeps brands of that category (code). Names are localised by the optional `x-language`.",
		http.StatusBadRequest), h.brands)

	httpapi.Register(ops, httpapi.Op("rewards-categories", http.MethodGet, "/rewards/categories", "The categories of the store",
		"CategoryMetadata of every category with rewards the game's players see, in display order, with the number of those rewards. Names are localised by `x-language` (required: 400 without it).",
		http.StatusBadRequest), h.categories)

	// One reward.
	httpapi.Register(ops, httpapi.Op("rewards-fetch", http.MethodGet, "/rewards/fetch/{rewardId}", "One reward, before buying it",
		"FetchRewardByIdDto: the shape B record of the reward plus `name`, `description`, `type`, `valueType`, and, for FIXED rewards, `denominations` "+
			"(each face value in units of the currency, its coin price in `coinId`'s coin, and whether it is in stock now: a code pool's unused codes or the voucher provider's stock), "+
			"for RANGE rewards `minValue` and `maxValue`; `nextPurchaseAt` is null unless the player is in the reward's purchase cooldown. "+
			"404 REWARD_NOT_FOUND for a reward the game's players do not see (or an unknown or malformed id); 404 COIN_NOT_FOUND for a coin of another game. "+
			"Names are localised by the optional `x-language`.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusBadGateway), h.fetch)

	httpapi.Register(ops, httpapi.Op("rewards-redirection-link", http.MethodGet, "/rewards/{rewardId}/get-redirection-link", "The player's short link to the reward's brand site",
		"`{url}`: a short link `{REWARDS_PUBLIC_URL}/r/{code}`, one per player and reward, created on the first call and the same afterwards. "+
			"Following it (GET /r/{code}) counts the click and redirects to the brand's website. 404 REWARD_NOT_FOUND for a reward the game's players do not see.",
		http.StatusNotFound), h.redirectionLink)

	// Search.
	httpapi.Register(ops, httpapi.Op("rewards-search", http.MethodGet, "/rewards/search", "Search the store",
		"SearchResponseDto `{brands, categories, rewards: {items, page, limit, total}}`: brands and categories (at most 20 each, best match first) and a page of rewards "+
			"(shape A, see GET /rewards) matching `q`, among what the game's players see. Matching is case-insensitive over reward, brand and category names and descriptions, "+
			"tolerant to typos and prefixes. `type` fills only one group (the others are empty); products are never searched. `brand` and `category` (repeat them for several) keep "+
			"rewards of those brands or categories, by exact code or name; unknown ones are ignored. `coinId` must be a coin of the key's game (404 COIN_NOT_FOUND). "+
			"`q` is 1 to 200 characters (400 otherwise); `x-language` is required.",
		http.StatusBadRequest, http.StatusNotFound), h.search)

	// The short link players follow, without credentials.
	httpapi.Register(httpapi.Operations{API: s.API, Tags: tags}, httpapi.WithStatus(http.StatusFound, httpapi.Op("rewards-follow-link", http.MethodGet, "/r/{code}", "Follow a short link",
		"Redirects only to an absolute https address with a host (http outside production), never to javascript:, data: or anything else; a brand without one is 404. "+"No authentication, any host: the address GET /rewards/{rewardId}/get-redirection-link gave. Counts the click and answers 302 with `Location` the brand's website "+
			"with `utm_source=rewards`. 404 LINK_NOT_FOUND for an unknown code or a brand with no website.",
		http.StatusNotFound)), h.follow)
}
