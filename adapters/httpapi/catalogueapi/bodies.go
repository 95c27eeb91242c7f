package catalogueapi

import (
	"encoding/json"
	"reflect"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
)

// The names of the unexported input and output types below are part of the OpenAPI document:
// Huma names an anonymous body after its parent type (putCategoryInput → PutCategoryInputBody),
// so renaming one changes a schema name.

// Money in every body is a JSON number of units of the deployment currency with at most two
// decimals (500, 10.99); percentages are numbers from 0 to 100 with at most two decimals.

// ---- Operator: what the operator writes and reads ----

// TranslationBody is a name and description in one language.
type TranslationBody struct {
	Name        string `json:"name,omitempty" maxLength:"200" doc:"Name in this language; the base name when empty"`
	Description string `json:"description,omitempty" maxLength:"10000" doc:"Description in this language; the base description when empty"`
}

// CategoryBody is a category as the operator API shows it.
type CategoryBody struct {
	Code         string                     `json:"code" doc:"Category code" example:"FOOD"`
	Name         string                     `json:"name" doc:"Name" example:"Food & Dining"`
	ImageURL     string                     `json:"imageUrl" doc:"Image address"`
	DisplayOrder int                        `json:"displayOrder" doc:"Position in the store's list of categories, lowest first"`
	Translations map[string]TranslationBody `json:"translations" doc:"Texts by language tag (hi, ta, pt-BR)"`
}

// BrandBody is a brand as the operator API shows it.
type BrandBody struct {
	Code           string                     `json:"code" doc:"Brand code (brandId in the store)" example:"AMAZON"`
	Name           string                     `json:"name" doc:"Name" example:"Amazon"`
	Description    string                     `json:"description" doc:"Description"`
	LogoURL        string                     `json:"logoUrl" doc:"Logo address"`
	WebsiteURL     string                     `json:"websiteUrl" doc:"The brand's website; GET /r/{code} leads there"`
	Issuer         string                     `json:"issuer" doc:"The organisation behind the brand, if set"`
	OrganizationID string                     `json:"organizationId" doc:"organizationId in the store: the issuer, or the code when none is set"`
	Categories     []string                   `json:"categories" doc:"Category codes"`
	Countries      []string                   `json:"countries" doc:"ISO 3166-1 alpha-2 codes where the brand is available; empty means everywhere"`
	IsActive       bool                       `json:"isActive" doc:"Inactive brands' rewards are not shown"`
	Translations   map[string]TranslationBody `json:"translations" doc:"Texts by language tag"`
}

// RewardBody is a reward as the operator API shows it.
type RewardBody struct {
	ID                       uuid.UUID                  `json:"id" doc:"Reward id (rewardId)"`
	Type                     string                     `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward"`
	BrandCode                string                     `json:"brandCode" doc:"Brand code" example:"AMAZON"`
	Name                     string                     `json:"name" doc:"Name"`
	Description              string                     `json:"description" doc:"Description"`
	CampaignTitle            string                     `json:"campaignTitle" doc:"Campaign title"`
	CampaignSubTitle         string                     `json:"campaignSubTitle" doc:"Campaign subtitle"`
	CampaignDetails          string                     `json:"campaignDetails" doc:"Campaign details"`
	TermsAndConditions       string                     `json:"termsAndConditions" doc:"Terms and conditions"`
	HowToRedeem              string                     `json:"howToRedeem" doc:"How to redeem"`
	CoverImage               string                     `json:"coverImage" doc:"Cover image address"`
	Assets                   map[string]string          `json:"assets" doc:"Named asset addresses"`
	Countries                []string                   `json:"countries" doc:"ISO 3166-1 alpha-2 codes where the reward is available; empty means everywhere"`
	EndDate                  *time.Time                 `json:"endDate" doc:"When the reward stops being shown, or null"`
	IsActive                 bool                       `json:"isActive" doc:"Inactive rewards are not shown"`
	ValueType                string                     `json:"valueType" enum:"FIXED,RANGE" doc:"FIXED: the denominations (one value, the mrp, for coupons and goods); RANGE: any value from minValue to maxValue"`
	Denominations            []float64                  `json:"denominations" doc:"Face values of a FIXED gift card or credit, ascending, in units of the currency"`
	MinValue                 float64                    `json:"minValue" doc:"Smallest face value of a RANGE gift card or credit"`
	MaxValue                 float64                    `json:"maxValue" doc:"Largest face value of a RANGE gift card or credit"`
	DiscountPct              float64                    `json:"discountPct" doc:"Discount on face value of a gift card or credit, percent"`
	MRP                      float64                    `json:"mrp" doc:"Maximum retail price of a coupon or good"`
	SellingPrice             float64                    `json:"sellingPrice" doc:"Selling price of a coupon or good"`
	PurchaseCooldown         int64                      `json:"purchaseCooldown" doc:"Seconds a player waits between two purchases of the reward"`
	XScore                   float64                    `json:"xScore" doc:"Ranking score: higher is shown first in the DEFAULT order"`
	FlagAllowStudioEditPrice bool                       `json:"flagAllowStudioEditPrice" doc:"Whether games may set their own coin prices"`
	Translations             map[string]TranslationBody `json:"translations" doc:"Texts by language tag"`
	HasSharedCode            bool                       `json:"hasSharedCode" doc:"Whether a coupon gives every buyer the same code (sharedCode is never shown)"`
	ProviderProductID        string                     `json:"providerProductId" doc:"The voucher provider's product, for gift cards a sync imported"`
	CreatedAt                time.Time                  `json:"createdAt" doc:"When the reward was created"`
	UpdatedAt                time.Time                  `json:"updatedAt" doc:"When it last changed"`
}

// RewardFields are the fields of a reward besides type, brandCode and name. Every one may be
// left out: creating a reward takes the defaults, changing one keeps what it has.
type RewardFields struct {
	Description              *string                     `json:"description,omitempty" maxLength:"10000" doc:"Description"`
	CampaignTitle            *string                     `json:"campaignTitle,omitempty" maxLength:"10000" doc:"Campaign title"`
	CampaignSubTitle         *string                     `json:"campaignSubTitle,omitempty" maxLength:"10000" doc:"Campaign subtitle"`
	CampaignDetails          *string                     `json:"campaignDetails,omitempty" maxLength:"10000" doc:"Campaign details"`
	TermsAndConditions       *string                     `json:"termsAndConditions,omitempty" maxLength:"10000" doc:"Terms and conditions"`
	HowToRedeem              *string                     `json:"howToRedeem,omitempty" maxLength:"10000" doc:"How to redeem"`
	CoverImage               *string                     `json:"coverImage,omitempty" maxLength:"2048" doc:"Cover image address"`
	Assets                   *map[string]string          `json:"assets,omitempty" maxProperties:"50" doc:"Named asset addresses (campaignAssets in the store)"`
	Countries                *[]string                   `json:"countries,omitempty" maxItems:"250" pattern:"^[A-Z]{2}$" doc:"ISO 3166-1 alpha-2 codes where the reward is available; empty (default) means everywhere" example:"[\"IN\"]"`
	EndDate                  optionalDateTime            `json:"endDate,omitempty" doc:"When the reward stops being shown (RFC 3339); null or left out: never. On PATCH, null removes it"`
	IsActive                 *bool                       `json:"isActive,omitempty" doc:"Inactive rewards are not shown (default true)"`
	ValueType                *string                     `json:"valueType,omitempty" enum:"FIXED,RANGE" doc:"Gift cards and credits: FIXED (denominations, the default) or RANGE (minValue to maxValue). Coupons and goods are always FIXED"`
	Denominations            *[]float64                  `json:"denominations,omitempty" maxItems:"50" minimum:"0" doc:"Face values of a FIXED gift card or credit, in units (at most two decimals), distinct" example:"[500,1000]"`
	MinValue                 *float64                    `json:"minValue,omitempty" minimum:"0" doc:"Smallest face value of a RANGE gift card or credit, in units" example:"100"`
	MaxValue                 *float64                    `json:"maxValue,omitempty" minimum:"0" doc:"Largest face value of a RANGE gift card or credit, in units" example:"10000"`
	DiscountPct              *float64                    `json:"discountPct,omitempty" minimum:"0" maximum:"100" doc:"Discount on face value of a gift card or credit, percent (default 0): a face value d sells for d × (1 − discountPct/100)" example:"5"`
	MRP                      *float64                    `json:"mrp,omitempty" minimum:"0" doc:"Maximum retail price of a coupon or good, in units (required for those)" example:"499"`
	SellingPrice             *float64                    `json:"sellingPrice,omitempty" minimum:"0" doc:"Selling price of a coupon or good, in units, at most mrp (default on creation: the mrp)" example:"399"`
	PurchaseCooldown         *int64                      `json:"purchaseCooldown,omitempty" minimum:"0" maximum:"31622400" doc:"Seconds a player waits between two purchases of the reward (default 0)" example:"86400"`
	XScore                   *float64                    `json:"xScore,omitempty" doc:"Ranking score, higher first in the DEFAULT order (default 0)"`
	FlagAllowStudioEditPrice *bool                       `json:"flagAllowStudioEditPrice,omitempty" doc:"Whether games may set their own coin prices (default false)"`
	Translations             *map[string]TranslationBody `json:"translations,omitempty" doc:"Texts by language tag (hi, ta, pt-BR)"`
	SharedCode               *string                     `json:"sharedCode,omitempty" maxLength:"256" writeOnly:"true" doc:"COUPON only: one code every buyer gets, unlimited. Write-only (responses say hasSharedCode); on PATCH an empty string removes it"`
}

// CodesAddedBody is the answer of adding codes to a pool.
type CodesAddedBody struct {
	Added     int64 `json:"added" doc:"Codes added (codes already in the pool are ignored)" example:"98"`
	Available int64 `json:"available" doc:"Unused codes in the pool now" example:"240"`
}

// ProductBody is a product as the operator API shows it.
type ProductBody struct {
	ID                     string    `json:"id" doc:"Product id" example:"SKU-1001"`
	Name                   string    `json:"name" doc:"Name"`
	BrandName              string    `json:"brandName" doc:"Brand name"`
	Category               string    `json:"category" doc:"Category"`
	ImageURL               string    `json:"imageUrl" doc:"Image address"`
	HeroImageURL           string    `json:"heroImageUrl" doc:"Hero image address"`
	Rating                 float64   `json:"rating" doc:"Rating, 0 to 5"`
	MRP                    float64   `json:"mrp" doc:"Maximum retail price, in units"`
	ListingPrice           float64   `json:"listingPrice" doc:"Listing price, in units"`
	DiscountedListingPrice float64   `json:"discountedListingPrice" doc:"Discounted listing price, in units"`
	MaxCoinDiscountPct     float64   `json:"maxCoinDiscountPct" doc:"Largest share of the price coins may pay, percent"`
	PriceUpdatedAt         time.Time `json:"priceUpdatedAt" doc:"When the prices were last checked"`
	IsActive               bool      `json:"isActive" doc:"Inactive products are not shown"`
}

// GameRewardBody is what a game changed of a reward.
type GameRewardBody struct {
	GameID     uuid.UUID        `json:"gameId" doc:"Game id"`
	RewardID   uuid.UUID        `json:"rewardId" doc:"Reward id"`
	Hidden     bool             `json:"hidden" doc:"Whether the game's players do not see the reward"`
	CoinPrices map[string]int64 `json:"coinPrices" doc:"The game's coin price of the reward's smallest face value, by coin id; other face values scale with it"`
}

// SyncBody counts what a sync with the voucher provider changed.
type SyncBody struct {
	Created     int64 `json:"created" doc:"Gift cards imported for the first time"`
	Updated     int64 `json:"updated" doc:"Gift cards imported before and refreshed"`
	Deactivated int64 `json:"deactivated" doc:"Gift cards the provider no longer has, now inactive"`
}

// ---- Store: what players see ----

// RewardMetadata is the metadata of shape A.
type RewardMetadata struct {
	BrandName          string            `json:"brandName" doc:"Brand name, localised"`
	BrandLogoImage     string            `json:"brandLogoImage" doc:"Brand logo address"`
	CampaignCoverImage string            `json:"campaignCoverImage" doc:"Cover image address"`
	CampaignTitle      string            `json:"campaignTitle" doc:"Campaign title"`
	CampaignSubTitle   string            `json:"campaignSubTitle" doc:"Campaign subtitle"`
	CampaignDetails    string            `json:"campaignDetails" doc:"Campaign details"`
	TermsAndConditions string            `json:"termsAndConditions" doc:"Terms and conditions"`
	HowToRedeem        string            `json:"howToRedeem" doc:"How to redeem"`
	BrandCategory      []string          `json:"brandCategory" doc:"The brand's category codes"`
	CampaignAssets     map[string]string `json:"campaignAssets" doc:"Named asset addresses"`
}

// RewardMetadataB is the metadata of shape B: shape A's plus the expiry date.
type RewardMetadataB struct {
	RewardMetadata
	CampaignExpiryDate *time.Time `json:"campaignExpiryDate" doc:"When the reward stops being offered, or null"`
}

// RewardShapeA is a reward of GET /rewards without api-version 2, and of search.
type RewardShapeA struct {
	ID                       uuid.UUID      `json:"id" doc:"Reward id (rewardId)"`
	Name                     string         `json:"name" doc:"Name, localised by x-language"`
	Description              string         `json:"description" doc:"Description, localised by x-language"`
	Type                     string         `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward"`
	BrandID                  string         `json:"brandId" doc:"Brand code" example:"AMAZON"`
	BrandName                string         `json:"brandName" doc:"Brand name, localised"`
	OrganizationID           string         `json:"organizationId" doc:"The brand's issuer (the brand code unless set)"`
	EndDate                  *time.Time     `json:"endDate" doc:"When the reward stops being offered, or null"`
	Metadata                 RewardMetadata `json:"metadata"`
	AvailableQuantity        int64          `json:"availableQuantity" doc:"What can be bought now: the unused codes of a pool reward (a coupon with a code pool, or a gift card or credit the operator made); for a synced reward the provider's stock (cached up to 60 s; 0 when out of stock, -1 unlimited or unknown); -1 otherwise" example:"-1"`
	Price                    int64          `json:"price" doc:"Coin price of the smallest face value, in coinId's coin" example:"4750"`
	MaxPrice                 int64          `json:"maxPrice" doc:"Coin price of the largest face value (equal to price for one face value)" example:"9500"`
	MinPrice                 int64          `json:"minPrice" doc:"Coin price of the smallest face value" example:"4750"`
	FlagAllowStudioEditPrice bool           `json:"flagAllowStudioEditPrice" doc:"Whether the game may set its own coin prices for the reward"`
}

// InventoryBody says how many of a reward are left.
type InventoryBody struct {
	AvailableQuantity int64  `json:"availableQuantity" doc:"The unused codes of a pool reward; for a synced reward the provider's stock (0 when out of stock, -1 unlimited or unknown); -1 otherwise" example:"-1"`
	Type              string `json:"type" enum:"CODE_POOL,SHARED_CODE,PROVIDER,UNLIMITED" doc:"CODE_POOL: a coupon's own codes, counted; SHARED_CODE: one code for everyone; PROVIDER: the voucher provider's stock (per face value at GET /rewards/fetch/{rewardId}); UNLIMITED"`
}

// PriceBody is a coin price.
type PriceBody struct {
	Amount int64     `json:"amount" doc:"Coins for the smallest face value" example:"4750"`
	CoinID uuid.UUID `json:"coinId" doc:"The coin"`
}

// RewardShapeB is a reward of GET /rewards with api-version 2.
type RewardShapeB struct {
	ID             uuid.UUID       `json:"id" doc:"Reward id (rewardId)"`
	BrandID        string          `json:"brandId" doc:"Brand code" example:"AMAZON"`
	BrandName      string          `json:"brandName" doc:"Brand name, localised"`
	OrganizationID string          `json:"organizationId" doc:"The brand's issuer (the brand code unless set)"`
	Metadata       RewardMetadataB `json:"metadata"`
	Inventory      InventoryBody   `json:"inventory"`
	Price          PriceBody       `json:"price"`
}

// RewardListItem is an item of GET /rewards: a RewardShapeA, or a RewardShapeB when
// api-version 2 is asked for.
type RewardListItem struct {
	shape any
	key   itemKey // what listItems holds its JSON under (itemcache.go)
}

// MarshalJSON writes the shape the item holds.
func (i RewardListItem) MarshalJSON() ([]byte, error) { return json.Marshal(i.shape) }

// EncodedAs implements httpapi.EncodedAs: a page of items is written with one encoder.
func (i RewardListItem) EncodedAs() any { return i.shape }

// EncodedJSON implements httpapi.PreEncoded: the item's JSON, from listItems when it holds it
// for this very shape (itemcache.go).
func (i RewardListItem) EncodedJSON() []byte { return listItems.encoded(i.key, i.shape) }

// Schema documents the item as one of the two shapes.
func (RewardListItem) Schema(r huma.Registry) *huma.Schema {
	return &huma.Schema{
		Description: "Shape A (RewardShapeA) by default; shape B (RewardShapeB) with api-version=2 or x-api-version: 2",
		OneOf: []*huma.Schema{
			r.Schema(reflect.TypeFor[RewardShapeA](), true, "RewardShapeA"),
			r.Schema(reflect.TypeFor[RewardShapeB](), true, "RewardShapeB"),
		},
	}
}

// DenominationBody is one face value of a reward as a player may buy it.
type DenominationBody struct {
	Value     float64 `json:"value" doc:"Face value, in units of the currency" example:"500"`
	Price     int64   `json:"price" doc:"Coin price, in coinId's coin" example:"4750"`
	Available bool    `json:"available" doc:"Whether it is in stock now"`
}

// RewardDetailBody is FetchRewardByIdDto: shape B with the texts, the face values and the
// player's cooldown.
type RewardDetailBody struct {
	RewardShapeB
	Name           string             `json:"name" doc:"Name, localised by x-language"`
	Description    string             `json:"description" doc:"Description, localised by x-language"`
	Type           string             `json:"type" enum:"GIFT_CARD,COUPON,DIGITAL_CREDIT,PHYSICAL" doc:"Kind of reward"`
	ValueType      string             `json:"valueType" enum:"FIXED,RANGE" doc:"FIXED: pick one of denominations; RANGE: any value from minValue to maxValue"`
	Denominations  []DenominationBody `json:"denominations,omitempty" doc:"FIXED only: the face values on offer (a coupon or good has one, its mrp)"`
	MinValue       *float64           `json:"minValue,omitempty" doc:"RANGE only: smallest face value, in units"`
	MaxValue       *float64           `json:"maxValue,omitempty" doc:"RANGE only: largest face value, in units"`
	NextPurchaseAt *time.Time         `json:"nextPurchaseAt" doc:"When the player may buy the reward again; null unless in a cooldown"`
}

// BrandMetadata is BrandMetadataDto.
type BrandMetadata struct {
	Code        string   `json:"code" doc:"Brand code (brandId)" example:"AMAZON"`
	Name        string   `json:"name" doc:"Name, localised" example:"Amazon"`
	LogoURL     string   `json:"logoUrl" doc:"Logo address"`
	Categories  []string `json:"categories" doc:"Category codes"`
	RewardCount int64    `json:"rewardCount" doc:"Rewards of the brand the game's players see" example:"3"`
}

// CategoryMetadata is CategoryMetadataDto.
type CategoryMetadata struct {
	Code        string `json:"code" doc:"Category code" example:"FOOD"`
	Name        string `json:"name" doc:"Name, localised" example:"Food & Dining"`
	ImageURL    string `json:"imageUrl" doc:"Image address"`
	RewardCount int64  `json:"rewardCount" doc:"Rewards in the category the game's players see" example:"12"`
}

// RewardPageA is a page of shape A rewards.
type RewardPageA struct {
	Items []RewardShapeA `json:"items" doc:"The rewards of this page"`
	Page  int            `json:"page" doc:"Page number, from 1"`
	Limit int            `json:"limit" doc:"Page size"`
	Total int64          `json:"total" doc:"Matching rewards in all"`
}

// SearchBody is SearchResponseDto.
type SearchBody struct {
	Brands     []BrandMetadata    `json:"brands" doc:"Brands matching q, best first (at most 20; empty unless type is brands or omitted)"`
	Categories []CategoryMetadata `json:"categories" doc:"Categories matching q, best first (at most 20; empty unless type is categories or omitted)"`
	Rewards    RewardPageA        `json:"rewards" doc:"A page of the rewards matching q, in sortBy order (empty unless type is rewards or omitted)"`
}

// LinkBody holds a short link.
type LinkBody struct {
	URL string `json:"url" doc:"The player's short link to the brand's website" example:"https://rewards.example.com/r/Q7KX2M9PLA"`
}

// optionalDateTime is a date-time a body may send, send as null, or leave out.
type optionalDateTime struct {
	Sent  bool
	Value *time.Time
}

// UnmarshalJSON records that the field was sent, as null or a date-time.
func (o *optionalDateTime) UnmarshalJSON(b []byte) error {
	o.Sent = true
	if string(b) == "null" {
		o.Value = nil
		return nil
	}
	var t time.Time
	if err := json.Unmarshal(b, &t); err != nil {
		return err
	}
	o.Value = &t
	return nil
}

// Schema documents the field as a nullable date-time.
func (optionalDateTime) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Format: "date-time", Nullable: true}
}

// optionalBool is a boolean query parameter that may be left out (nil), unlike a plain bool.
type optionalBool struct {
	Value bool
	Set   bool
}

// Schema documents the parameter as a boolean.
func (optionalBool) Schema(huma.Registry) *huma.Schema { return &huma.Schema{Type: huma.TypeBoolean} }

// Receiver gives Huma the boolean to parse into.
func (o *optionalBool) Receiver() reflect.Value { return reflect.ValueOf(o).Elem().Field(0) }

// OnParamSet records whether the parameter was sent.
func (o *optionalBool) OnParamSet(isSet bool, _ any) { o.Set = isSet }

// ptr is the parameter as the core takes it: nil when it was left out.
func (o optionalBool) ptr() *bool {
	if !o.Set {
		return nil
	}
	v := o.Value
	return &v
}
