package catalogue

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
	"github.com/rewardsco/rewards/core/weburl"
)

// Config holds the catalogue module's collaborators.
type Config struct {
	// Audit, when set, records a game's changes of a shared reward (hidden, coin prices) in
	// their transaction; app sets it.
	Audit *audit.Log
	// Currency is the deployment currency: the provider's products in it are imported.
	Currency string
	// Provider is the live voucher provider, which the catalogue is synced from; nil when none
	// is configured.
	Provider vouchers.Provider
	// TestProvider is the test environment's voucher provider, whose stock test fetches show;
	// nil when none is configured.
	TestProvider vouchers.Provider
	// Box seals coupon codes at rest.
	Box sealed.Box
	// PublicURL is where the service's own links point (short links).
	PublicURL string
	// AllowHTTPURLs lets stored addresses be plain http (outside production); otherwise they
	// are https (weburl).
	AllowHTTPURLs bool
	// Cooldowns tells when a player last bought a reward (the orders module); nil while no
	// purchase can have been made.
	Cooldowns Cooldowns
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ReadModel serves every read of the store (lists, fetches, search, brand and category
	// metadata) from memory, and is loaded again by every change made through this Service
	// before the change returns. It is the one implementation of what players see: a Service
	// without it serves the operator's reads and writes alone.
	ReadModel *ReadModel
	// CoinValues, when set, serves what the coin pricing a list or fetch is worth from memory
	// (coins.Values); nil reads the coin every time.
	CoinValues *coins.Values
	// PoolStock, when set, serves the free codes of pools in lists and fetches from memory
	// (PoolStockTTL); AddCodes and this instance's purchases tell it of their changes. nil
	// counts every time.
	PoolStock *PoolStock
}

// Service holds the catalogue use cases.
type Service struct {
	runner store.Runner
	repo   store.Of[Repo]
	coins  store.Of[coins.Repo]
	games  store.Of[studio.Repo]
	cfg    Config
	now    func() time.Time
}

// NewService returns a Service over the catalogue storage; coins and games are the coins and
// studio modules' storage, for the coins that price the catalogue and the games that change it.
func NewService(runner store.Runner, repo store.Of[Repo], coinStore store.Of[coins.Repo], games store.Of[studio.Repo], cfg Config) *Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{runner: runner, repo: repo, coins: coinStore, games: games, cfg: cfg, now: now}
}

// Limits of catalogue input.
const (
	MaxNameLen        = 200
	MaxTextLen        = 10_000
	MaxDenominations  = 50
	MaxCodesPerCall   = 10_000
	MaxCodeLen        = 256
	MaxLinkListLength = 100
	// MaxFaceValue bounds every face value, mrp and selling price (10,000,000 units), so that no
	// price (face value × coins per unit, or × a coin price override, × quantity) overflows.
	MaxFaceValue money.Amount = 10_000_000_00
)

var (
	countryPattern  = regexp.MustCompile(`^[A-Z]{2}$`)
	languagePattern = regexp.MustCompile(`^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
)

func validText(field, s string, max int, required bool) error {
	if required && strings.TrimSpace(s) == "" {
		return errs.Invalidf("%s must not be blank", field)
	}
	if len(s) > max {
		return errs.Invalidf("%s must be at most %d characters", field, max)
	}
	return nil
}

func validTranslations(t Translations) error {
	for lang, tr := range t {
		if !languagePattern.MatchString(lang) {
			return errs.Invalidf("translations: %q is not a language tag such as hi or pt-BR", lang)
		}
		if err := validText("translations."+lang+".name", tr.Name, MaxNameLen, false); err != nil {
			return err
		}
		if err := validText("translations."+lang+".description", tr.Description, MaxTextLen, false); err != nil {
			return err
		}
	}
	return nil
}

func validCountries(list []string) error {
	for _, c := range list {
		if !countryPattern.MatchString(c) {
			return errs.Invalidf("countries: %q is not an ISO 3166-1 alpha-2 code such as IN", c)
		}
	}
	return nil
}

// PutCategory creates or replaces a category.
func (s *Service) PutCategory(ctx context.Context, c Category) (bool, error) {
	if !ValidCode(c.Code) {
		return false, errs.Invalidf("code must match ^[A-Z0-9_]{2,64}$")
	}
	if err := validText("name", c.Name, MaxNameLen, true); err != nil {
		return false, err
	}
	if err := validTranslations(c.Translations); err != nil {
		return false, err
	}
	if err := weburl.Check("imageUrl", c.ImageURL, s.cfg.AllowHTTPURLs, false); err != nil {
		return false, err
	}
	created, err := s.repo.Repo().UpsertCategory(ctx, c)
	return created, s.written(ctx, err)
}

// written loads the read model again after a committed change (err nil), so that the next read
// on this instance sees it. A failed load is not the change's failure: the read model's watcher
// loads it at its next check.
func (s *Service) written(ctx context.Context, err error) error {
	if err == nil && s.cfg.ReadModel != nil {
		_ = s.cfg.ReadModel.Refresh(ctx)
	}
	return err
}

// PutBrand creates or replaces a brand; every category it names must exist (400 otherwise).
func (s *Service) PutBrand(ctx context.Context, b Brand) (bool, error) {
	if !ValidCode(b.Code) {
		return false, errs.Invalidf("code must match ^[A-Z0-9_]{2,64}$")
	}
	if err := validText("name", b.Name, MaxNameLen, true); err != nil {
		return false, err
	}
	if err := validText("description", b.Description, MaxTextLen, false); err != nil {
		return false, err
	}
	if err := validCountries(b.Countries); err != nil {
		return false, err
	}
	if err := validTranslations(b.Translations); err != nil {
		return false, err
	}
	for field, v := range map[string]string{"logoUrl": b.LogoURL, "websiteUrl": b.WebsiteURL} {
		if err := weburl.Check(field, v, s.cfg.AllowHTTPURLs, false); err != nil {
			return false, err
		}
	}
	var created bool
	err := s.repo.InTx(ctx, func(r Repo) error {
		missing, err := r.MissingCategories(ctx, b.Categories)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			return errs.Invalidf("categories: no category has the code %s", strings.Join(missing, ", "))
		}
		created, err = r.UpsertBrand(ctx, b)
		return err
	})
	return created, s.written(ctx, err)
}

// checkImages checks a reward's image addresses (its cover and its assets).
func (s *Service) checkImages(r Reward) error {
	if err := weburl.Check("coverImage", r.CoverImage, s.cfg.AllowHTTPURLs, false); err != nil {
		return err
	}
	for k, v := range r.Assets {
		if err := weburl.Check("assets."+k, v, s.cfg.AllowHTTPURLs, false); err != nil {
			return err
		}
	}
	return nil
}

// validate checks a reward's own rules.
func (r *Reward) validate() error {
	if !r.Type.Valid() {
		return errs.Invalidf("type must be GIFT_CARD, COUPON, DIGITAL_CREDIT or PHYSICAL")
	}
	if err := validText("name", r.Name, MaxNameLen, true); err != nil {
		return err
	}
	for field, v := range map[string]string{"description": r.Description, "campaignTitle": r.CampaignTitle,
		"campaignSubTitle": r.CampaignSubTitle, "campaignDetails": r.CampaignDetails,
		"termsAndConditions": r.TermsAndConditions, "howToRedeem": r.HowToRedeem, "coverImage": r.CoverImage} {
		if err := validText(field, v, MaxTextLen, false); err != nil {
			return err
		}
	}
	if err := validCountries(r.Countries); err != nil {
		return err
	}
	if err := validTranslations(r.Translations); err != nil {
		return err
	}
	if r.PurchaseCooldown < 0 {
		return errs.Invalidf("purchaseCooldown must not be negative")
	}
	if !r.Type.denominated() {
		r.ValueType, r.Denominations, r.MinValue, r.MaxValue, r.DiscountPct = Fixed, nil, 0, 0, 0
		if r.MRP <= 0 || r.MRP > MaxFaceValue {
			return errs.Invalidf("mrp must be positive and at most %s for %s rewards", MaxFaceValue, r.Type)
		}
		if r.SellingPrice < 0 || r.SellingPrice > r.MRP {
			return errs.Invalidf("sellingPrice must be from 0 to mrp")
		}
		return nil
	}
	r.MRP, r.SellingPrice = 0, 0
	if r.DiscountPct < 0 || r.DiscountPct > 10000 {
		return errs.Invalidf("discountPct must be from 0 to 100")
	}
	switch r.ValueType {
	case Fixed:
		r.MinValue, r.MaxValue = 0, 0
		if len(r.Denominations) == 0 || len(r.Denominations) > MaxDenominations {
			return errs.Invalidf("denominations must hold 1 to %d values for a FIXED reward", MaxDenominations)
		}
		slices.Sort(r.Denominations)
		for i, d := range r.Denominations {
			if d <= 0 || (i > 0 && d == r.Denominations[i-1]) {
				return errs.Invalidf("denominations must be positive and distinct")
			}
			if d > MaxFaceValue {
				return errs.Invalidf("a denomination is at most %s", MaxFaceValue)
			}
		}
	case Range:
		r.Denominations = nil
		if r.MinValue <= 0 || r.MaxValue < r.MinValue {
			return errs.Invalidf("minValue must be positive and maxValue at least minValue for a RANGE reward")
		}
		if r.MaxValue > MaxFaceValue {
			return errs.Invalidf("maxValue is at most %s", MaxFaceValue)
		}
	default:
		return errs.Invalidf("valueType must be FIXED or RANGE")
	}
	return nil
}

// NewReward is a reward to create, with the shared code of a coupon that has one.
type NewReward struct {
	Reward
	SharedCode string
}

// CreateReward adds a reward to the catalogue; its brand must exist (400 otherwise).
func (s *Service) CreateReward(ctx context.Context, n NewReward) (Reward, error) {
	r := n.Reward
	if err := r.validate(); err != nil {
		return Reward{}, err
	}
	if err := s.checkImages(r); err != nil {
		return Reward{}, err
	}
	sharedCode, err := s.sealShared(r.Type, n.SharedCode)
	if err != nil {
		return Reward{}, err
	}
	var out Reward
	err = s.repo.InTx(ctx, func(repo Repo) error {
		if _, err := repo.GetBrand(ctx, r.BrandCode); err != nil {
			if errs.CodeOf(err) == ErrBrandNotFound.Code {
				return errs.Invalidf("brandCode: no brand has the code %q", r.BrandCode)
			}
			return err
		}
		out, err = repo.InsertReward(ctx, r, sharedCode)
		return err
	})
	return out, s.written(ctx, err)
}

func (s *Service) sealShared(t Type, code string) ([]byte, error) {
	if code == "" {
		return nil, nil
	}
	if t != Coupon {
		return nil, errs.Invalidf("sharedCode is for COUPON rewards")
	}
	if len(code) > MaxCodeLen {
		return nil, errs.Invalidf("sharedCode must be at most %d characters", MaxCodeLen)
	}
	return s.cfg.Box.Seal(code), nil
}

// RewardChange is an operator's change to a reward: the function sets the fields sent, and
// SharedCode, when not nil, replaces the shared code ("" removes it).
type RewardChange struct {
	Apply      func(*Reward)
	SharedCode *string
}

// ChangeReward applies a change to a reward under its lock; the result must satisfy every
// rule a new reward does.
func (s *Service) ChangeReward(ctx context.Context, id uuid.UUID, ch RewardChange) (Reward, error) {
	var out Reward
	err := s.repo.InTx(ctx, func(repo Repo) error {
		r, err := repo.LockReward(ctx, id)
		if err != nil {
			return err
		}
		if ch.Apply != nil {
			ch.Apply(&r)
		}
		if err := r.validate(); err != nil {
			return err
		}
		if err := s.checkImages(r); err != nil {
			return err
		}
		if _, err := repo.GetBrand(ctx, r.BrandCode); err != nil {
			if errs.CodeOf(err) == ErrBrandNotFound.Code {
				return errs.Invalidf("brandCode: no brand has the code %q", r.BrandCode)
			}
			return err
		}
		var shared []byte
		if ch.SharedCode != nil {
			if shared, err = s.sealShared(r.Type, *ch.SharedCode); err != nil {
				return err
			}
			if shared == nil {
				shared = []byte{}
			}
		}
		out, err = repo.UpdateReward(ctx, r, shared)
		return err
	})
	return out, s.written(ctx, err)
}

// GetReward returns any reward, for the operator.
func (s *Service) GetReward(ctx context.Context, id uuid.UUID) (Reward, error) {
	return s.repo.Repo().GetReward(ctx, id)
}

// ListRewards returns a page of every reward, for the operator.
func (s *Service) ListRewards(ctx context.Context, f AdminFilter) ([]Reward, int64, error) {
	if f.Type != "" && !f.Type.Valid() {
		return nil, 0, errs.Invalidf("type must be GIFT_CARD, COUPON, DIGITAL_CREDIT or PHYSICAL")
	}
	return s.repo.Repo().ListRewards(ctx, f)
}

// AddCodes adds codes to a coupon's pool, ignoring duplicates, and returns how many it added
// and how many are free now.
func (s *Service) AddCodes(ctx context.Context, rewardID uuid.UUID, list []Code) (added, free int64, err error) {
	if len(list) == 0 || len(list) > MaxCodesPerCall {
		return 0, 0, errs.Invalidf("codes must hold 1 to %d codes", MaxCodesPerCall)
	}
	sealedCodes := make([]SealedCode, len(list))
	for i, c := range list {
		c.Code = strings.TrimSpace(c.Code)
		if c.Code == "" || len(c.Code) > MaxCodeLen || len(c.Pin) > MaxCodeLen {
			return 0, 0, errs.Invalidf("codes[%d]: code must be 1 to %d characters, pin at most %d", i, MaxCodeLen, MaxCodeLen)
		}
		sc := SealedCode{Fingerprint: s.cfg.Box.Fingerprint(c.Code), Code: s.cfg.Box.Seal(c.Code), Expiry: c.Expiry}
		if c.Pin != "" {
			sc.Pin = s.cfg.Box.Seal(c.Pin)
		}
		sealedCodes[i] = sc
	}
	err = s.repo.InTx(ctx, func(repo Repo) error {
		r, err := repo.LockReward(ctx, rewardID)
		if err != nil {
			return err
		}
		if !r.IsPool() && !(r.Type == Coupon && r.HasSharedCode) {
			return errs.Invalidf("codes can be added to coupons and to the operator's own gift cards and credits (not to goods, nor to rewards the voucher provider fulfils)")
		}
		if r.HasSharedCode {
			return errs.Invalidf("this coupon has a shared code; remove it before adding a pool")
		}
		if added, err = repo.AddCodes(ctx, rewardID, sealedCodes); err != nil {
			return err
		}
		free, err = repo.FreeCodes(ctx, rewardID)
		return err
	})
	if s.cfg.PoolStock != nil {
		s.cfg.PoolStock.Changed(rewardID)
	}
	return added, free, err
}

// PutProduct creates or replaces a product.
func (s *Service) PutProduct(ctx context.Context, p Product) (bool, error) {
	if p.ID == "" || len(p.ID) > 128 {
		return false, errs.Invalidf("productId must be 1 to 128 characters")
	}
	if err := validText("name", p.Name, MaxNameLen, true); err != nil {
		return false, err
	}
	if p.MRP < 0 || p.ListingPrice < 0 || p.DiscountedListingPrice < 0 {
		return false, errs.Invalidf("prices must not be negative")
	}
	if p.MRP > MaxFaceValue {
		return false, errs.Invalidf("mrp is at most %s", MaxFaceValue)
	}
	for field, v := range map[string]string{"imageUrl": p.ImageURL, "heroImageUrl": p.HeroImageURL} {
		if err := weburl.Check(field, v, s.cfg.AllowHTTPURLs, false); err != nil {
			return false, err
		}
	}
	if p.DiscountedListingPrice > p.ListingPrice || p.ListingPrice > p.MRP {
		return false, errs.Invalidf("prices must satisfy discountedListingPrice ≤ listingPrice ≤ mrp")
	}
	if p.MaxCoinDiscountPct < 0 || p.MaxCoinDiscountPct > 10000 {
		return false, errs.Invalidf("maxCoinDiscountPct must be from 0 to 100")
	}
	if p.Rating < 0 || p.Rating > 5 {
		return false, errs.Invalidf("rating must be from 0 to 5")
	}
	if p.PriceUpdatedAt.IsZero() {
		return false, errs.Invalidf("priceUpdatedAt is required")
	}
	return s.repo.Repo().UpsertProduct(ctx, p)
}

// GameRewardChange is what a game changes of a reward; nil fields stay as they are.
type GameRewardChange struct {
	Hidden     *bool
	CoinPrices map[uuid.UUID]int64
}

// ChangeGameReward stores what a game changes of a shared reward: hiding it, or its coin
// prices (only where the reward allows it, for the game's own coins).
func (s *Service) ChangeGameReward(ctx context.Context, gameID, rewardID uuid.UUID, ch GameRewardChange) (GameReward, error) {
	var out GameReward
	err := s.runner.InTx(ctx, func(t store.Tx) error {
		if _, err := s.games.WithTx(t).LockGame(ctx, gameID); err != nil {
			return err
		}
		repo := s.repo.WithTx(t)
		r, err := repo.GetReward(ctx, rewardID)
		if err != nil {
			return err
		}
		if out, err = repo.GameReward(ctx, gameID, rewardID); err != nil {
			return err
		}
		out.GameID, out.RewardID = gameID, rewardID
		if ch.Hidden != nil {
			out.Hidden = *ch.Hidden
		}
		if ch.CoinPrices != nil {
			if len(ch.CoinPrices) > 0 && !r.FlagAllowStudioEditPrice {
				return ErrPriceNotEditable
			}
			for coinID, price := range ch.CoinPrices {
				if price < 1 || price > coins.MaxAmount {
					return errs.Invalidf("coinPrices: a coin price must be a whole number from 1 to %d", coins.MaxAmount)
				}
				if _, err := s.coins.WithTx(t).GetCoin(ctx, gameID, coinID); err != nil {
					if errs.CodeOf(err) == coins.ErrCoinNotFound.Code {
						return errs.Invalidf("coinPrices: %s is not a coin of this game", coinID)
					}
					return err
				}
			}
			out.CoinPrices = ch.CoinPrices
		}
		if err := repo.SaveGameReward(ctx, out); err != nil || s.cfg.Audit == nil {
			return err
		}
		details := map[string]string{"hidden": strconv.FormatBool(out.Hidden)}
		for coinID, price := range out.CoinPrices {
			details["coinPrice."+coinID.String()] = strconv.FormatInt(price, 10)
		}
		return s.cfg.Audit.Record(ctx, t, audit.Entry{GameID: &gameID, Action: "game_reward.set", TargetType: "reward",
			TargetID: rewardID.String(), Details: details})
	})
	return out, s.written(ctx, err)
}

// Sync imports the voucher provider's catalogue in the deployment currency: its brands as
// brands (and their categories), its products as GIFT_CARD rewards, keyed by the provider's
// codes, so a second sync changes only what changed. Products and brands gone upstream become
// inactive, never deleted: past orders keep showing them.
func (s *Service) Sync(ctx context.Context) (SyncStats, error) {
	if s.cfg.Provider == nil {
		return SyncStats{}, ErrNoProvider
	}
	brands, err := s.cfg.Provider.Catalogue(ctx, s.cfg.Currency)
	if err != nil {
		return SyncStats{}, fmt.Errorf("read the provider's catalogue: %w", err)
	}
	var st SyncStats
	err = s.repo.InTx(ctx, func(repo Repo) error {
		st = SyncStats{}
		var keepProducts, keepBrands []string
		for _, pb := range brands {
			b, err := s.syncBrand(ctx, repo, pb)
			if err != nil {
				return err
			}
			keepBrands = append(keepBrands, pb.Code)
			for _, pp := range pb.Products {
				if pp.Currency != s.cfg.Currency {
					continue
				}
				created, err := s.syncProduct(ctx, repo, b, pb, pp)
				if err != nil {
					return err
				}
				keepProducts = append(keepProducts, pp.ID)
				if created {
					st.Created++
				} else {
					st.Updated++
				}
			}
		}
		st.Deactivated, err = repo.DeactivateProviderRewards(ctx, keepProducts, keepBrands)
		return err
	})
	return st, s.written(ctx, err)
}

// CodeOf turns a provider's name or code into a catalogue code: "Food & Dining" → FOOD_DINING.
func CodeOf(name string) string {
	var b strings.Builder
	underscore := false
	for _, r := range strings.ToUpper(name) {
		switch {
		case r >= 'A' && r <= 'Z' || r >= '0' && r <= '9':
			b.WriteRune(r)
			underscore = false
		case !underscore && b.Len() > 0:
			b.WriteByte('_')
			underscore = true
		}
	}
	code := strings.TrimSuffix(b.String(), "_")
	if len(code) > 64 {
		code = code[:64]
	}
	for len(code) < 2 {
		code += "X"
	}
	return code
}

func (s *Service) syncBrand(ctx context.Context, repo Repo, pb vouchers.Brand) (Brand, error) {
	b, err := repo.BrandByProviderCode(ctx, pb.Code)
	switch {
	case errs.CodeOf(err) == ErrBrandNotFound.Code:
		b = Brand{Code: CodeOf(pb.Code), ProviderCode: pb.Code}
	case err != nil:
		return Brand{}, err
	}
	b.Name, b.Description, b.LogoURL, b.WebsiteURL, b.IsActive = pb.Name, pb.Description, s.safeURL(pb.LogoURL), s.safeURL(pb.WebsiteURL), true
	b.Countries = slices.Clone(pb.Countries)
	b.Categories = nil
	for _, name := range pb.Categories {
		code := CodeOf(name)
		missing, err := repo.MissingCategories(ctx, []string{code})
		if err != nil {
			return Brand{}, err
		}
		if len(missing) > 0 {
			if _, err := repo.UpsertCategory(ctx, Category{Code: code, Name: name}); err != nil {
				return Brand{}, err
			}
		}
		b.Categories = append(b.Categories, code)
	}
	if _, err := repo.UpsertBrand(ctx, b); err != nil {
		return Brand{}, err
	}
	return b, nil
}

func (s *Service) syncProduct(ctx context.Context, repo Repo, b Brand, pb vouchers.Brand, pp vouchers.Product) (bool, error) {
	r, err := repo.RewardByProviderProduct(ctx, pp.ID)
	created := errs.CodeOf(err) == ErrRewardNotFound.Code
	if err != nil && !created {
		return false, err
	}
	if created {
		r = Reward{Type: GiftCard, ProviderProductID: pp.ID}
	}
	r.BrandCode, r.Name, r.Description, r.IsActive = b.Code, pp.Name, pb.Description, true
	r.TermsAndConditions, r.HowToRedeem, r.CoverImage = pb.Terms, pb.HowToRedeem, s.safeURL(pb.LogoURL)
	r.Countries, r.DiscountPct = slices.Clone(pb.Countries), pp.DiscountPct
	// Face values beyond MaxFaceValue are not offered, so no price can overflow.
	if pp.ValueType == vouchers.Variable {
		r.ValueType, r.MinValue, r.MaxValue = Range, pp.MinValue, min(pp.MaxValue, MaxFaceValue)
		if r.MinValue > r.MaxValue {
			return false, nil
		}
	} else {
		r.ValueType, r.Denominations = Fixed, slices.DeleteFunc(slices.Clone(pp.Denominations), func(d money.Amount) bool { return d > MaxFaceValue })
		if len(r.Denominations) == 0 {
			return false, nil
		}
	}
	if err := r.validate(); err != nil {
		return false, fmt.Errorf("provider product %s: %w", pp.ID, err)
	}
	if created {
		_, err = repo.InsertReward(ctx, r, nil)
	} else {
		_, err = repo.UpdateReward(ctx, r, nil)
	}
	return created, err
}

// safeURL is a provider's address as kept: "" unless weburl allows it.
func (s *Service) safeURL(raw string) string {
	if !weburl.Valid(raw, s.cfg.AllowHTTPURLs) {
		return ""
	}
	return raw
}

// priceCoin returns the game's coin that prices a list: 404 COIN_NOT_FOUND unless it is one.
func (s *Service) priceCoin(ctx context.Context, q *ListQuery) error {
	if s.cfg.CoinValues != nil {
		n, err := s.cfg.CoinValues.CoinsPerUnit(ctx, s.coins.Repo(), q.GameID, q.CoinID)
		if err != nil {
			return err
		}
		q.CoinsPerUnit = n
	} else {
		c, err := s.coins.Repo().GetCoin(ctx, q.GameID, q.CoinID)
		if err != nil {
			return err
		}
		q.CoinsPerUnit = c.CoinsPerUnit
	}
	if q.Order == "" {
		q.Order = OrderDefault
	}
	q.Now = s.now()
	return nil
}

// List returns a page of the rewards a game's players see, priced in q's coin.
func (s *Service) List(ctx context.Context, q ListQuery) ([]Listed, int64, error) {
	if err := s.priceCoin(ctx, &q); err != nil {
		return nil, 0, err
	}
	snap, err := s.cfg.ReadModel.Current(ctx)
	if err != nil {
		return nil, 0, err
	}
	list, total := snap.List(q)
	if err := s.stocked(ctx, q, list); err != nil {
		return nil, 0, err
	}
	return list, total, nil
}

// stocked fills what a page of listed rewards needs beyond the snapshot: the free codes of its
// pools (through PoolStock), the coin that priced it, and the provider's stock.
func (s *Service) stocked(ctx context.Context, q ListQuery, list []Listed) error {
	if err := FillFree(ctx, list, s.FreeCodesOf); err != nil {
		return err
	}
	pricedIn(list, q.CoinsPerUnit)
	s.providerStock(ctx, q.Environment, list)
	return nil
}

// FreeCodesOf counts the free codes of the pool rewards among ids (Repo.FreeCodesOf), through
// PoolStock when there is one.
func (s *Service) FreeCodesOf(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	if s.cfg.PoolStock == nil {
		return s.repo.Repo().FreeCodesOf(ctx, ids)
	}
	return s.cfg.PoolStock.Of(ctx, ids, s.repo.Repo().FreeCodesOf)
}

// freeCodes is Repo.FreeCodes, through PoolStock when there is one.
func (s *Service) freeCodes(ctx context.Context, id uuid.UUID) (int64, error) {
	if s.cfg.PoolStock == nil {
		return s.repo.Repo().FreeCodes(ctx, id)
	}
	free, err := s.cfg.PoolStock.Of(ctx, []uuid.UUID{id}, func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
		out := make(map[uuid.UUID]int64, len(ids))
		for _, id := range ids {
			n, err := s.repo.Repo().FreeCodes(ctx, id)
			if err != nil {
				return nil, err
			}
			out[id] = n
		}
		return out, nil
	})
	return free[id], err
}

// getVisible returns one reward as q's game's players see it (Snapshot.Get).
func (s *Service) getVisible(ctx context.Context, q ListQuery, id uuid.UUID) (Listed, error) {
	snap, err := s.cfg.ReadModel.Current(ctx)
	if err != nil {
		return Listed{}, err
	}
	return snap.Get(q, id)
}

// providerStock fills the provider's stock of the synced rewards of a page, from the provider's
// (cached) answers, a few at a time: a list never offers as available what cannot be bought. A
// reward whose stock the provider does not tell is left as it is (a purchase checks again).
func (s *Service) providerStock(ctx context.Context, env studio.Environment, list []Listed) {
	provider := s.cfg.Provider
	if env != studio.Live {
		provider = s.cfg.TestProvider
	}
	if provider == nil {
		return
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i := range list {
		if list[i].Reward.ProviderProductID == "" {
			continue
		}
		wg.Add(1)
		slots <- struct{}{}
		go func(l *Listed) {
			defer func() { <-slots; wg.Done() }()
			levels, err := provider.Stock(ctx, l.Reward.ProviderProductID)
			if err != nil {
				return
			}
			n := stockOf(levels, l.Reward)
			l.ProviderStock = &n
		}(&list[i])
	}
	wg.Wait()
}

// ProviderAvailable reports whether the voucher provider of env can issue some face value of a
// synced reward now, from its (cached) stock answer; true for a reward no provider fulfils, and
// when the provider does not answer (a purchase checks again).
func (s *Service) ProviderAvailable(ctx context.Context, env studio.Environment, r Reward) bool {
	provider := s.cfg.Provider
	if env != studio.Live {
		provider = s.cfg.TestProvider
	}
	if r.ProviderProductID == "" || provider == nil {
		return true
	}
	levels, err := provider.Stock(ctx, r.ProviderProductID)
	return err != nil || stockOf(levels, r) != 0
}

// stockOf sums what the provider can issue of a reward's face values: -1 when one of them is
// unlimited, 0 when none is available.
func stockOf(levels []vouchers.Stock, r Reward) int64 {
	faces := r.Faces()
	if r.ValueType == Range {
		faces = []money.Amount{r.MinValue} // one level stands for the whole range
	}
	var total int64
	for _, f := range faces {
		lv, found := vouchers.LevelOf(levels, f, r.ValueType == Range)
		switch {
		case !found || !lv.Available:
		case lv.Quantity == nil:
			return -1
		case *lv.Quantity > 0:
			total += *lv.Quantity
		}
	}
	return total
}

// pricedIn records in each listed reward the value of the coin that priced it.
func pricedIn(list []Listed, coinsPerUnit int64) {
	for i := range list {
		list[i].CoinsPerUnit = coinsPerUnit
	}
}

// Search returns the brands, categories and a page of rewards matching q.Text; kinds limits
// which of the three groups are filled (nil: all three).
func (s *Service) Search(ctx context.Context, q SearchQuery, kinds []string) (SearchResult, error) {
	q.Text = strings.TrimSpace(q.Text)
	if q.Text == "" || len(q.Text) > 200 {
		return SearchResult{}, errs.Invalidf("q must be 1 to 200 characters")
	}
	if q.Order == "" {
		q.Order = OrderRelevance
	}
	if err := s.priceCoin(ctx, &q.ListQuery); err != nil {
		return SearchResult{}, err
	}
	want := func(k string) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	snap, err := s.cfg.ReadModel.Current(ctx)
	if err != nil {
		return SearchResult{}, err
	}
	// A new snapshot's search index is made once it serves lists: a search waits for it.
	if err := snap.searchable(); err != nil {
		return SearchResult{}, err
	}
	var res SearchResult
	if want("brands") {
		res.Brands = snap.SearchBrands(q.GameID, q.Text, 20, q.Now)
	}
	if want("categories") {
		res.Categories = snap.SearchCategories(q.GameID, q.Text, 20, q.Now)
	}
	if want("rewards") {
		res.Rewards, res.Total = snap.Search(q)
		if err := s.stocked(ctx, q.ListQuery, res.Rewards); err != nil {
			return SearchResult{}, err
		}
	}
	return res, nil
}

// SearchResult is what a search found.
type SearchResult struct {
	Brands     []BrandMeta
	Categories []CategoryMeta
	Rewards    []Listed
	Total      int64
}

// Brands returns the brands with rewards the game's players see.
func (s *Service) Brands(ctx context.Context, gameID uuid.UUID, giftCard *bool, category string) ([]BrandMeta, error) {
	snap, err := s.cfg.ReadModel.Current(ctx)
	if err != nil {
		return nil, err
	}
	return snap.Brands(gameID, giftCard, category, s.now()), nil
}

// Categories returns the categories with rewards the game's players see.
func (s *Service) Categories(ctx context.Context, gameID uuid.UUID) ([]CategoryMeta, error) {
	snap, err := s.cfg.ReadModel.Current(ctx)
	if err != nil {
		return nil, err
	}
	return snap.Categories(gameID, s.now()), nil
}

// FaceStock is one face value of a reward as a player may buy it.
type FaceStock struct {
	Value     money.Amount
	CoinPrice int64
	Available bool
}

// Detail is one reward as a player sees it before buying.
type Detail struct {
	Listed
	CoinsPerUnit int64
	// Faces are the face values on offer (none for RANGE rewards).
	Faces []FaceStock
	// NextPurchaseAt is when the player may buy the reward again, when in a cooldown.
	NextPurchaseAt *time.Time
}

// Cooldowns tells when a player last bought a reward; the orders module implements it.
type Cooldowns interface {
	LastPurchase(ctx context.Context, playerID, rewardID uuid.UUID) (*time.Time, error)
}

// Fetch returns one reward for a player, priced in q's coin, with each face value's stock and
// the player's cooldown.
func (s *Service) Fetch(ctx context.Context, q ListQuery, rewardID, playerID uuid.UUID) (Detail, error) {
	if err := s.priceCoin(ctx, &q); err != nil {
		return Detail{}, err
	}
	l, err := s.getVisible(ctx, q, rewardID)
	if err != nil {
		return Detail{}, err
	}
	if l.Reward.IsPool() {
		free, err := s.freeCodes(ctx, rewardID)
		if err != nil {
			return Detail{}, err
		}
		l.Free = &free
	}
	l.CoinsPerUnit = q.CoinsPerUnit
	d := Detail{Listed: l, CoinsPerUnit: q.CoinsPerUnit}
	stock, err := s.stock(ctx, q.Environment, l)
	if err != nil {
		return Detail{}, err
	}
	for _, f := range l.Reward.Faces() {
		d.Faces = append(d.Faces, FaceStock{Value: f, CoinPrice: l.Reward.CoinPrice(f, q.CoinsPerUnit, l.Override), Available: stock(f)})
	}
	if s.cfg.Cooldowns != nil && l.Reward.PurchaseCooldown > 0 {
		last, err := s.cfg.Cooldowns.LastPurchase(ctx, playerID, rewardID)
		if err != nil {
			return Detail{}, err
		}
		if next, in := l.Reward.NextPurchaseAt(last, q.Now); in {
			d.NextPurchaseAt = &next
		}
	}
	return d, nil
}

// stock returns whether each face value of a listed reward can be bought now: a pool's free
// codes, the provider's stock, or always.
func (s *Service) stock(ctx context.Context, env studio.Environment, l Listed) (func(money.Amount) bool, error) {
	provider := s.cfg.Provider
	if env != studio.Live {
		provider = s.cfg.TestProvider
	}
	switch {
	case l.Free != nil:
		free := *l.Free > 0
		return func(money.Amount) bool { return free }, nil
	case l.Reward.ProviderProductID != "" && provider != nil:
		levels, err := provider.Stock(ctx, l.Reward.ProviderProductID)
		if err != nil {
			return nil, fmt.Errorf("stock of %s: %w", l.Reward.ProviderProductID, err)
		}
		return func(f money.Amount) bool {
			for _, lv := range levels {
				if lv.Denomination == f {
					return lv.Available && (lv.Quantity == nil || *lv.Quantity > 0)
				}
			}
			return false
		}, nil
	}
	return func(money.Amount) bool { return true }, nil
}

// RedirectionLink returns the player's short link to a reward's brand site, creating it on the
// first call.
func (s *Service) RedirectionLink(ctx context.Context, q ListQuery, playerID, rewardID uuid.UUID) (string, error) {
	q.Now = s.now()
	if _, err := s.getVisible(ctx, q, rewardID); err != nil {
		return "", err
	}
	code, err := s.repo.Repo().ShortLink(ctx, playerID, rewardID, rand.Text()[:10])
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(s.cfg.PublicURL, "/") + "/r/" + code, nil
}

// FollowLink counts a click on a short link and returns where it leads: the brand's website
// with utm_source=rewards.
func (s *Service) FollowLink(ctx context.Context, code string) (string, error) {
	if code == "" || len(code) > 32 {
		return "", ErrLinkNotFound
	}
	site, err := s.repo.Repo().FollowLink(ctx, code)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(site)
	if err != nil || !weburl.Valid(site, s.cfg.AllowHTTPURLs) {
		// Only to a web address: never javascript:, data: or anything else a stored value holds.
		return "", ErrLinkNotFound.Withf("this reward's brand has no website")
	}
	v := u.Query()
	v.Set("utm_source", "rewards")
	u.RawQuery = v.Encode()
	return u.String(), nil
}
