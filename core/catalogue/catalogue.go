package catalogue

import (
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
)

// Type is the kind of a reward.
type Type string

// The reward types.
const (
	GiftCard      Type = "GIFT_CARD"
	Coupon        Type = "COUPON"
	DigitalCredit Type = "DIGITAL_CREDIT"
	Physical      Type = "PHYSICAL"
)

// Valid reports whether t is one of the reward types.
func (t Type) Valid() bool {
	switch t {
	case GiftCard, Coupon, DigitalCredit, Physical:
		return true
	}
	return false
}

// denominated reports whether rewards of type t are priced by face value with a discount
// (gift cards and digital credits) rather than by an mrp and a selling price.
func (t Type) denominated() bool { return t == GiftCard || t == DigitalCredit }

// ValueType is how a reward's value is chosen.
type ValueType string

// The value types.
const (
	// Fixed rewards offer a list of face values (one, for coupons and goods).
	Fixed ValueType = "FIXED"
	// Range rewards take any face value from MinValue to MaxValue.
	Range ValueType = "RANGE"
)

// codePattern is the shape of brand and category codes.
var codePattern = regexp.MustCompile(`^[A-Z0-9_]{2,64}$`)

// ValidCode reports whether code is a well-formed brand or category code.
func ValidCode(code string) bool { return codePattern.MatchString(code) }

// Text is a name and description in one language.
type Text struct {
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
}

// Translations map a language tag ("hi", "ta", "pt-BR") to the texts in that language.
type Translations map[string]Text

// Localise returns name and description in lang, each falling back to the base text.
func (t Translations) Localise(lang, name, description string) (string, string) {
	if tr, ok := t[lang]; ok {
		if tr.Name != "" {
			name = tr.Name
		}
		if tr.Description != "" {
			description = tr.Description
		}
	}
	return name, description
}

// Category groups brands.
type Category struct {
	Code         string
	Name         string
	ImageURL     string
	DisplayOrder int
	Translations Translations
}

// Brand issues rewards.
type Brand struct {
	Code        string
	Name        string
	Description string
	LogoURL     string
	WebsiteURL  string
	// Issuer is the organisation behind the brand (organizationId); the code unless set.
	Issuer     string
	Categories []string
	// Countries are ISO 3166-1 alpha-2 codes; empty means everywhere.
	Countries    []string
	IsActive     bool
	Translations Translations
	// ProviderCode is the voucher provider's code of a brand its catalogue brought in.
	ProviderCode string
}

// OrganizationID is the brand's issuer, or its code when none is set.
func (b Brand) OrganizationID() string {
	if b.Issuer != "" {
		return b.Issuer
	}
	return b.Code
}

// Reward is something a player can buy with coins.
type Reward struct {
	ID                 uuid.UUID
	Type               Type
	BrandCode          string
	Name               string
	Description        string
	CampaignTitle      string
	CampaignSubTitle   string
	CampaignDetails    string
	TermsAndConditions string
	HowToRedeem        string
	CoverImage         string
	Assets             map[string]string
	// Countries are ISO 3166-1 alpha-2 codes; empty means everywhere.
	Countries []string
	EndDate   *time.Time
	// The flags sit side by side: 16 bytes less in each reward the read model holds.
	IsActive bool
	// HasSharedCode says a coupon gives every buyer the same code.
	HasSharedCode            bool
	FlagAllowStudioEditPrice bool

	ValueType ValueType
	// Denominations are the face values of a FIXED gift card or credit, ascending.
	Denominations []money.Amount
	// MinValue and MaxValue bound the face value of a RANGE gift card or credit.
	MinValue, MaxValue money.Amount
	// DiscountPct is the discount on face value of a gift card or credit.
	DiscountPct money.Pct
	// MRP and SellingPrice price a coupon or physical good.
	MRP, SellingPrice money.Amount

	// PurchaseCooldown is how long a player waits between two purchases of the reward.
	PurchaseCooldown time.Duration
	XScore           float64
	Translations     Translations
	// ProviderProductID is the voucher provider's product of a gift card its catalogue
	// brought in.
	ProviderProductID string
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// IsPool reports whether the reward is fulfilled from its pool of codes: a coupon without a
// shared code, or a gift card or credit the operator made (no provider product). Its stock is
// its free codes.
func (r Reward) IsPool() bool {
	return r.Type != Physical && !r.HasSharedCode && r.ProviderProductID == ""
}

// NextPurchaseAt returns when a player who last bought the reward at last (nil: never) may buy
// it again, and whether that is after now: the player is in the reward's purchase cooldown. The
// fetch shows it and a purchase refuses it, both through this one rule.
func (r Reward) NextPurchaseAt(last *time.Time, now time.Time) (time.Time, bool) {
	if r.PurchaseCooldown <= 0 || last == nil {
		return time.Time{}, false
	}
	next := last.Add(r.PurchaseCooldown)
	return next, next.After(now)
}

// Product is a physical good sold for money in the store web, with a coin discount. Products
// feed touchpoints, never /rewards or search.
type Product struct {
	ID                     string
	Name                   string
	BrandName              string
	Category               string
	ImageURL               string
	HeroImageURL           string
	Rating                 float64
	MRP                    money.Amount
	ListingPrice           money.Amount
	DiscountedListingPrice money.Amount
	MaxCoinDiscountPct     money.Pct
	PriceUpdatedAt         time.Time
	IsActive               bool
}

// GameReward is what a game changes of a shared reward.
type GameReward struct {
	GameID   uuid.UUID
	RewardID uuid.UUID
	Hidden   bool
	// CoinPrices are the coin prices the game set for the reward's smallest face value, by
	// coin.
	CoinPrices map[uuid.UUID]int64
}

// Code is a coupon code of a pool.
type Code struct {
	Code   string
	Pin    string
	Expiry *time.Time
}
