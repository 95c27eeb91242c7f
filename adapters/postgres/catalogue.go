package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
)

// CatalogueRepo is the storage of the catalogue module.
type CatalogueRepo struct{ conn }

var _ catalogue.Repo = (*CatalogueRepo)(nil)

// NewCatalogueStore returns the storage of the catalogue module on d. Its statements are
// planned for their actual parameters every time (customPlans).
func NewCatalogueStore(d *DB) store.Of[catalogue.Repo] {
	return newModuleStore(d, func(c conn) catalogue.Repo { return catalogueOn(c) })
}

// catalogueOn is the catalogue's repository on c.
func catalogueOn(c conn) *CatalogueRepo {
	c.q = db.New(customPlans{c.dbtx})
	return &CatalogueRepo{c}
}

func toJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return []byte("{}")
	}
	return b
}

func toTranslations(raw []byte) catalogue.Translations {
	var t catalogue.Translations
	_ = json.Unmarshal(raw, &t)
	return t
}

func toCoreBrand(b db.CatalogueBrand) catalogue.Brand {
	out := catalogue.Brand{Code: b.Code, Name: b.Name, Description: b.Description, LogoURL: b.LogoUrl,
		WebsiteURL: b.WebsiteUrl, Issuer: b.Issuer, Categories: b.Categories, Countries: b.Countries,
		IsActive: b.IsActive, Translations: toTranslations(b.Translations)}
	if b.ProviderCode != nil {
		out.ProviderCode = *b.ProviderCode
	}
	return out
}

func toCoreCategory(c db.CatalogueCategory) catalogue.Category {
	return catalogue.Category{Code: c.Code, Name: c.Name, ImageURL: c.ImageUrl, DisplayOrder: int(c.DisplayOrder),
		Translations: toTranslations(c.Translations)}
}

func toCoreReward(r db.CatalogueReward) catalogue.Reward {
	out := catalogue.Reward{
		ID: r.ID, Type: catalogue.Type(r.Type), BrandCode: r.BrandCode, Name: r.Name, Description: r.Description,
		CampaignTitle: r.CampaignTitle, CampaignSubTitle: r.CampaignSubTitle, CampaignDetails: r.CampaignDetails,
		TermsAndConditions: r.TermsAndConditions, HowToRedeem: r.HowToRedeem, CoverImage: r.CoverImage,
		Countries: r.Countries, EndDate: r.EndDate, IsActive: r.IsActive, ValueType: catalogue.ValueType(r.ValueType),
		PurchaseCooldown: time.Duration(r.PurchaseCooldown) * time.Second, XScore: r.XScore,
		FlagAllowStudioEditPrice: r.FlagAllowStudioEditPrice, Translations: toTranslations(r.Translations),
		HasSharedCode: r.SharedCode != nil, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	_ = json.Unmarshal(r.Assets, &out.Assets)
	if r.ProviderProductID != nil {
		out.ProviderProductID = *r.ProviderProductID
	}
	switch {
	case out.Type != catalogue.GiftCard && out.Type != catalogue.DigitalCredit:
		out.MRP, out.SellingPrice = money.Amount(r.MinFace), money.Amount(r.MinSelling)
	case out.ValueType == catalogue.Range:
		out.MinValue, out.MaxValue, out.DiscountPct = money.Amount(r.MinFace), money.Amount(r.MaxFace), money.Pct(r.DiscountBps)
	default:
		out.DiscountPct = money.Pct(r.DiscountBps)
		for _, d := range r.Denominations {
			out.Denominations = append(out.Denominations, money.Amount(d))
		}
	}
	return out
}

// rewardColumns are the derived columns of a reward row: face values, selling prices and the
// discount on mrp, which the listing's SQL sorts by.
type rewardColumns struct {
	denominations          []int64
	minFace, maxFace       int64
	minSelling, maxSelling int64
	discountBps            int32
	cooldown               int32
	endDate                *time.Time
	providerProductID      *string
}

func columnsOf(r catalogue.Reward) rewardColumns {
	c := rewardColumns{denominations: []int64{}, minFace: int64(r.MinFace()), maxFace: int64(r.MaxFace()),
		minSelling: int64(r.SellingPriceOf(r.MinFace())), maxSelling: int64(r.SellingPriceOf(r.MaxFace())),
		discountBps: int32(r.DiscountOnMRP()), cooldown: int32(r.PurchaseCooldown / time.Second), endDate: r.EndDate}
	for _, f := range r.Faces() {
		c.denominations = append(c.denominations, int64(f))
	}
	if r.ProviderProductID != "" {
		c.providerProductID = &r.ProviderProductID
	}
	return c
}

func stringsOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// UpsertCategory implements catalogue.Repo; the search text of the category's rewards follows.
func (r *CatalogueRepo) UpsertCategory(ctx context.Context, c catalogue.Category) (bool, error) {
	created, err := r.q.CatalogueUpsertCategory(ctx, db.CatalogueUpsertCategoryParams{Code: c.Code, Name: c.Name,
		ImageUrl: c.ImageURL, DisplayOrder: int32(c.DisplayOrder), Translations: toJSON(c.Translations)})
	if err != nil {
		return false, fmt.Errorf("upsert category %s: %w", c.Code, err)
	}
	if err := r.q.CatalogueRefreshSearch(ctx, db.CatalogueRefreshSearchParams{Category: &c.Code}); err != nil {
		return false, fmt.Errorf("refresh search of category %s: %w", c.Code, err)
	}
	return created, nil
}

// MissingCategories implements catalogue.Repo.
func (r *CatalogueRepo) MissingCategories(ctx context.Context, codes []string) ([]string, error) {
	missing, err := r.q.CatalogueMissingCategories(ctx, stringsOrEmpty(codes))
	if err != nil {
		return nil, fmt.Errorf("check categories: %w", err)
	}
	return missing, nil
}

// UpsertBrand implements catalogue.Repo.
func (r *CatalogueRepo) UpsertBrand(ctx context.Context, b catalogue.Brand) (bool, error) {
	var provider *string
	if b.ProviderCode != "" {
		provider = &b.ProviderCode
	}
	created, err := r.q.CatalogueUpsertBrand(ctx, db.CatalogueUpsertBrandParams{Code: b.Code, Name: b.Name,
		Description: b.Description, LogoUrl: b.LogoURL, WebsiteUrl: b.WebsiteURL, Issuer: b.Issuer,
		Categories: stringsOrEmpty(b.Categories), Countries: stringsOrEmpty(b.Countries), IsActive: b.IsActive,
		Translations: toJSON(b.Translations), ProviderCode: provider})
	if err != nil {
		return false, fmt.Errorf("upsert brand %s: %w", b.Code, err)
	}
	if err := r.q.CatalogueRefreshSearch(ctx, db.CatalogueRefreshSearchParams{BrandCode: &b.Code}); err != nil {
		return false, fmt.Errorf("refresh search of brand %s: %w", b.Code, err)
	}
	return created, nil
}

func brandResult(b db.CatalogueBrand, err error) (catalogue.Brand, error) {
	return toCoreOne(b, err, catalogue.ErrBrandNotFound, toCoreBrand, "get brand")
}

// GetBrand implements catalogue.Repo.
func (r *CatalogueRepo) GetBrand(ctx context.Context, code string) (catalogue.Brand, error) {
	return brandResult(r.q.CatalogueGetBrand(ctx, code))
}

// BrandByProviderCode implements catalogue.Repo.
func (r *CatalogueRepo) BrandByProviderCode(ctx context.Context, providerCode string) (catalogue.Brand, error) {
	return brandResult(r.q.CatalogueBrandByProviderCode(ctx, &providerCode))
}

// InsertReward implements catalogue.Repo.
func (r *CatalogueRepo) InsertReward(ctx context.Context, rw catalogue.Reward, sharedCode []byte) (catalogue.Reward, error) {
	c := columnsOf(rw)
	row, err := r.q.CatalogueInsertReward(ctx, db.CatalogueInsertRewardParams{
		Type: string(rw.Type), BrandCode: rw.BrandCode, Name: rw.Name, Description: rw.Description,
		CampaignTitle: rw.CampaignTitle, CampaignSubTitle: rw.CampaignSubTitle, CampaignDetails: rw.CampaignDetails,
		TermsAndConditions: rw.TermsAndConditions, HowToRedeem: rw.HowToRedeem, CoverImage: rw.CoverImage,
		Assets: toJSON(rw.Assets), Countries: stringsOrEmpty(rw.Countries), EndDate: c.endDate, IsActive: rw.IsActive,
		ValueType: string(rw.ValueType), Denominations: c.denominations, MinFace: c.minFace, MaxFace: c.maxFace,
		DiscountBps: c.discountBps, MinSelling: c.minSelling, MaxSelling: c.maxSelling, PurchaseCooldown: c.cooldown,
		XScore: rw.XScore, FlagAllowStudioEditPrice: rw.FlagAllowStudioEditPrice, Translations: toJSON(rw.Translations),
		SharedCode: sharedCode, ProviderProductID: c.providerProductID,
	})
	if err != nil {
		return catalogue.Reward{}, fmt.Errorf("insert reward: %w", err)
	}
	rw.ID, rw.CreatedAt, rw.UpdatedAt, rw.HasSharedCode = row.ID, row.CreatedAt, row.UpdatedAt, sharedCode != nil
	if err := r.q.CatalogueRefreshSearch(ctx, db.CatalogueRefreshSearchParams{RewardID: &rw.ID}); err != nil {
		return catalogue.Reward{}, fmt.Errorf("refresh search of reward %s: %w", rw.ID, err)
	}
	return rw, nil
}

func rewardResult(row db.CatalogueReward, err error) (catalogue.Reward, error) {
	return toCoreOne(row, err, catalogue.ErrRewardNotFound, toCoreReward, "get reward")
}

// LockReward implements catalogue.Repo.
func (r *CatalogueRepo) LockReward(ctx context.Context, id uuid.UUID) (catalogue.Reward, error) {
	return rewardResult(r.q.CatalogueLockReward(ctx, id))
}

// GetReward implements catalogue.Repo.
func (r *CatalogueRepo) GetReward(ctx context.Context, id uuid.UUID) (catalogue.Reward, error) {
	return rewardResult(r.q.CatalogueGetReward(ctx, id))
}

// RewardByProviderProduct implements catalogue.Repo.
func (r *CatalogueRepo) RewardByProviderProduct(ctx context.Context, productID string) (catalogue.Reward, error) {
	return rewardResult(r.q.CatalogueRewardByProviderProduct(ctx, &productID))
}

// UpdateReward implements catalogue.Repo.
func (r *CatalogueRepo) UpdateReward(ctx context.Context, rw catalogue.Reward, sharedCode []byte) (catalogue.Reward, error) {
	c := columnsOf(rw)
	var shared []byte
	if len(sharedCode) > 0 {
		shared = sharedCode
	}
	row, err := r.q.CatalogueUpdateReward(ctx, db.CatalogueUpdateRewardParams{
		ID: rw.ID, Type: string(rw.Type), BrandCode: rw.BrandCode, Name: rw.Name, Description: rw.Description,
		CampaignTitle: rw.CampaignTitle, CampaignSubTitle: rw.CampaignSubTitle, CampaignDetails: rw.CampaignDetails,
		TermsAndConditions: rw.TermsAndConditions, HowToRedeem: rw.HowToRedeem, CoverImage: rw.CoverImage,
		Assets: toJSON(rw.Assets), Countries: stringsOrEmpty(rw.Countries), EndDate: c.endDate, IsActive: rw.IsActive,
		ValueType: string(rw.ValueType), Denominations: c.denominations, MinFace: c.minFace, MaxFace: c.maxFace,
		DiscountBps: c.discountBps, MinSelling: c.minSelling, MaxSelling: c.maxSelling, PurchaseCooldown: c.cooldown,
		XScore: rw.XScore, FlagAllowStudioEditPrice: rw.FlagAllowStudioEditPrice, Translations: toJSON(rw.Translations),
		SetSharedCode: sharedCode != nil, SharedCode: shared,
	})
	if isNoRows(err) {
		return catalogue.Reward{}, catalogue.ErrRewardNotFound
	}
	if err != nil {
		return catalogue.Reward{}, fmt.Errorf("update reward %s: %w", rw.ID, err)
	}
	rw.CreatedAt, rw.UpdatedAt, rw.HasSharedCode = row.CreatedAt, row.UpdatedAt, row.HasSharedCode
	if err := r.q.CatalogueRefreshSearch(ctx, db.CatalogueRefreshSearchParams{RewardID: &rw.ID}); err != nil {
		return catalogue.Reward{}, fmt.Errorf("refresh search of reward %s: %w", rw.ID, err)
	}
	return rw, nil
}

// ListRewards implements catalogue.Repo.
func (r *CatalogueRepo) ListRewards(ctx context.Context, f catalogue.AdminFilter) ([]catalogue.Reward, int64, error) {
	rows, err := r.q.CatalogueListRewards(ctx, db.CatalogueListRewardsParams{Type: string(f.Type), BrandCode: f.BrandCode,
		Active: f.Active, Lim: int32(f.Limit), Off: int32(f.Offset)})
	if err != nil {
		return nil, 0, fmt.Errorf("list rewards: %w", err)
	}
	out := make([]catalogue.Reward, len(rows))
	var total int64
	for i, row := range rows {
		out[i] = toCoreReward(db.CatalogueReward{ID: row.ID, Type: row.Type, BrandCode: row.BrandCode, Name: row.Name,
			Description: row.Description, CampaignTitle: row.CampaignTitle, CampaignSubTitle: row.CampaignSubTitle,
			CampaignDetails: row.CampaignDetails, TermsAndConditions: row.TermsAndConditions, HowToRedeem: row.HowToRedeem,
			CoverImage: row.CoverImage, Assets: row.Assets, Countries: row.Countries, EndDate: row.EndDate,
			IsActive: row.IsActive, ValueType: row.ValueType, Denominations: row.Denominations, MinFace: row.MinFace,
			MaxFace: row.MaxFace, DiscountBps: row.DiscountBps, MinSelling: row.MinSelling, MaxSelling: row.MaxSelling,
			PurchaseCooldown: row.PurchaseCooldown, XScore: row.XScore, FlagAllowStudioEditPrice: row.FlagAllowStudioEditPrice,
			Translations: row.Translations, SharedCode: row.SharedCode, ProviderProductID: row.ProviderProductID,
			CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt})
		total = row.Total
	}
	return out, total, nil
}

// DeactivateProviderRewards implements catalogue.Repo.
func (r *CatalogueRepo) DeactivateProviderRewards(ctx context.Context, keepProducts, keepBrands []string) (int64, error) {
	row, err := r.q.CatalogueDeactivateProviderRewards(ctx, db.CatalogueDeactivateProviderRewardsParams{
		KeepProducts: stringsOrEmpty(keepProducts), KeepBrands: stringsOrEmpty(keepBrands)})
	if err != nil {
		return 0, fmt.Errorf("deactivate provider rewards: %w", err)
	}
	return row.Rewards, nil
}

// AddCodes implements catalogue.Repo: the codes go in one pipelined batch; the caller holds
// the reward's lock, so the count of codes before and after tells how many were new.
func (r *CatalogueRepo) AddCodes(ctx context.Context, rewardID uuid.UUID, codes []catalogue.SealedCode) (int64, error) {
	before, err := r.q.CatalogueCountCodes(ctx, rewardID)
	if err != nil {
		return 0, fmt.Errorf("count codes: %w", err)
	}
	params := make([]db.CatalogueAddCodeParams, len(codes))
	for i, c := range codes {
		params[i] = db.CatalogueAddCodeParams{RewardID: rewardID, CodeHash: c.Fingerprint, Code: c.Code, Pin: c.Pin, Expiry: c.Expiry}
	}
	var batchErr error
	r.q.CatalogueAddCode(ctx, params).Exec(func(_ int, err error) {
		if err != nil && batchErr == nil {
			batchErr = err
		}
	})
	if batchErr != nil {
		return 0, fmt.Errorf("add codes: %w", batchErr)
	}
	after, err := r.q.CatalogueCountCodes(ctx, rewardID)
	if err != nil {
		return 0, fmt.Errorf("count codes: %w", err)
	}
	return after - before, nil
}

// FreeCodes implements catalogue.Repo.
func (r *CatalogueRepo) FreeCodes(ctx context.Context, rewardID uuid.UUID) (int64, error) {
	n, err := r.q.CatalogueFreeCodes(ctx, rewardID)
	if err != nil {
		return 0, fmt.Errorf("count free codes: %w", err)
	}
	return n, nil
}

// FreeCodesOf implements catalogue.Repo.
func (r *CatalogueRepo) FreeCodesOf(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	rows, err := r.q.CatalogueFreeCodesOf(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("count free codes: %w", err)
	}
	free := make(map[uuid.UUID]int64, len(rows))
	for _, row := range rows {
		free[row.RewardID] = row.Free
	}
	return free, nil
}

// UpsertProduct implements catalogue.Repo.
func (r *CatalogueRepo) UpsertProduct(ctx context.Context, p catalogue.Product) (bool, error) {
	created, err := r.q.CatalogueUpsertProduct(ctx, db.CatalogueUpsertProductParams{ID: p.ID, Name: p.Name,
		BrandName: p.BrandName, Category: p.Category, ImageUrl: p.ImageURL, HeroImageUrl: p.HeroImageURL,
		Rating: p.Rating, Mrp: int64(p.MRP), ListingPrice: int64(p.ListingPrice),
		DiscountedListingPrice: int64(p.DiscountedListingPrice), MaxCoinDiscountBps: int32(p.MaxCoinDiscountPct),
		PriceUpdatedAt: p.PriceUpdatedAt, IsActive: p.IsActive})
	if err != nil {
		return false, fmt.Errorf("upsert product %s: %w", p.ID, err)
	}
	return created, nil
}

// GameReward implements catalogue.Repo.
func (r *CatalogueRepo) GameReward(ctx context.Context, gameID, rewardID uuid.UUID) (catalogue.GameReward, error) {
	row, err := r.q.CatalogueGameReward(ctx, db.CatalogueGameRewardParams{GameID: gameID, RewardID: rewardID})
	if isNoRows(err) {
		return catalogue.GameReward{GameID: gameID, RewardID: rewardID}, nil
	}
	if err != nil {
		return catalogue.GameReward{}, fmt.Errorf("get game reward: %w", err)
	}
	out := catalogue.GameReward{GameID: gameID, RewardID: rewardID, Hidden: row.Hidden}
	if err := json.Unmarshal(row.CoinPrices, &out.CoinPrices); err != nil {
		return catalogue.GameReward{}, fmt.Errorf("decode coin prices: %w", err)
	}
	return out, nil
}

// SaveGameReward implements catalogue.Repo.
func (r *CatalogueRepo) SaveGameReward(ctx context.Context, g catalogue.GameReward) error {
	prices := g.CoinPrices
	if prices == nil {
		prices = map[uuid.UUID]int64{}
	}
	if err := r.q.CatalogueSaveGameReward(ctx, db.CatalogueSaveGameRewardParams{GameID: g.GameID, RewardID: g.RewardID,
		Hidden: g.Hidden, CoinPrices: toJSON(prices)}); err != nil {
		return fmt.Errorf("save game reward: %w", err)
	}
	return nil
}

func override(v int64) *int64 {
	if v <= 0 {
		return nil
	}
	return &v
}

// GetVisibleWithCoin implements catalogue.Repo: one statement; when it finds nothing, a second
// tells a missing coin from a reward the game's players cannot see.
//
// The statement is prepared with a cached plan, not planned afresh like the catalogue's other
// statements: its rows are found by their primary keys whatever the parameters, and planning
// its four-table join cost PostgreSQL 0.24 ms at every purchase in the benchmark, six times its
// execution.
func (r *CatalogueRepo) GetVisibleWithCoin(ctx context.Context, q catalogue.ListQuery, id uuid.UUID) (catalogue.Listed, coins.Coin, error) {
	row, err := db.New(r.dbtx).CatalogueGetVisibleWithCoin(ctx, db.CatalogueGetVisibleWithCoinParams{CoinKey: q.CoinID.String(),
		ID: id, GameID: q.GameID, CoinID: q.CoinID, Now: q.Now, Country: q.Country})
	if isNoRows(err) {
		coin, cerr := (&CoinsRepo{conn: r.conn}).GetCoin(ctx, q.GameID, q.CoinID)
		if cerr != nil {
			return catalogue.Listed{}, coins.Coin{}, cerr
		}
		return catalogue.Listed{}, coin, catalogue.ErrRewardNotFound
	}
	if err != nil {
		return catalogue.Listed{}, coins.Coin{}, fmt.Errorf("get reward %s: %w", id, err)
	}
	return catalogue.Listed{Reward: toCoreReward(row.CatalogueReward), Brand: toCoreBrand(row.CatalogueBrand),
		Override: override(row.Override)}, toCoreCoin(row.Coin), nil
}

// ShortLink implements catalogue.Repo.
func (r *CatalogueRepo) ShortLink(ctx context.Context, playerID, rewardID uuid.UUID, code string) (string, error) {
	arg := db.CatalogueShortLinkParams{Code: code, PlayerID: playerID, RewardID: rewardID}
	out, err := r.q.CatalogueShortLink(ctx, arg)
	if isNoRows(err) {
		// A concurrent first call created the link after this statement's snapshot: the next
		// statement sees it.
		out, err = r.q.CatalogueShortLink(ctx, arg)
	}
	if err != nil {
		return "", fmt.Errorf("short link: %w", err)
	}
	return out, nil
}

// FollowLink implements catalogue.Repo.
func (r *CatalogueRepo) FollowLink(ctx context.Context, code string) (string, error) {
	site, err := r.q.CatalogueFollowLink(ctx, code)
	if isNoRows(err) {
		return "", catalogue.ErrLinkNotFound
	}
	if err != nil {
		return "", fmt.Errorf("follow link: %w", err)
	}
	return site, nil
}

// TakeCodes implements catalogue.Repo.
//
// The statement is prepared with a cached plan (the pool's free codes by their partial index,
// whatever the reward), not planned afresh like the catalogue's other statements: a purchase's
// transaction then sends it in one round trip with the statements queued before it (the order),
// where a customPlans statement goes on its own after flushing them.
func (r *CatalogueRepo) TakeCodes(ctx context.Context, rewardID, orderID uuid.UUID, n int) ([]catalogue.SealedCode, error) {
	q := db.New(r.dbtx)
	var rows []db.CatalogueTakeCodesRow
	var err error
	if n == 1 {
		var one []db.CatalogueTakeCodeRow
		one, err = q.CatalogueTakeCode(ctx, db.CatalogueTakeCodeParams{OrderID: &orderID, RewardID: rewardID})
		for _, row := range one {
			rows = append(rows, db.CatalogueTakeCodesRow(row))
		}
	} else {
		rows, err = q.CatalogueTakeCodes(ctx, db.CatalogueTakeCodesParams{OrderID: &orderID, RewardID: rewardID, N: int32(n)})
	}
	if err != nil {
		return nil, fmt.Errorf("take codes of %s: %w", rewardID, err)
	}
	out := make([]catalogue.SealedCode, len(rows))
	for i, row := range rows {
		out[i] = catalogue.SealedCode{Code: row.Code, Pin: row.Pin, Expiry: row.Expiry}
	}
	return out, nil
}

// SharedCode implements catalogue.Repo.
func (r *CatalogueRepo) SharedCode(ctx context.Context, rewardID uuid.UUID) ([]byte, error) {
	code, err := r.q.CatalogueSharedCode(ctx, rewardID)
	if isNoRows(err) {
		return nil, catalogue.ErrRewardNotFound.Withf("this coupon has no shared code")
	}
	if err != nil {
		return nil, fmt.Errorf("shared code of %s: %w", rewardID, err)
	}
	return code, nil
}

// RecordOrder implements catalogue.Repo.
func (r *CatalogueRepo) RecordOrder(ctx context.Context, rewardID uuid.UUID, at time.Time) error {
	day := pgtype.Date{Time: time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC), Valid: true}
	// In a transaction the count travels with its next statement or its commit.
	if err := r.deferredQueries(nil).CatalogueRecordOrder(ctx, db.CatalogueRecordOrderParams{RewardID: rewardID, Day: day}); err != nil {
		return fmt.Errorf("count an order of %s: %w", rewardID, err)
	}
	return nil
}
