package catalogueapi

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
)

// ---- Decoding: transport values into core values ----

// amountAt converts a number of units into money, or answers 400 VALIDATION_FAILED about loc.
func amountAt(ctx context.Context, loc string, units float64) (money.Amount, error) {
	a, err := money.FromUnits(units)
	if err != nil {
		return 0, httpapi.ValidationError(ctx, loc, "must be an amount of money in units from 0 to 1e12 with at most two decimals", units)
	}
	return a, nil
}

// pctAt converts a percentage, or answers 400 VALIDATION_FAILED about loc.
func pctAt(ctx context.Context, loc string, p float64) (money.Pct, error) {
	v, err := money.PctFromFloat(p)
	if err != nil {
		return 0, httpapi.ValidationError(ctx, loc, "must be a percentage from 0 to 100 with at most two decimals", p)
	}
	return v, nil
}

// optionalAmountAt converts a money field that may be left out.
func optionalAmountAt(ctx context.Context, loc string, units *float64) (*money.Amount, error) {
	if units == nil {
		return nil, nil
	}
	a, err := amountAt(ctx, loc, *units)
	return &a, err
}

// set copies *v into *dst when v was sent.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

func toTranslations(m map[string]TranslationBody) catalogue.Translations {
	if m == nil {
		return nil
	}
	t := make(catalogue.Translations, len(m))
	for lang, tr := range m {
		t[lang] = catalogue.Text{Name: tr.Name, Description: tr.Description}
	}
	return t
}

// change decodes the fields sent into the change they ask for: money and percentages are
// checked here (at most two decimals, never negative), every other rule by the core.
func (f *RewardFields) change(ctx context.Context) (catalogue.RewardChange, error) {
	var denominations []money.Amount
	if f.Denominations != nil {
		denominations = make([]money.Amount, len(*f.Denominations))
		for i, d := range *f.Denominations {
			a, err := amountAt(ctx, fmt.Sprintf("body.denominations[%d]", i), d)
			if err != nil {
				return catalogue.RewardChange{}, err
			}
			denominations[i] = a
		}
	}
	var amounts [4]*money.Amount
	for i, field := range []struct {
		loc   string
		units *float64
	}{{"body.minValue", f.MinValue}, {"body.maxValue", f.MaxValue}, {"body.mrp", f.MRP}, {"body.sellingPrice", f.SellingPrice}} {
		a, err := optionalAmountAt(ctx, field.loc, field.units)
		if err != nil {
			return catalogue.RewardChange{}, err
		}
		amounts[i] = a
	}
	minValue, maxValue, mrp, sellingPrice := amounts[0], amounts[1], amounts[2], amounts[3]
	var discount *money.Pct
	if f.DiscountPct != nil {
		p, err := pctAt(ctx, "body.discountPct", *f.DiscountPct)
		if err != nil {
			return catalogue.RewardChange{}, err
		}
		discount = &p
	}
	var translations catalogue.Translations
	if f.Translations != nil {
		translations = toTranslations(*f.Translations)
	}
	apply := func(r *catalogue.Reward) {
		set(&r.Description, f.Description)
		set(&r.CampaignTitle, f.CampaignTitle)
		set(&r.CampaignSubTitle, f.CampaignSubTitle)
		set(&r.CampaignDetails, f.CampaignDetails)
		set(&r.TermsAndConditions, f.TermsAndConditions)
		set(&r.HowToRedeem, f.HowToRedeem)
		set(&r.CoverImage, f.CoverImage)
		set(&r.Assets, f.Assets)
		set(&r.Countries, f.Countries)
		if f.EndDate.Sent {
			r.EndDate = f.EndDate.Value
		}
		set(&r.IsActive, f.IsActive)
		if f.ValueType != nil {
			r.ValueType = catalogue.ValueType(*f.ValueType)
		}
		if f.Denominations != nil {
			r.Denominations = denominations
		}
		set(&r.MinValue, minValue)
		set(&r.MaxValue, maxValue)
		set(&r.DiscountPct, discount)
		set(&r.MRP, mrp)
		set(&r.SellingPrice, sellingPrice)
		if f.PurchaseCooldown != nil {
			r.PurchaseCooldown = time.Duration(*f.PurchaseCooldown) * time.Second
		}
		set(&r.XScore, f.XScore)
		set(&r.FlagAllowStudioEditPrice, f.FlagAllowStudioEditPrice)
		if f.Translations != nil {
			r.Translations = translations
		}
	}
	return catalogue.RewardChange{Apply: apply, SharedCode: f.SharedCode}, nil
}

// newReward decodes a reward to create: what was sent over the defaults (active, FIXED, no
// discount, no cooldown, a coupon or good selling at its mrp).
func (in *createRewardInput) newReward(ctx context.Context) (catalogue.NewReward, error) {
	ch, err := in.Body.change(ctx)
	if err != nil {
		return catalogue.NewReward{}, err
	}
	r := catalogue.Reward{Type: catalogue.Type(in.Body.Type), BrandCode: in.Body.BrandCode, Name: in.Body.Name,
		IsActive: true, ValueType: catalogue.Fixed}
	ch.Apply(&r)
	if in.Body.SellingPrice == nil {
		r.SellingPrice = r.MRP
	}
	n := catalogue.NewReward{Reward: r}
	set(&n.SharedCode, ch.SharedCode)
	return n, nil
}

// change decodes a reward's change: only the fields sent are set.
func (in *updateRewardInput) change(ctx context.Context) (catalogue.RewardChange, error) {
	ch, err := in.Body.RewardFields.change(ctx)
	if err != nil {
		return catalogue.RewardChange{}, err
	}
	rest, b := ch.Apply, in.Body
	ch.Apply = func(r *catalogue.Reward) {
		if b.Type != nil {
			r.Type = catalogue.Type(*b.Type)
		}
		set(&r.BrandCode, b.BrandCode)
		set(&r.Name, b.Name)
		rest(r)
	}
	return ch, nil
}

func (in *putCategoryInput) category() catalogue.Category {
	return catalogue.Category{Code: in.Code, Name: in.Body.Name, ImageURL: in.Body.ImageURL,
		DisplayOrder: in.Body.DisplayOrder, Translations: toTranslations(in.Body.Translations)}
}

func (in *putBrandInput) brand() catalogue.Brand {
	b := catalogue.Brand{Code: in.Code, Name: in.Body.Name, Description: in.Body.Description, LogoURL: in.Body.LogoURL,
		WebsiteURL: in.Body.WebsiteURL, Issuer: in.Body.Issuer, Categories: in.Body.Categories, Countries: in.Body.Countries,
		IsActive: true, Translations: toTranslations(in.Body.Translations)}
	set(&b.IsActive, in.Body.IsActive)
	return b
}

func (in *putProductInput) product(ctx context.Context) (catalogue.Product, error) {
	b := in.Body
	p := catalogue.Product{ID: in.ProductID, Name: b.Name, BrandName: b.BrandName, Category: b.Category, ImageURL: b.ImageURL,
		HeroImageURL: b.HeroImageURL, Rating: b.Rating, PriceUpdatedAt: b.PriceUpdatedAt, IsActive: true}
	set(&p.IsActive, b.IsActive)
	var err error
	if p.MRP, err = amountAt(ctx, "body.mrp", b.MRP); err != nil {
		return p, err
	}
	if p.ListingPrice, err = amountAt(ctx, "body.listingPrice", b.ListingPrice); err != nil {
		return p, err
	}
	if p.DiscountedListingPrice, err = amountAt(ctx, "body.discountedListingPrice", b.DiscountedListingPrice); err != nil {
		return p, err
	}
	if p.MaxCoinDiscountPct, err = pctAt(ctx, "body.maxCoinDiscountPct", b.MaxCoinDiscountPct); err != nil {
		return p, err
	}
	return p, nil
}

func (in *addCodesInput) codes() []catalogue.Code {
	return httpapi.Map(in.Body.Codes, func(c CodeBody) catalogue.Code {
		return catalogue.Code{Code: c.Code, Pin: c.Pin, Expiry: c.Expiry}
	})
}

// change decodes a game's change of a reward; coin ids must be UUIDs (400 otherwise).
func (in *setGameRewardInput) change(ctx context.Context) (catalogue.GameRewardChange, error) {
	ch := catalogue.GameRewardChange{Hidden: in.Body.Hidden}
	if in.Body.CoinPrices != nil {
		ch.CoinPrices = make(map[uuid.UUID]int64, len(in.Body.CoinPrices))
		for key, price := range in.Body.CoinPrices {
			id, err := uuid.Parse(key)
			if err != nil {
				return ch, httpapi.ValidationError(ctx, "body.coinPrices."+key, "must be keyed by coin id (a UUID)", key)
			}
			ch.CoinPrices[id] = price
		}
	}
	return ch, nil
}

// maxRewardIDs caps the rewardIds filter of GET /rewards.
const maxRewardIDs = 100

// rewardIDs reads the rewardIds filter: repeated parameters, comma lists, or both. An id that
// is not even well formed names no reward, as an unknown one does: it becomes uuid.Nil, which
// no reward has, so a filter of only malformed ids finds nothing rather than everything.
func rewardIDs(ctx context.Context, values []string) ([]uuid.UUID, error) {
	var ids []uuid.UUID
	seen := map[uuid.UUID]bool{}
	for _, v := range values {
		for s := range strings.SplitSeq(v, ",") {
			if s = strings.TrimSpace(s); s == "" {
				continue
			}
			id, err := uuid.Parse(s)
			if err != nil {
				id = uuid.Nil
			}
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	if len(ids) > maxRewardIDs {
		return nil, httpapi.ValidationError(ctx, "query.rewardIds", fmt.Sprintf("at most %d reward ids", maxRewardIDs), len(ids))
	}
	return ids, nil
}

// ---- Encoding: core values into transport values ----

func toTranslationBodies(t catalogue.Translations) map[string]TranslationBody {
	m := make(map[string]TranslationBody, len(t))
	for lang, tr := range t {
		m[lang] = TranslationBody{Name: tr.Name, Description: tr.Description}
	}
	return m
}

// orEmpty keeps lists in answers as [] rather than null.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// orEmptyMap keeps maps in answers as {} rather than null.
func orEmptyMap[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return map[K]V{}
	}
	return m
}

func units(list []money.Amount) []float64 {
	out := make([]float64, len(list))
	for i, a := range list {
		out[i] = a.Units()
	}
	return out
}

func toCategoryBody(c catalogue.Category) CategoryBody {
	return CategoryBody{Code: c.Code, Name: c.Name, ImageURL: c.ImageURL, DisplayOrder: c.DisplayOrder,
		Translations: toTranslationBodies(c.Translations)}
}

func toBrandBody(b catalogue.Brand) BrandBody {
	return BrandBody{Code: b.Code, Name: b.Name, Description: b.Description, LogoURL: b.LogoURL, WebsiteURL: b.WebsiteURL,
		Issuer: b.Issuer, OrganizationID: b.OrganizationID(), Categories: orEmpty(b.Categories), Countries: orEmpty(b.Countries),
		IsActive: b.IsActive, Translations: toTranslationBodies(b.Translations)}
}

func toRewardBody(r catalogue.Reward) RewardBody {
	return RewardBody{
		ID: r.ID, Type: string(r.Type), BrandCode: r.BrandCode, Name: r.Name, Description: r.Description,
		CampaignTitle: r.CampaignTitle, CampaignSubTitle: r.CampaignSubTitle, CampaignDetails: r.CampaignDetails,
		TermsAndConditions: r.TermsAndConditions, HowToRedeem: r.HowToRedeem, CoverImage: r.CoverImage,
		Assets: orEmptyMap(r.Assets), Countries: orEmpty(r.Countries), EndDate: r.EndDate, IsActive: r.IsActive,
		ValueType: string(r.ValueType), Denominations: units(r.Denominations), MinValue: r.MinValue.Units(),
		MaxValue: r.MaxValue.Units(), DiscountPct: r.DiscountPct.Float(), MRP: r.MRP.Units(), SellingPrice: r.SellingPrice.Units(),
		PurchaseCooldown: int64(r.PurchaseCooldown / time.Second), XScore: r.XScore,
		FlagAllowStudioEditPrice: r.FlagAllowStudioEditPrice, Translations: toTranslationBodies(r.Translations),
		HasSharedCode: r.HasSharedCode, ProviderProductID: r.ProviderProductID, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
}

func toProductBody(p catalogue.Product) ProductBody {
	return ProductBody{ID: p.ID, Name: p.Name, BrandName: p.BrandName, Category: p.Category, ImageURL: p.ImageURL,
		HeroImageURL: p.HeroImageURL, Rating: p.Rating, MRP: p.MRP.Units(), ListingPrice: p.ListingPrice.Units(),
		DiscountedListingPrice: p.DiscountedListingPrice.Units(), MaxCoinDiscountPct: p.MaxCoinDiscountPct.Float(),
		PriceUpdatedAt: p.PriceUpdatedAt, IsActive: p.IsActive}
}

func toGameRewardBody(g catalogue.GameReward) GameRewardBody {
	prices := make(map[string]int64, len(g.CoinPrices))
	for id, p := range g.CoinPrices {
		prices[id.String()] = p
	}
	return GameRewardBody{GameID: g.GameID, RewardID: g.RewardID, Hidden: g.Hidden, CoinPrices: prices}
}

// storeView is how a player's request shows the catalogue: in its language, priced in its
// coin.
type storeView struct {
	lang   string
	coinID uuid.UUID
}

// listedPrices are a listed reward's coin prices in the coin that priced the list.
func listedPrices(l catalogue.Listed) catalogue.Prices { return l.Prices() }

func (v storeView) metadata(l catalogue.Listed) RewardMetadata {
	brandName, _ := l.Brand.Translations.Localise(v.lang, l.Brand.Name, l.Brand.Description)
	r := l.Reward
	return RewardMetadata{BrandName: brandName, BrandLogoImage: l.Brand.LogoURL, CampaignCoverImage: r.CoverImage,
		CampaignTitle: r.CampaignTitle, CampaignSubTitle: r.CampaignSubTitle, CampaignDetails: r.CampaignDetails,
		TermsAndConditions: r.TermsAndConditions, HowToRedeem: r.HowToRedeem, BrandCategory: orEmpty(l.Brand.Categories),
		CampaignAssets: orEmptyMap(r.Assets)}
}

func inventoryOf(l catalogue.Listed) InventoryBody {
	switch {
	case l.Free != nil:
		return InventoryBody{AvailableQuantity: *l.Free, Type: "CODE_POOL"}
	case l.Reward.HasSharedCode:
		return InventoryBody{AvailableQuantity: -1, Type: "SHARED_CODE"}
	case l.Reward.ProviderProductID != "" && l.ProviderStock != nil:
		return InventoryBody{AvailableQuantity: *l.ProviderStock, Type: "PROVIDER"}
	case l.Reward.ProviderProductID != "":
		return InventoryBody{AvailableQuantity: -1, Type: "PROVIDER"}
	}
	return InventoryBody{AvailableQuantity: -1, Type: "UNLIMITED"}
}

func (v storeView) shapeA(l catalogue.Listed, p catalogue.Prices) RewardShapeA {
	r := l.Reward
	name, description := r.Translations.Localise(v.lang, r.Name, r.Description)
	meta := v.metadata(l)
	return RewardShapeA{ID: r.ID, Name: name, Description: description, Type: string(r.Type), BrandID: r.BrandCode,
		BrandName: meta.BrandName, OrganizationID: l.Brand.OrganizationID(), EndDate: r.EndDate, Metadata: meta,
		AvailableQuantity: inventoryOf(l).AvailableQuantity, Price: p.Price, MaxPrice: p.Max, MinPrice: p.Min,
		FlagAllowStudioEditPrice: r.FlagAllowStudioEditPrice}
}

func (v storeView) shapeB(l catalogue.Listed, p catalogue.Prices) RewardShapeB {
	meta := v.metadata(l)
	return RewardShapeB{ID: l.Reward.ID, BrandID: l.Reward.BrandCode, BrandName: meta.BrandName,
		OrganizationID: l.Brand.OrganizationID(), Metadata: RewardMetadataB{RewardMetadata: meta, CampaignExpiryDate: l.Reward.EndDate},
		Inventory: inventoryOf(l), Price: PriceBody{Amount: p.Price, CoinID: v.coinID}}
}

// listItem shows a listed reward in shape A, or in shape B when b.
func (v storeView) listItem(b bool) func(catalogue.Listed) RewardListItem {
	return func(l catalogue.Listed) RewardListItem {
		key := itemKey{reward: l.Reward.ID, coin: v.coinID, lang: v.lang, b: b}
		if b {
			return RewardListItem{shape: v.shapeB(l, listedPrices(l)), key: key}
		}
		return RewardListItem{shape: v.shapeA(l, listedPrices(l)), key: key}
	}
}

func (v storeView) detail(d catalogue.Detail) RewardDetailBody {
	r := d.Reward
	name, description := r.Translations.Localise(v.lang, r.Name, r.Description)
	out := RewardDetailBody{RewardShapeB: v.shapeB(d.Listed, d.Prices()),
		Name: name, Description: description, Type: string(r.Type), ValueType: string(r.ValueType), NextPurchaseAt: d.NextPurchaseAt}
	if r.ValueType == catalogue.Range && len(d.Faces) == 0 {
		lo, hi := r.MinValue.Units(), r.MaxValue.Units()
		out.MinValue, out.MaxValue = &lo, &hi
		return out
	}
	out.Denominations = httpapi.Map(d.Faces, func(f catalogue.FaceStock) DenominationBody {
		return DenominationBody{Value: f.Value.Units(), Price: f.CoinPrice, Available: f.Available}
	})
	return out
}

func (v storeView) brandMeta(m catalogue.BrandMeta) BrandMetadata {
	name, _ := m.Brand.Translations.Localise(v.lang, m.Brand.Name, m.Brand.Description)
	return BrandMetadata{Code: m.Brand.Code, Name: name, LogoURL: m.Brand.LogoURL, Categories: orEmpty(m.Brand.Categories),
		RewardCount: m.RewardCount}
}

func (v storeView) categoryMeta(m catalogue.CategoryMeta) CategoryMetadata {
	name, _ := m.Category.Translations.Localise(v.lang, m.Category.Name, "")
	return CategoryMetadata{Code: m.Category.Code, Name: name, ImageURL: m.Category.ImageURL, RewardCount: m.RewardCount}
}

func (v storeView) search(res catalogue.SearchResult, q httpapi.PageQuery) SearchBody {
	return SearchBody{
		Brands:     httpapi.Map(res.Brands, v.brandMeta),
		Categories: httpapi.Map(res.Categories, v.categoryMeta),
		Rewards: RewardPageA{Page: q.Page, Limit: q.Limit, Total: res.Total,
			Items: httpapi.Map(res.Rewards, func(l catalogue.Listed) RewardShapeA { return v.shapeA(l, listedPrices(l)) })},
	}
}
