package touchpoints

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Screens are the screens placements may be configured for; only home is live.
var Screens = []string{"home"}

// ItemType is the kind of offer a placement shows.
type ItemType string

// The item types of placements.
const (
	TypeProduct  ItemType = "product"
	TypeCoupon   ItemType = "coupon"
	TypeGiftCard ItemType = "gift-card"
)

// Valid reports whether t is one of the item types.
func (t ItemType) Valid() bool { return t == TypeProduct || t == TypeCoupon || t == TypeGiftCard }

// Served is the item type as the served item names it (PRODUCT, COUPON, GIFT_CARD).
func (t ItemType) Served() string {
	switch t {
	case TypeCoupon:
		return "COUPON"
	case TypeGiftCard:
		return "GIFT_CARD"
	}
	return "PRODUCT"
}

// Asset sources and orientations.
const (
	SourcePreset = "PRESET"
	SourceUpload = "UPLOAD"

	Portrait  = "PORTRAIT"
	Landscape = "LANDSCAPE"
)

// PresetAsset is a frame of the library the operator manages; placements with source PRESET
// point at one and are served with its current image.
type PresetAsset struct {
	ID          string
	Name        string
	ImageURL    string
	Orientation string
	Width       int
	Height      int
}

// Asset is a placement's frame.
type Asset struct {
	// Source is PRESET (PresetID names a library asset) or UPLOAD (the studio's artwork).
	Source      string
	PresetID    string
	ImageURL    string
	Orientation string
	Width       int
	Height      int
}

// Sort orders of rules and DYNAMIC queries.
const (
	SortDefault      = "DEFAULT"
	SortNewest       = "NEWEST"
	SortPriceLowHigh = "PRICE_LOW_HIGH"
	SortPriceHighLow = "PRICE_HIGH_LOW"
	SortDiscount     = "DISCOUNT"
)

// SortOrders are the sortBy values rules and queries take.
var SortOrders = []string{SortDefault, SortNewest, SortPriceLowHigh, SortPriceHighLow, SortDiscount}

// Rule picks the best catalogue item of a placement's type: filtered by category and brand,
// first in SortBy order.
type Rule struct {
	Category string
	Brand    string
	SortBy   string
}

// Placement is a 2.0 touchpoint: what one screen of a game shows in one environment.
type Placement struct {
	ID          uuid.UUID
	GameID      uuid.UUID
	Environment studio.Environment
	Screen      string
	Type        ItemType
	Asset       Asset
	// RewardID (coupon, gift-card) or ProductID (product) is the configured item; Rule picks
	// one when there is none or it is inactive or out of stock.
	RewardID  *uuid.UUID
	ProductID string
	Rule      *Rule
	IsActive  bool
	UpdatedAt time.Time
}
