package catalogueapi

import (
	"time"

	"github.com/rewardsco/rewards/adapters/httpapi"
)

// ---- Operator inputs ----

type putCategoryInput struct {
	Code string `path:"code" pattern:"^[A-Z0-9_]{2,64}$" doc:"Category code: upper-case letters, digits and _, 2 to 64" example:"FOOD"`
	Body struct {
		Name         string                     `json:"name" minLength:"1" maxLength:"200" doc:"Name" example:"Food & Dining"`
		ImageURL     string                     `json:"imageUrl,omitempty" maxLength:"2048" doc:"Image address"`
		DisplayOrder int                        `json:"displayOrder,omitempty" minimum:"-1000000" maximum:"1000000" doc:"Position in the store's list of categories, lowest first (default 0)"`
		Translations map[string]TranslationBody `json:"translations,omitempty" maxProperties:"100" doc:"Texts by language tag (hi, ta, pt-BR)"`
	}
}

type putBrandInput struct {
	Code string `path:"code" pattern:"^[A-Z0-9_]{2,64}$" doc:"Brand code: upper-case letters, digits and _, 2 to 64" example:"AMAZON"`
	Body struct {
		Name         string                     `json:"name" minLength:"1" maxLength:"200" doc:"Name" example:"Amazon"`
		Description  string                     `json:"description,omitempty" maxLength:"10000" doc:"Description"`
		LogoURL      string                     `json:"logoUrl,omitempty" maxLength:"2048" doc:"Logo address"`
		WebsiteURL   string                     `json:"websiteUrl,omitempty" maxLength:"2048" doc:"The brand's website, where short links lead" example:"https://www.amazon.in"`
		Categories   []string                   `json:"categories" maxItems:"50" pattern:"^[A-Z0-9_]{2,64}$" doc:"Codes of existing categories (400 otherwise)" example:"[\"SHOPPING\"]"`
		Countries    []string                   `json:"countries,omitempty" maxItems:"250" pattern:"^[A-Z]{2}$" doc:"ISO 3166-1 alpha-2 codes where the brand is available; empty or left out: everywhere" example:"[\"IN\"]"`
		IsActive     *bool                      `json:"isActive,omitempty" doc:"Inactive brands' rewards are not shown (default true)"`
		Issuer       string                     `json:"issuer,omitempty" maxLength:"200" doc:"The organisation behind the brand (organizationId); the code when left out"`
		Translations map[string]TranslationBody `json:"translations,omitempty" maxProperties:"100" doc:"Texts by language tag"`
	}
}

type createRewardInput struct {
	Body struct {
		Type      string `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward"`
		BrandCode string `json:"brandCode" pattern:"^[A-Z0-9_]{2,64}$" doc:"Code of an existing brand (400 otherwise)" example:"AMAZON"`
		Name      string `json:"name" minLength:"1" maxLength:"200" doc:"Name" example:"Amazon Pay gift card"`
		RewardFields
	}
}

type updateRewardInput struct {
	RewardID string `path:"rewardId" doc:"Reward id"`
	Body     struct {
		Type      *string `json:"type,omitempty" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward"`
		BrandCode *string `json:"brandCode,omitempty" pattern:"^[A-Z0-9_]{2,64}$" doc:"Code of an existing brand (400 otherwise)"`
		Name      *string `json:"name,omitempty" minLength:"1" maxLength:"200" doc:"Name"`
		RewardFields
	}
}

type listRewardsInput struct {
	Type      string       `query:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Only rewards of this kind"`
	BrandCode string       `query:"brandCode" maxLength:"64" doc:"Only rewards of this brand"`
	Active    optionalBool `query:"active" doc:"Only active (true) or inactive (false) rewards; both when left out"`
	httpapi.PageQuery
}

type rewardIDInput struct {
	RewardID string `path:"rewardId" doc:"Reward id"`
}

// CodeBody is a coupon code to add to a pool.
type CodeBody struct {
	Code   string     `json:"code" minLength:"1" maxLength:"256" doc:"The code" example:"SAVE10-8KX2"`
	Pin    string     `json:"pin,omitempty" maxLength:"256" doc:"Its pin, if it has one"`
	Expiry *time.Time `json:"expiry,omitempty" doc:"When it expires, if it does"`
}

type addCodesInput struct {
	RewardID string `path:"rewardId" doc:"Reward id of a COUPON"`
	Body     struct {
		Codes []CodeBody `json:"codes" minItems:"1" maxItems:"10000" doc:"1 to 10,000 codes; those already in the pool are ignored"`
	}
}

type putProductInput struct {
	ProductID string `path:"productId" minLength:"1" maxLength:"128" doc:"Product id, 1 to 128 characters" example:"SKU-1001"`
	Body      struct {
		Name                   string    `json:"name" minLength:"1" maxLength:"200" doc:"Name"`
		BrandName              string    `json:"brandName,omitempty" maxLength:"200" doc:"Brand name"`
		Category               string    `json:"category,omitempty" maxLength:"200" doc:"Category"`
		ImageURL               string    `json:"imageUrl,omitempty" maxLength:"2048" doc:"Image address"`
		HeroImageURL           string    `json:"heroImageUrl,omitempty" maxLength:"2048" doc:"Hero image address"`
		Rating                 float64   `json:"rating,omitempty" minimum:"0" maximum:"5" doc:"Rating, 0 to 5"`
		MRP                    float64   `json:"mrp" minimum:"0" doc:"Maximum retail price, in units (at most two decimals)" example:"2999"`
		ListingPrice           float64   `json:"listingPrice" minimum:"0" doc:"Listing price, in units, at most mrp" example:"2499"`
		DiscountedListingPrice float64   `json:"discountedListingPrice" minimum:"0" doc:"Discounted listing price, in units, at most listingPrice" example:"1999"`
		MaxCoinDiscountPct     float64   `json:"maxCoinDiscountPct,omitempty" minimum:"0" maximum:"100" doc:"Largest share of the price coins may pay, percent (default 0)" example:"20"`
		PriceUpdatedAt         time.Time `json:"priceUpdatedAt" doc:"When the prices were last checked; touchpoints show no pricing once this is over 24 hours old"`
		IsActive               *bool     `json:"isActive,omitempty" doc:"Inactive products are not shown (default true)"`
	}
}

type setGameRewardInput struct {
	GameID   string `path:"gameId" doc:"Game id"`
	RewardID string `path:"rewardId" doc:"Reward id"`
	Body     struct {
		Hidden     *bool            `json:"hidden,omitempty" doc:"Hide the reward from the game's players (true) or show it again (false); unchanged when left out"`
		CoinPrices map[string]int64 `json:"coinPrices,omitempty" maxProperties:"50" doc:"The game's coin price of the reward's smallest face value, by coin id (whole coins, 1 or more; other face values scale with it). Replaces the previous prices; {} removes them; unchanged when left out. Only for rewards with flagAllowStudioEditPrice"`
	}
}

// ---- Store inputs ----

// The enums of listInput.ContentLogic and searchInput.SortBy are the keys of
// catalogue.ContentLogics and catalogue.SortBys; a test keeps them equal.

type listInput struct {
	CoinID       string       `query:"coinId" required:"true" doc:"The coin that prices the list: one of the key's game (404 COIN_NOT_FOUND otherwise)"`
	Category     string       `query:"category" maxLength:"200" doc:"Only rewards of brands in this category (code)"`
	Brand        string       `query:"brand" maxLength:"200" doc:"Only rewards of this brand (code)"`
	ContentLogic string       `query:"contentLogic" enum:"DEFAULT,NEWEST,TRENDING,PRICE_LOW_HIGH,PRICE_HIGH_LOW,DISCOUNT" default:"DEFAULT" doc:"Order: DEFAULT (xScore highest first, then newest), NEWEST, TRENDING (most ordered in the last 7 days), PRICE_LOW_HIGH and PRICE_HIGH_LOW (coin price in coinId), DISCOUNT (largest discount on mrp)"`
	LayoutStyle  string       `query:"layoutStyle" enum:"GRID,LIST,CAROUSEL,BANNER" doc:"How the client lays the list out; validated, changes no data"`
	Country      string       `query:"country" pattern:"^[A-Za-z]{2}$" doc:"Only rewards available in this country (ISO 3166-1 alpha-2)" example:"IN"`
	APIVersion   string       `query:"api-version" maxLength:"16" doc:"2 answers shape B; anything else shape A"`
	GiftCard     optionalBool `query:"giftCard" doc:"true: only gift cards; false: everything but gift cards; left out: all"`
	Dedupe       bool         `query:"dedupeBrandsByDiscount" doc:"Keep one reward per brand: the one with the largest discount on mrp"`
	RewardIDs    []string     `query:"rewardIds,explode" maxItems:"100" doc:"Only these rewards: repeat the parameter or send a comma list, at most 100 ids in all"`
	httpapi.PageQuery
	Language         string `header:"X-Language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language tag, e.g. en or hi: names and descriptions come from the translations in it, else the base text" example:"en"`
	APIVersionHeader string `header:"X-Api-Version" maxLength:"16" doc:"2 answers shape B, as api-version=2 does"`
}

type brandsInput struct {
	GiftCard optionalBool `query:"giftCard" doc:"true: only brands with gift cards; false: only brands with other rewards; left out: all"`
	Category string       `query:"category" maxLength:"200" doc:"Only brands in this category (code)"`
	Language string       `header:"X-Language" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Optional language tag: brand names come from the translations in it, else the base name" example:"en"`
	httpapi.GameUUIDHeader
}

type categoriesInput struct {
	APIVersion string `query:"api-version" maxLength:"16" doc:"Accepted; the answer is the same for every version"`
	Language   string `header:"X-Language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language tag, e.g. en or hi: names come from the translations in it, else the base name" example:"en"`
	httpapi.GameUUIDHeader
}

type fetchInput struct {
	RewardID string `path:"rewardId" doc:"Reward id"`
	CoinID   string `query:"coinId" required:"true" doc:"The coin that prices the reward: one of the key's game (404 COIN_NOT_FOUND otherwise)"`
	Version  string `query:"version" maxLength:"16" doc:"Accepted; the answer is the same for every version"`
	Language string `header:"X-Language" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Optional language tag: names and descriptions come from the translations in it, else the base text" example:"en"`
	httpapi.GameUUIDHeader
}

type linkInput struct {
	RewardID string `path:"rewardId" doc:"Reward id"`
	httpapi.GameUUIDHeader
}

type searchInput struct {
	CoinID   string   `query:"coinId" required:"true" doc:"The coin that prices the rewards: one of the key's game (404 COIN_NOT_FOUND otherwise)"`
	Q        string   `query:"q" required:"true" minLength:"1" maxLength:"200" doc:"What the player typed: matched case-insensitively against reward, brand and category names and descriptions, tolerant to typos and prefixes" example:"amazon"`
	Brand    []string `query:"brand,explode" maxItems:"50" doc:"Only rewards of these brands (exact codes or names; unknown ones are ignored). Repeat the parameter for several"`
	Category []string `query:"category,explode" maxItems:"50" doc:"Only rewards of brands in these categories (exact codes or names; unknown ones are ignored). Repeat the parameter for several"`
	SortBy   string   `query:"sortBy" enum:"relevance,price:low-high,price:high-low,newest,pricing-mode,discount-on-mrp,most-ordered,x-score" default:"relevance" doc:"Order of the rewards: relevance (best match), price:low-high and price:high-low (coin price in coinId), newest, pricing-mode (FIXED before RANGE, then relevance), discount-on-mrp, most-ordered (successful orders in 30 days), x-score"`
	Type     string   `query:"type" enum:"brands,categories,rewards" doc:"Fill only this group (the others are empty); left out: all three"`
	Country  string   `query:"country" pattern:"^[A-Za-z]{2}$" doc:"Only rewards available in this country (ISO 3166-1 alpha-2)" example:"IN"`
	httpapi.PageQuery
	Language string `header:"X-Language" required:"true" pattern:"^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$" doc:"Language tag, e.g. en or hi: names and descriptions come from the translations in it, else the base text" example:"en"`
}

type followInput struct {
	Code string `path:"code" doc:"Short link code"`
}

// ---- Outputs ----

type (
	categoryOutput   = httpapi.Put[CategoryBody]
	brandOutput      = httpapi.Put[BrandBody]
	productOutput    = httpapi.Put[ProductBody]
	rewardOutput     = httpapi.Output[RewardBody]
	rewardsOutput    = httpapi.Output[httpapi.Page[RewardBody]]
	codesOutput      = httpapi.Output[CodesAddedBody]
	gameRewardOutput = httpapi.Output[GameRewardBody]
	syncOutput       = httpapi.Output[SyncBody]
	listOutput       = httpapi.Output[httpapi.Page[RewardListItem]]
	brandsOutput     = httpapi.Output[[]BrandMetadata]
	categoriesOutput = httpapi.Output[[]CategoryMetadata]
	detailOutput     = httpapi.Output[RewardDetailBody]
	linkOutput       = httpapi.Output[LinkBody]
	searchOutput     = httpapi.Output[SearchBody]
	redirectOutput   struct {
		Status       int
		Location     string `header:"Location" doc:"The brand's website with utm_source=rewards"`
		CacheControl string `header:"Cache-Control" doc:"no-store: every click reaches the service and is counted"`
	}
)
