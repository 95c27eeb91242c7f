package touchpointsapi

import (
	"encoding/hex"
	"reflect"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/touchpoints"
)

// ---- 2.0 served touchpoint ----

// ServedAssetBody is the frame to draw.
type ServedAssetBody struct {
	// _ makes the schema nullable: the field it fills is null when there is none.
	_           struct{} `nullable:"true"`
	Source      string   `json:"source" enum:"PRESET,UPLOAD" doc:"PRESET (library) or UPLOAD (studio artwork)"`
	ImageURL    string   `json:"imageUrl" doc:"Frame image address" example:"https://cdn.example.com/frames/gold.png"`
	Orientation string   `json:"orientation" enum:"PORTRAIT,LANDSCAPE" doc:"Frame orientation"`
	Width       int      `json:"width" doc:"Pixels" example:"640"`
	Height      int      `json:"height" doc:"Pixels" example:"360"`
}

// PricingBody is an item's money price.
type PricingBody struct {
	// _ makes the schema nullable: the field it fills is null when there is none.
	_               struct{} `nullable:"true"`
	Currency        string   `json:"currency" doc:"Deployment currency" example:"INR"`
	MRP             float64  `json:"mrp" doc:"Maximum retail price, in units" example:"1000"`
	Price           float64  `json:"price" doc:"Selling price, in units" example:"800"`
	PriceAfterCoins float64  `json:"priceAfterCoins" doc:"Price less coinDiscount, in units" example:"600"`
	DiscountPct     float64  `json:"discountPct" doc:"(mrp − price) / mrp, percent" example:"20"`
}

// CoinsBody is what the game's touchpoint coin can pay.
type CoinsBody struct {
	CoinID        string  `json:"coinId" doc:"The game's touchpoint coin"`
	CoinName      string  `json:"coinName" doc:"Its name" example:"Gems"`
	CoinImageURL  string  `json:"coinImageUrl" doc:"Its image"`
	CoinsRequired int64   `json:"coinsRequired" doc:"ceil(coinDiscount × coinsPerUnit)" example:"2000"`
	CoinDiscount  float64 `json:"coinDiscount" doc:"Money the coins pay, in units: the share coins may pay, capped by the player's balance when a player token is sent" example:"200"`
}

// CTABody is the served call to action.
type CTABody struct {
	Label string `json:"label" doc:"Button copy" example:"Shop now"`
	URL   string `json:"url" doc:"{storeUrl}/rewards/{item.id} with the request's utm parameters" example:"https://store.example.com/rewards/sku-1?utm_source=game"`
}

// ServedItemBody is the offer.
type ServedItemBody struct {
	// _ makes the schema nullable: the field it fills is null when there is none.
	_         struct{}     `nullable:"true"`
	Type      string       `json:"type" enum:"PRODUCT,COUPON,GIFT_CARD" doc:"Kind of offer"`
	ID        string       `json:"id" doc:"Reward id (coupons, gift cards) or product id"`
	Title     string       `json:"title" doc:"Name"`
	Subtitle  string       `json:"subtitle" doc:"Campaign subtitle (rewards) or category (products)"`
	BrandName string       `json:"brandName" doc:"Brand"`
	ImageURL  string       `json:"imageUrl" doc:"Offer art, drawn in the centre of the frame"`
	OfferText string       `json:"offerText,omitempty" doc:"Coupons only: headline to display as given"`
	Pricing   *PricingBody `json:"pricing" doc:"Null for coupons and for product prices over 24 h old: render without a price"`
	Coins     *CoinsBody   `json:"coins,omitempty" doc:"Omitted when the game has no coin or the coin can pay nothing"`
	CTA       CTABody      `json:"cta"`
}

// ServedBody is a served 2.0 touchpoint. asset and item are both present or both null.
type ServedBody struct {
	Screen      string           `json:"screen" doc:"Echo of the requested screen" example:"home"`
	PlacementID *string          `json:"placementId" doc:"The placement served; null when the screen has no active placement"`
	Asset       *ServedAssetBody `json:"asset" doc:"The frame; null when there is nothing to show"`
	Item        *ServedItemBody  `json:"item" doc:"The offer; null when there is nothing to show"`
	ServedAt    time.Time        `json:"servedAt" doc:"When it was served"`
}

func toServedBody(s touchpoints.Served) ServedBody {
	out := ServedBody{Screen: s.Screen, ServedAt: s.ServedAt.UTC()}
	if s.PlacementID != nil {
		id := s.PlacementID.String()
		out.PlacementID = &id
	}
	if s.Asset == nil || s.Item == nil {
		return out
	}
	a := s.Asset
	out.Asset = &ServedAssetBody{Source: a.Source, ImageURL: a.ImageURL, Orientation: a.Orientation, Width: a.Width, Height: a.Height}
	it := s.Item
	item := &ServedItemBody{Type: it.Type, ID: it.ID, Title: it.Title, Subtitle: it.Subtitle, BrandName: it.BrandName,
		ImageURL: it.ImageURL, OfferText: it.OfferText, CTA: CTABody{Label: it.CTALabel, URL: it.CTAURL}}
	if p := it.Pricing; p != nil {
		item.Pricing = &PricingBody{Currency: p.Currency, MRP: p.MRP.Units(), Price: p.Price.Units(),
			PriceAfterCoins: p.PriceAfterCoins.Units(), DiscountPct: p.DiscountPct.Float()}
	}
	if c := it.Coins; c != nil {
		item.Coins = &CoinsBody{CoinID: c.CoinID.String(), CoinName: c.CoinName, CoinImageURL: c.CoinImageURL,
			CoinsRequired: c.CoinsRequired, CoinDiscount: c.CoinDiscount.Units()}
	}
	out.Item = item
	return out
}

// ---- 1.0 trees ----

// FillBody is a node's background or overlay.
type FillBody struct {
	Color    string   `json:"color,omitempty" maxLength:"256" doc:"Colour" example:"#1A1A2E"`
	Gradient string   `json:"gradient,omitempty" maxLength:"2048" doc:"Gradient"`
	Images   []string `json:"images,omitempty" maxItems:"20" doc:"Image addresses"`
	Opacity  *float64 `json:"opacity,omitempty" minimum:"0" maximum:"1" doc:"0 to 1"`
}

// TextItemBody is one run of a title or subtitle.
type TextItemBody struct {
	Text       string  `json:"text,omitempty" maxLength:"2048" doc:"Text"`
	Color      string  `json:"color,omitempty" maxLength:"256" doc:"Colour"`
	FontWeight string  `json:"fontWeight,omitempty" maxLength:"64" doc:"Font weight"`
	FontSize   float64 `json:"fontSize,omitempty" minimum:"0" maximum:"1000" doc:"Font size"`
	Icon       string  `json:"icon,omitempty" maxLength:"2048" doc:"Icon address"`
}

// BadgeBody is a node's badge.
type BadgeBody struct {
	Text            string         `json:"text,omitempty" maxLength:"2048" doc:"Badge text"`
	BackgroundImage string         `json:"backgroundImage,omitempty" maxLength:"2048" doc:"Background image address"`
	Icon            string         `json:"icon,omitempty" maxLength:"2048" doc:"Icon address"`
	Style           map[string]any `json:"style,omitempty" doc:"Free-form style"`
}

// NodeCTABody is a node's call to action.
type NodeCTABody struct {
	Text            string         `json:"text,omitempty" maxLength:"2048" doc:"Button text"`
	Action          string         `json:"action,omitempty" maxLength:"4096" doc:"Not interpreted by the service: a store address opens a store page; anything else is a game route"`
	BackgroundImage string         `json:"backgroundImage,omitempty" maxLength:"2048" doc:"Background image address"`
	FrontImage      string         `json:"frontImage,omitempty" maxLength:"2048" doc:"Front image address"`
	Style           map[string]any `json:"style,omitempty" doc:"Free-form style"`
}

// QueryBody is a DYNAMIC node's query.
type QueryBody struct {
	Type     string `json:"type" enum:"rewards,products" doc:"What to list: rewards the game's players see, or active products"`
	Category string `json:"category,omitempty" maxLength:"128" doc:"Only this category (a category code for rewards, the product's category for products)"`
	Brand    string `json:"brand,omitempty" maxLength:"128" doc:"Only this brand (a brand code for rewards, the brand name for products)"`
	SortBy   string `json:"sortBy,omitempty" enum:"DEFAULT,NEWEST,PRICE_LOW_HIGH,PRICE_HIGH_LOW,DISCOUNT" doc:"Order; DEFAULT is x-score (rewards) or rating (products), best first"`
	Limit    int    `json:"limit,omitempty" minimum:"0" maximum:"20" doc:"At most 20; default 10"`
}

// NodeBody is a node of a 1.0 tree ("the service" of the spec).
type NodeBody struct {
	ID               string         `json:"id,omitempty" doc:"UUID; unique in the tree (given when left out on input)"`
	DisplayOrder     int            `json:"displayOrder" required:"false" doc:"Sort order among siblings; clients sort ascending; default 0"`
	Background       *FillBody      `json:"background,omitempty"`
	Overlay          *FillBody      `json:"overlay,omitempty"`
	Images           []string       `json:"images,omitempty" maxItems:"50" doc:"Image addresses"`
	AdditionalAssets []string       `json:"additionalAssets,omitempty" maxItems:"50" doc:"Image addresses"`
	Title            []TextItemBody `json:"title,omitempty" maxItems:"20"`
	Subtitle         []TextItemBody `json:"subtitle,omitempty" maxItems:"20"`
	Badge            *BadgeBody     `json:"badge,omitempty"`
	CTA              *NodeCTABody   `json:"cta,omitempty"`
	DataType         string         `json:"dataType,omitempty" enum:"ASSET,STATIC,DYNAMIC" doc:"ASSET (default), STATIC or DYNAMIC"`
	RewardID         string         `json:"rewardId,omitempty" doc:"Linked reward (STATIC)"`
	ProductID        string         `json:"productId,omitempty" maxLength:"128" doc:"Linked product (STATIC)"`
	LayoutHint       string         `json:"layoutHint,omitempty" maxLength:"256" doc:"Template name agreed with the operator"`
	StyleHint        map[string]any `json:"styleHint,omitempty" doc:"Free-form style"`
	Query            *QueryBody     `json:"query,omitempty" doc:"DYNAMIC only (operator input; never served)"`
	ActionPrefix     string         `json:"actionPrefix,omitempty" maxLength:"2048" doc:"DYNAMIC only: cta.action of each generated node is actionPrefix + item id (operator input; never served)"`
	Data             any            `json:"data,omitempty" doc:"Served only, when coinId was sent: a HydratedReward or a HydratedProduct. Ignored on input."`
	Nodes            []NodeBody     `json:"nodes,omitempty" maxItems:"500" doc:"Children"`
	Popup            *NodeBody      `json:"popup,omitempty" doc:"Shown when this node is tapped; never DYNAMIC"`
}

// documentNodeData documents NodeBody.data as NodeData, one of the two hydrated shapes told
// apart by their `type` (a discriminator, so that generated clients decode each node's data
// as the one shape it is). NodeData is a schema of its own: generators name an inline oneOf
// after its field ("NodeBodyData") and its variants' enum after that ("NodeBodyDataType"),
// which is already the name of the dataType enum. The field is an interface value rather than
// a type with MarshalJSON, which encoding/json would re-read and compact: that was a sixth of
// a tree read's cost.
func documentNodeData(r huma.Registry) {
	node := r.Map()["NodeBody"]
	if node == nil {
		return
	}
	reward := r.Schema(reflect.TypeFor[HydratedReward](), true, "HydratedReward")
	product := r.Schema(reflect.TypeFor[HydratedProduct](), true, "HydratedProduct")
	r.Map()["NodeData"] = &huma.Schema{
		Description: "Served only, when coinId was sent: a HydratedReward (type REWARD, on a node with rewardId) or a HydratedProduct (type PRODUCT, on a node with productId). Ignored on input.",
		OneOf:       []*huma.Schema{reward, product},
		Discriminator: &huma.Discriminator{PropertyName: "type", Mapping: map[string]string{
			hydratedRewardType: reward.Ref, hydratedProductType: product.Ref,
		}},
	}
	node.Properties["data"] = &huma.Schema{Ref: "#/components/schemas/NodeData"}
}

// The type of each hydrated shape, NodeData's discriminator.
const (
	hydratedRewardType  = "REWARD"
	hydratedProductType = "PRODUCT"
)

// HydratedRewardMetadata is a hydrated reward's texts and images.
type HydratedRewardMetadata struct {
	BrandName              string   `json:"brandName" doc:"Brand name"`
	BrandLogoImage         string   `json:"brandLogoImage" doc:"Brand logo address"`
	CampaignTitle          string   `json:"campaignTitle" doc:"Campaign title"`
	CampaignSubTitle       string   `json:"campaignSubTitle" doc:"Campaign subtitle"`
	CampaignCoverImage     string   `json:"campaignCoverImage" doc:"Cover image address"`
	CampaignDetails        string   `json:"campaignDetails" doc:"Campaign details"`
	TermsAndConditions     string   `json:"termsAndConditions" doc:"Terms and conditions"`
	HowToRedeem            string   `json:"howToRedeem" doc:"How to redeem"`
	BrandRedirectionLink   string   `json:"brandRedirectionLink" doc:"The brand's website"`
	CouponExpiryDate       string   `json:"couponExpiryDate" doc:"The reward's end date (ISO 8601), empty when none"`
	Type                   string   `json:"type" doc:"Reward type" example:"GIFT_CARD"`
	BrandCategory          []string `json:"brandCategory" doc:"The brand's category codes"`
	CouponExpiryDateExists bool     `json:"couponExpiryDateExists" doc:"Whether couponExpiryDate is set"`
}

// HydratedInventory is a hydrated reward's stock.
type HydratedInventory struct {
	AvailableQuantity int64  `json:"availableQuantity" doc:"Unused codes of a coupon with a pool; -1 unlimited" example:"-1"`
	Type              string `json:"type" enum:"LIMITED,UNLIMITED" doc:"LIMITED for a coupon's code pool"`
}

// HydratedPrice is a reward's coin price.
type HydratedPrice struct {
	Amount float64 `json:"amount" doc:"Coin price of the smallest face value" example:"900"`
	CoinID string  `json:"coinId" doc:"The coin asked for"`
}

// HydratedReward is a node's reward data.
type HydratedReward struct {
	Type                 string                 `json:"type" enum:"REWARD" doc:"Always REWARD: tells a reward's data from a product's"`
	ID                   string                 `json:"id" doc:"Reward id"`
	BrandID              string                 `json:"brandId" doc:"Brand code"`
	BrandName            string                 `json:"brandName" doc:"Brand name"`
	OrganizationID       string                 `json:"organizationId" doc:"The brand's issuer"`
	IsActive             bool                   `json:"isActive" doc:"Whether the game's players see it now"`
	BrandRedirectionLink string                 `json:"brandRedirectionLink" doc:"The brand's website"`
	Metadata             HydratedRewardMetadata `json:"metadata"`
	Inventory            HydratedInventory      `json:"inventory"`
	Price                []HydratedPrice        `json:"price"`
}

// HydratedProduct is a node's product data.
type HydratedProduct struct {
	ID                          string  `json:"id" doc:"Product id"`
	Type                        string  `json:"type" enum:"PRODUCT" doc:"Always PRODUCT: tells a product's data from a reward's"`
	ProductID                   string  `json:"productId" doc:"Product id"`
	Name                        string  `json:"name" doc:"Name"`
	BrandName                   string  `json:"brandName" doc:"Brand"`
	ImageURL                    string  `json:"imageUrl" doc:"Image address"`
	HeroImageURL                string  `json:"heroImageUrl" doc:"Hero image address"`
	Category                    string  `json:"category" doc:"Category"`
	Rating                      float64 `json:"rating" doc:"0 to 5"`
	ListingPrice                float64 `json:"listingPrice" doc:"Original price, in units"`
	DiscountedListingPrice      float64 `json:"discountedListingPrice" doc:"Final price, in units"`
	MRP                         float64 `json:"mrp" doc:"Maximum retail price, in units"`
	DiscountPercent             float64 `json:"discountPercent" doc:"(mrp − discountedListingPrice) / mrp, percent"`
	CoinSpread                  float64 `json:"coinSpread" doc:"Share of the final price coins may pay (maxCoinDiscountPct), percent"`
	CoinRequiredForDiscount     int64   `json:"coinRequiredForDiscount" doc:"Coins the player's balance puts towards the discount (with a player token; otherwise coinsRequiredForMaxDiscount)"`
	CoinsRequiredForMaxDiscount int64   `json:"coinsRequiredForMaxDiscount" doc:"Coins that pay the whole share: ceil(share × coinsPerUnit)"`
}

// TouchpointBody is a 1.0 touchpoint.
type TouchpointBody struct {
	ID        string     `json:"id" doc:"Touchpoint id"`
	GameID    string     `json:"gameId" doc:"The game"`
	Name      string     `json:"name" doc:"Unique per game, case sensitive" example:"Home"`
	UpdatedAt time.Time  `json:"updatedAt" doc:"Last change"`
	Nodes     []NodeBody `json:"nodes" doc:"Root nodes"`
}

// TouchpointListBody is the list of a game's touchpoints.
type TouchpointListBody struct {
	Touchpoints []TouchpointBody `json:"touchpoints" doc:"The trees of this page, by name"`
	Total       int              `json:"total" doc:"The game's trees in all"`
	Page        int              `json:"page" doc:"Page number, from 1"`
	Limit       int              `json:"limit" doc:"Most trees a page holds"`
	HasMore     bool             `json:"hasMore" doc:"Whether trees follow this page"`
}

func toTouchpointBody(t touchpoints.Tree) TouchpointBody {
	return TouchpointBody{ID: t.ID.String(), GameID: t.GameID.String(), Name: t.Name, UpdatedAt: t.UpdatedAt.UTC(),
		Nodes: newNodeBodies(t.Nodes).list(t.Nodes)}
}

func toCoreFill(f *FillBody) *touchpoints.Fill {
	if f == nil {
		return nil
	}
	return &touchpoints.Fill{Color: f.Color, Gradient: f.Gradient, Images: f.Images, Opacity: f.Opacity}
}

func toCoreTexts(list []TextItemBody) []touchpoints.TextItem {
	if list == nil {
		return nil
	}
	out := make([]touchpoints.TextItem, len(list))
	for i, t := range list {
		out[i] = touchpoints.TextItem(t)
	}
	return out
}

// nodeBodies converts the nodes of one answer. A served tree is hundreds of small values (a
// 77-node tree with 30 hydrated rewards was over 400 allocations), so the bodies are cut from
// slabs sized for the answer, and the shapes that are the core's own (fills, badges, calls to
// action, queries) are the core's values seen as bodies: the answer only reads them.
type nodeBodies struct {
	nodeSlab   []NodeBody
	textSlab   []TextItemBody
	rewardSlab []HydratedReward
	priceSlab  []HydratedPrice
	// ids holds the text of every id of the answer, each id's string a part of it: a
	// strings.Builder never changes what it has written, so the strings it gave stay as they
	// were while it grows.
	ids strings.Builder
	// coin and coinID: the id of the coin prices are in, written once.
	coin   uuid.UUID
	coinID string
}

// newNodeBodies returns the converter of nodes, its slabs sized for them.
func newNodeBodies(nodes []touchpoints.Node) *nodeBodies {
	var n, texts, rewards, ids int
	var count func(list []touchpoints.Node)
	var one func(k *touchpoints.Node)
	one = func(k *touchpoints.Node) {
		n++
		ids++
		texts += len(k.Title) + len(k.Subtitle)
		if k.RewardID != nil {
			ids++
		}
		if k.Data != nil && k.Data.Reward != nil {
			rewards++
			ids++
		}
		count(k.Nodes)
		if k.Popup != nil {
			one(k.Popup)
		}
	}
	count = func(list []touchpoints.Node) {
		for i := range list {
			one(&list[i])
		}
	}
	count(nodes)
	c := &nodeBodies{nodeSlab: make([]NodeBody, n), textSlab: make([]TextItemBody, texts),
		rewardSlab: make([]HydratedReward, rewards), priceSlab: make([]HydratedPrice, rewards)}
	c.ids.Grow((ids + 1) * uuidLen) // and the coin's
	return c
}

// uuidLen is the length of a uuid's text.
const uuidLen = 36

// id is the text of id (as uuid.UUID.String writes it), in c.ids.
func (c *nodeBodies) id(id uuid.UUID) string {
	var b [uuidLen]byte
	hex.Encode(b[0:8], id[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], id[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], id[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], id[8:10])
	b[23] = '-'
	hex.Encode(b[24:], id[10:])
	start := c.ids.Len()
	c.ids.Write(b[:])
	return c.ids.String()[start:]
}

// take cuts n values off a slab, or makes them when the slab is short.
func take[T any](slab *[]T, n int) []T {
	if len(*slab) < n {
		return make([]T, n)
	}
	out := (*slab)[:n:n]
	*slab = (*slab)[n:]
	return out
}

func (c *nodeBodies) list(list []touchpoints.Node) []NodeBody {
	if list == nil {
		return nil
	}
	out := take(&c.nodeSlab, len(list))
	for i := range list {
		c.node(&out[i], &list[i])
	}
	return out
}

func (c *nodeBodies) texts(list []touchpoints.TextItem) []TextItemBody {
	if list == nil {
		return nil
	}
	out := take(&c.textSlab, len(list))
	for i, t := range list {
		out[i] = TextItemBody(t)
	}
	return out
}

func (c *nodeBodies) node(b *NodeBody, n *touchpoints.Node) {
	*b = NodeBody{ID: c.id(n.ID), DisplayOrder: n.DisplayOrder, Background: (*FillBody)(n.Background), Overlay: (*FillBody)(n.Overlay),
		Images: n.Images, AdditionalAssets: n.AdditionalAssets, Title: c.texts(n.Title), Subtitle: c.texts(n.Subtitle),
		Badge: (*BadgeBody)(n.Badge), CTA: (*NodeCTABody)(n.CTA), DataType: string(n.DataType), ProductID: n.ProductID,
		LayoutHint: n.LayoutHint, StyleHint: n.StyleHint, Query: (*QueryBody)(n.Query), ActionPrefix: n.ActionPrefix,
		Nodes: c.list(n.Nodes)}
	if n.RewardID != nil {
		b.RewardID = c.id(*n.RewardID)
	}
	if n.Popup != nil {
		p := &take(&c.nodeSlab, 1)[0]
		c.node(p, n.Popup)
		b.Popup = p
	}
	if n.Data != nil {
		b.Data = c.data(n.Data)
	}
}

// data is a node's hydrated data: a *HydratedReward or a HydratedProduct (a pointer writes as
// its value).
func (c *nodeBodies) data(d *touchpoints.Data) any {
	r := d.Reward
	if r == nil {
		return toHydratedProduct(d.Product)
	}
	rw, br := &r.Reward, &r.Brand
	expiry := ""
	if rw.EndDate != nil {
		expiry = rw.EndDate.UTC().Format(time.RFC3339)
	}
	inv := HydratedInventory{AvailableQuantity: -1, Type: "UNLIMITED"}
	if r.Free != nil {
		inv = HydratedInventory{AvailableQuantity: *r.Free, Type: "LIMITED"}
	}
	categories := br.Categories
	if categories == nil {
		categories = []string{}
	}
	if c.coinID == "" || c.coin != r.CoinID {
		c.coin, c.coinID = r.CoinID, c.id(r.CoinID)
	}
	price := take(&c.priceSlab, 1)
	price[0] = HydratedPrice{Amount: float64(r.CoinPrice), CoinID: c.coinID}
	h := &take(&c.rewardSlab, 1)[0]
	*h = HydratedReward{Type: hydratedRewardType, ID: c.id(rw.ID), BrandID: br.Code, BrandName: br.Name, OrganizationID: br.OrganizationID(),
		IsActive: r.IsActive, BrandRedirectionLink: br.WebsiteURL,
		Metadata: HydratedRewardMetadata{BrandName: br.Name, BrandLogoImage: br.LogoURL, CampaignTitle: rw.CampaignTitle,
			CampaignSubTitle: rw.CampaignSubTitle, CampaignCoverImage: rw.CoverImage, CampaignDetails: rw.CampaignDetails,
			TermsAndConditions: rw.TermsAndConditions, HowToRedeem: rw.HowToRedeem, BrandRedirectionLink: br.WebsiteURL,
			CouponExpiryDate: expiry, Type: string(rw.Type), BrandCategory: categories, CouponExpiryDateExists: rw.EndDate != nil},
		Inventory: inv, Price: price}
	return h
}

func toHydratedProduct(p *touchpoints.ProductData) HydratedProduct {
	pr := p.Product
	return HydratedProduct{ID: pr.ID, Type: hydratedProductType, ProductID: pr.ID, Name: pr.Name, BrandName: pr.BrandName,
		ImageURL: pr.ImageURL, HeroImageURL: pr.HeroImageURL, Category: pr.Category, Rating: pr.Rating,
		ListingPrice: pr.ListingPrice.Units(), DiscountedListingPrice: pr.DiscountedListingPrice.Units(), MRP: pr.MRP.Units(),
		DiscountPercent: p.Pricing.DiscountPct.Float(), CoinSpread: pr.MaxCoinDiscountPct.Float(),
		CoinRequiredForDiscount: p.CoinsForDiscount, CoinsRequiredForMaxDiscount: p.CoinsForMax}
}

// toCoreNodes converts input nodes; a malformed id is reported with its path.
func toCoreNodes(list []NodeBody) ([]touchpoints.Node, error) {
	if list == nil {
		return nil, nil
	}
	out := make([]touchpoints.Node, len(list))
	for i, b := range list {
		n, err := toCoreNode(b)
		if err != nil {
			return nil, err
		}
		out[i] = n
	}
	return out, nil
}

func toCoreNode(b NodeBody) (touchpoints.Node, error) {
	n := touchpoints.Node{DisplayOrder: b.DisplayOrder, Background: toCoreFill(b.Background), Overlay: toCoreFill(b.Overlay),
		Images: b.Images, AdditionalAssets: b.AdditionalAssets, Title: toCoreTexts(b.Title), Subtitle: toCoreTexts(b.Subtitle),
		DataType: touchpoints.DataType(b.DataType), ProductID: b.ProductID, LayoutHint: b.LayoutHint, StyleHint: b.StyleHint,
		ActionPrefix: b.ActionPrefix}
	if b.ID != "" {
		id, err := uuid.Parse(b.ID)
		if err != nil {
			return n, errBadID("id", b.ID)
		}
		n.ID = id
	}
	if b.RewardID != "" {
		id, err := uuid.Parse(b.RewardID)
		if err != nil {
			return n, errBadID("rewardId", b.RewardID)
		}
		n.RewardID = &id
	}
	if b.Badge != nil {
		bb := touchpoints.Badge(*b.Badge)
		n.Badge = &bb
	}
	if b.CTA != nil {
		c := touchpoints.CTA(*b.CTA)
		n.CTA = &c
	}
	if b.Query != nil {
		q := touchpoints.Query(*b.Query)
		n.Query = &q
	}
	var err error
	if n.Nodes, err = toCoreNodes(b.Nodes); err != nil {
		return n, err
	}
	if b.Popup != nil {
		p, err := toCoreNode(*b.Popup)
		if err != nil {
			return n, err
		}
		n.Popup = &p
	}
	return n, nil
}

// ---- Operator ----

// LibraryAssetBody is a PRESET frame of the library.
type LibraryAssetBody struct {
	ID          string `json:"id" doc:"Asset id" example:"gold-frame"`
	Name        string `json:"name" doc:"Name" example:"Gold frame"`
	ImageURL    string `json:"imageUrl" doc:"Frame image address"`
	Orientation string `json:"orientation" enum:"PORTRAIT,LANDSCAPE" doc:"Orientation"`
	Width       int    `json:"width" doc:"Pixels"`
	Height      int    `json:"height" doc:"Pixels"`
}

func toLibraryAssetBody(a touchpoints.PresetAsset) LibraryAssetBody { return LibraryAssetBody(a) }

// PlacementAssetBody is a placement's frame.
type PlacementAssetBody struct {
	Source      string `json:"source" enum:"PRESET,UPLOAD" doc:"PRESET: a library asset (presetId); UPLOAD: the studio's artwork (imageUrl, orientation, width, height)"`
	PresetID    string `json:"presetId,omitempty" maxLength:"64" doc:"PRESET: the library asset" example:"gold-frame"`
	ImageURL    string `json:"imageUrl,omitempty" maxLength:"2048" doc:"UPLOAD: absolute http(s) address of the frame (read from the library for PRESET)"`
	Orientation string `json:"orientation,omitempty" enum:"PORTRAIT,LANDSCAPE" doc:"UPLOAD: orientation"`
	Width       int    `json:"width,omitempty" minimum:"0" maximum:"10000" doc:"UPLOAD: pixels"`
	Height      int    `json:"height,omitempty" minimum:"0" maximum:"10000" doc:"UPLOAD: pixels"`
}

// RuleBody picks the best catalogue item of the placement's type.
type RuleBody struct {
	Category string `json:"category,omitempty" maxLength:"128" doc:"Only this category (code for rewards, category for products)"`
	Brand    string `json:"brand,omitempty" maxLength:"128" doc:"Only this brand (code for rewards, brand name for products)"`
	SortBy   string `json:"sortBy,omitempty" enum:"DEFAULT,NEWEST,PRICE_LOW_HIGH,PRICE_HIGH_LOW,DISCOUNT" doc:"Order; DEFAULT is x-score (rewards) or rating (products), best first; prices are money prices"`
}

// PlacementItemBody is what a placement offers.
type PlacementItemBody struct {
	RewardID  string    `json:"rewardId,omitempty" doc:"coupon and gift-card placements: the reward (of that type)"`
	ProductID string    `json:"productId,omitempty" maxLength:"128" doc:"product placements: the product"`
	Rule      *RuleBody `json:"rule,omitempty" doc:"The best item by this rule stands in when there is no configured item or it is inactive or out of stock"`
}

// PlacementBody is a 2.0 placement.
type PlacementBody struct {
	ID          string             `json:"id" doc:"Placement id"`
	GameID      string             `json:"gameId" doc:"The game"`
	Environment string             `json:"environment" enum:"live,test" doc:"Environment"`
	Screen      string             `json:"screen" doc:"Screen" example:"home"`
	Type        string             `json:"type" enum:"product,coupon,gift-card" doc:"Kind of offer"`
	Asset       PlacementAssetBody `json:"asset"`
	Item        PlacementItemBody  `json:"item"`
	IsActive    bool               `json:"isActive" doc:"Inactive placements are not served"`
	UpdatedAt   time.Time          `json:"updatedAt" doc:"Last change"`
}

// ToPlacementBody is a placement as the operator and studio APIs show it.
func ToPlacementBody(p touchpoints.Placement) PlacementBody {
	b := PlacementBody{ID: p.ID.String(), GameID: p.GameID.String(), Environment: string(p.Environment), Screen: p.Screen,
		Type: string(p.Type), IsActive: p.IsActive, UpdatedAt: p.UpdatedAt.UTC(),
		Asset: PlacementAssetBody{Source: p.Asset.Source, PresetID: p.Asset.PresetID, ImageURL: p.Asset.ImageURL,
			Orientation: p.Asset.Orientation, Width: p.Asset.Width, Height: p.Asset.Height},
		Item: PlacementItemBody{ProductID: p.ProductID}}
	if p.RewardID != nil {
		b.Item.RewardID = p.RewardID.String()
	}
	if p.Rule != nil {
		r := RuleBody(*p.Rule)
		b.Item.Rule = &r
	}
	return b
}
