package touchpoints

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/weburl"
)

// Config holds the touchpoints module's settings.
type Config struct {
	// Currency is the deployment currency, named in served prices.
	Currency string
	// DefaultStoreURL is the store address of a game that has no storeUrl: the service's own
	// reward pages ({REWARDS_PUBLIC_URL}/store), so that every link served opens something.
	DefaultStoreURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Stock tells whether the voucher provider can issue a synced reward now; nil treats every
	// reward as available.
	Stock Stock
	// AllowHTTPURLs lets image addresses be plain http (outside production); otherwise they
	// are https (weburl).
	AllowHTTPURLs bool
	// Reads, when set, answers the reward reads of trees (STATIC rewards, rewards rules) and of
	// serving placements (the configured reward, the rule) from memory; what trees need that it
	// does not hold, and every read when it fails, goes to the Repo.
	Reads Reads
	// CoinValues, when set, lets a tree read without a player token cost no round trip: the
	// coin's value comes from it, the tree from the service's cache of trees while it was read
	// less than authcache.TTL ago (dropped by this instance's PutTree and DeleteTree). Nil reads
	// both every time.
	CoinValues CoinValues
	// Audit records each change of a game's placements, trees and coin (audit.Log), in the
	// change's transaction; it must be on the same storage. Required.
	Audit *audit.Log
}

// Service holds the touchpoints use cases.
type Service struct {
	repo store.Of[Repo]
	cfg  Config
	now  func() time.Time
	// trees is the one cache of stored trees (treeCache): it serves reads without a player for
	// authcache.TTL, and spares every other read the decoding of a tree that did not change.
	trees *treeCache
}

// NewService returns a Service over the touchpoints storage.
func NewService(repo store.Of[Repo], cfg Config) *Service {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Service{repo: repo, cfg: cfg, now: now, trees: newTreeCache()}
}

var assetIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{1,63}$`)

func (s *Service) validURL(field, raw string) error {
	return weburl.Check(field, raw, s.cfg.AllowHTTPURLs, true)
}

func validFrame(orientation string, width, height int) error {
	if orientation != Portrait && orientation != Landscape {
		return errs.Invalidf("orientation must be PORTRAIT or LANDSCAPE")
	}
	if width < 1 || width > 10000 || height < 1 || height > 10000 {
		return errs.Invalidf("width and height must be from 1 to 10000 pixels")
	}
	return nil
}

// PutAsset creates or replaces a PRESET frame of the library; placements pointing at it are
// served with its new image at once.
func (s *Service) PutAsset(ctx context.Context, a PresetAsset) (bool, error) {
	if !assetIDPattern.MatchString(a.ID) {
		return false, errs.Invalidf("assetId must match ^[a-z0-9][a-z0-9_-]{1,63}$")
	}
	if strings.TrimSpace(a.Name) == "" || len(a.Name) > 200 {
		return false, errs.Invalidf("name must be 1 to 200 characters")
	}
	if err := s.validURL("imageUrl", a.ImageURL); err != nil {
		return false, err
	}
	if err := validFrame(a.Orientation, a.Width, a.Height); err != nil {
		return false, err
	}
	return s.repo.Repo().UpsertAsset(ctx, a)
}

// Assets returns the library.
func (s *Service) Assets(ctx context.Context) ([]PresetAsset, error) {
	return s.repo.Repo().ListAssets(ctx)
}

func validRule(r *Rule) error {
	if r == nil {
		return nil
	}
	if r.SortBy == "" {
		r.SortBy = SortDefault
	}
	if !slices.Contains(SortOrders, r.SortBy) {
		return errs.Invalidf("item.rule.sortBy must be one of %s", strings.Join(SortOrders, ", "))
	}
	if len(r.Category) > 128 || len(r.Brand) > 128 {
		return errs.Invalidf("item.rule: category and brand must be at most 128 characters")
	}
	return nil
}

// PutPlacement creates or replaces a placement of a game's environment. The screen must be
// served, the frame a library asset (PRESET) or the studio's artwork (UPLOAD), the configured
// item of the placement's type, and at most one placement per screen and type.
func (s *Service) PutPlacement(ctx context.Context, p Placement) (Placement, bool, error) {
	if !p.Environment.Valid() {
		return Placement{}, false, errs.Invalidf("environment must be live or test")
	}
	if !slices.Contains(Screens, p.Screen) {
		return Placement{}, false, ErrUnknownScreen
	}
	if !p.Type.Valid() {
		return Placement{}, false, errs.Invalidf("type must be product, coupon or gift-card")
	}
	switch p.Asset.Source {
	case SourcePreset:
		if p.Asset.PresetID == "" {
			return Placement{}, false, errs.Invalidf("asset.presetId is required for a PRESET asset")
		}
	case SourceUpload:
		p.Asset.PresetID = ""
		if err := s.validURL("asset.imageUrl", p.Asset.ImageURL); err != nil {
			return Placement{}, false, err
		}
		if err := validFrame(p.Asset.Orientation, p.Asset.Width, p.Asset.Height); err != nil {
			return Placement{}, false, fmt.Errorf("asset: %w", err)
		}
	default:
		return Placement{}, false, errs.Invalidf("asset.source must be PRESET or UPLOAD")
	}
	if p.Type == TypeProduct && p.RewardID != nil || p.Type != TypeProduct && p.ProductID != "" {
		return Placement{}, false, errs.Invalidf("item: a product placement names a productId, a coupon or gift-card placement a rewardId")
	}
	if p.RewardID == nil && p.ProductID == "" && p.Rule == nil {
		return Placement{}, false, errs.Invalidf("item needs a rewardId, a productId or a rule")
	}
	if err := validRule(p.Rule); err != nil {
		return Placement{}, false, err
	}
	var created bool
	err := s.cfg.Audit.InTx(ctx, func(tx store.Tx) error {
		repo := s.repo.WithTx(tx)
		if err := repo.LockGame(ctx, p.GameID); err != nil {
			return err
		}
		if p.Asset.Source == SourcePreset {
			a, err := repo.GetAsset(ctx, p.Asset.PresetID)
			if errs.CodeOf(err) == ErrAssetNotFound.Code {
				return errs.Invalidf("asset.presetId: %q is not an asset of the library", p.Asset.PresetID)
			}
			if err != nil {
				return err
			}
			p.Asset.ImageURL, p.Asset.Orientation, p.Asset.Width, p.Asset.Height = a.ImageURL, a.Orientation, a.Width, a.Height
		}
		if p.RewardID != nil {
			types, err := repo.RewardTypes(ctx, []uuid.UUID{*p.RewardID})
			if err != nil {
				return err
			}
			want := catalogue.Coupon
			if p.Type == TypeGiftCard {
				want = catalogue.GiftCard
			}
			if t, ok := types[*p.RewardID]; !ok || t != want {
				return errs.Invalidf("item.rewardId: %s is not a %s reward of the catalogue", p.RewardID, want)
			}
		}
		if p.ProductID != "" {
			found, err := repo.ExistingProducts(ctx, []string{p.ProductID})
			if err != nil {
				return err
			}
			if len(found) == 0 {
				return errs.Invalidf("item.productId: %q is not a product of the catalogue", p.ProductID)
			}
		}
		var err error
		if created, p.UpdatedAt, err = repo.UpsertPlacement(ctx, p); err != nil {
			return err
		}
		return s.cfg.Audit.Record(ctx, tx, audit.Entry{GameID: &p.GameID, Action: "placement.put", TargetType: "placement",
			TargetID: p.ID.String(), Environment: string(p.Environment),
			Details: map[string]string{"screen": p.Screen, "type": string(p.Type), "created": fmt.Sprint(created), "active": fmt.Sprint(p.IsActive)}})
	})
	return p, created, err
}

// Placements returns a game's placements of one environment.
func (s *Service) Placements(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]Placement, error) {
	if !env.Valid() {
		return nil, errs.Invalidf("environment must be live or test")
	}
	var out []Placement
	err := s.repo.InTx(ctx, func(repo Repo) error {
		if err := repo.LockGame(ctx, gameID); err != nil {
			return err
		}
		var err error
		out, err = repo.Placements(ctx, gameID, env, "")
		return err
	})
	return out, err
}

// Promote is the go-live: the game's live placements become copies of its test placements
// (ids kept); live placements absent from test are removed. It returns the live placements.
func (s *Service) Promote(ctx context.Context, gameID uuid.UUID) ([]Placement, error) {
	out, _, err := s.promote(ctx, gameID, "")
	return out, err
}

// PromoteChecked is Promote for a difference a person confirmed: with version set (a Diff's
// Version), placements that changed since are refused with ErrPromoteChanged and nothing is
// copied, checked under the game's lock in the copy's own transaction. It returns the
// difference it applied.
func (s *Service) PromoteChecked(ctx context.Context, gameID uuid.UUID, version string) (Diff, error) {
	_, d, err := s.promote(ctx, gameID, version)
	return d, err
}

func (s *Service) promote(ctx context.Context, gameID uuid.UUID, version string) (out []Placement, d Diff, err error) {
	err = s.cfg.Audit.InTx(ctx, func(tx store.Tx) error {
		repo := s.repo.WithTx(tx)
		if err := repo.LockGame(ctx, gameID); err != nil {
			return err
		}
		test, err := repo.Placements(ctx, gameID, studio.Test, "")
		if err != nil {
			return err
		}
		live, err := repo.Placements(ctx, gameID, studio.Live, "")
		if err != nil {
			return err
		}
		if d = DiffPlacements(test, live); version != "" && version != d.Version {
			return ErrPromoteChanged
		}
		if _, err := repo.PromotePlacements(ctx, gameID); err != nil {
			return err
		}
		if out, err = repo.Placements(ctx, gameID, studio.Live, ""); err != nil {
			return err
		}
		return s.cfg.Audit.Record(ctx, tx, audit.Entry{GameID: &gameID, Action: "placement.promote", TargetType: "game",
			TargetID: gameID.String(), Environment: string(studio.Live), Details: map[string]string{"livePlacements": fmt.Sprint(len(out)),
				"added": fmt.Sprint(len(d.Added)), "changed": fmt.Sprint(len(d.Changed)), "removed": fmt.Sprint(len(d.Removed))}})
	})
	return out, d, err
}

// SetCoin makes a coin of the game its touchpoint coin: served prices and coin figures use it.
func (s *Service) SetCoin(ctx context.Context, gameID, coinID uuid.UUID) error {
	e := audit.Entry{GameID: &gameID, Action: "touchpoint_coin.set", TargetType: "coin", TargetID: coinID.String()}
	return s.cfg.Audit.Change(ctx, e, func(tx store.Tx) error {
		repo := s.repo.WithTx(tx)
		if err := repo.LockGame(ctx, gameID); err != nil {
			return err
		}
		if _, err := repo.Coin(ctx, gameID, coinID, nil); err != nil {
			if errs.KindOf(err) == errs.NotFound {
				return errs.Invalidf("coinId: %s is not a coin of this game", coinID)
			}
			return err
		}
		return repo.SetCoin(ctx, gameID, coinID)
	})
}

// ServeRequest asks what a screen shows.
type ServeRequest struct {
	GameID      uuid.UUID
	Environment studio.Environment
	// PlayerID is the player of the token sent, if any: coin figures are capped by its balance.
	PlayerID *uuid.UUID
	Screen   string
	// Type chooses among several placements of the screen; "" when there is one.
	Type ItemType
	// UTM are the utm_source, utm_medium and utm_campaign parameters to append to cta.url.
	UTM map[string]string
}

// Served is what a screen shows: both Asset and Item, or neither.
type Served struct {
	Screen      string
	PlacementID *uuid.UUID
	Asset       *Asset
	Item        *Item
	ServedAt    time.Time
}

// Item is a served offer.
type Item struct {
	// Type is PRODUCT, COUPON or GIFT_CARD.
	Type      string
	ID        string
	Title     string
	Subtitle  string
	BrandName string
	ImageURL  string
	// OfferText is a coupon's headline.
	OfferText string
	// Pricing is nil for coupons and stale product prices.
	Pricing *Pricing
	// Coins is nil when the coin can pay nothing.
	Coins    *CoinOffer
	CTALabel string
	CTAURL   string
}

// Serve answers what a screen of the caller's game shows the player: the screen's active
// placement (of Type when it has several), its item — the configured one when active and in
// stock, else the best by its rule — priced for the player in the game's touchpoint coin. A
// screen with no placement or no item available is a normal answer with neither.
func (s *Service) Serve(ctx context.Context, r ServeRequest) (Served, error) {
	if !slices.Contains(Screens, r.Screen) {
		return Served{}, ErrUnknownScreen
	}
	if r.Type != "" && !r.Type.Valid() {
		return Served{}, errs.Invalidf("type must be product, coupon or gift-card")
	}
	now := s.now()
	out := Served{Screen: r.Screen, ServedAt: now}
	repo := s.repo.Repo()
	sc, err := repo.Screen(ctx, r.GameID, r.Environment, r.Screen, r.PlayerID)
	if err != nil {
		return Served{}, err
	}
	list := sc.Placements
	if r.Type != "" {
		list = slices.DeleteFunc(list, func(p Placement) bool { return p.Type != r.Type })
	}
	switch {
	case len(list) == 0:
		return out, nil
	case len(list) > 1:
		return Served{}, ErrTypeRequired
	}
	p := list[0]
	out.PlacementID = &p.ID
	storeURL, coin := sc.StoreURL, sc.Coin
	if coin != nil && r.PlayerID != nil && coin.Balance == nil {
		zero := int64(0)
		coin.Balance = &zero
	}
	item, err := s.pick(ctx, repo, r.GameID, r.Environment, p, coin, now)
	if err != nil || item == nil {
		return out, err
	}
	if storeURL == "" {
		storeURL = s.cfg.DefaultStoreURL
	}
	item.CTAURL = ctaURL(storeURL, item.ID, r.UTM)
	out.Asset, out.Item = &p.Asset, item
	return out, nil
}

// pick returns the placement's item priced for coin, or nil when none is available.
func (s *Service) pick(ctx context.Context, repo Repo, gameID uuid.UUID, env studio.Environment, p Placement, coin *Coin, now time.Time) (*Item, error) {
	coinID := uuid.Nil
	if coin != nil {
		coinID = coin.ID
	}
	if p.Type == TypeProduct {
		if p.ProductID != "" {
			list, err := repo.Products(ctx, []string{p.ProductID})
			if err != nil {
				return nil, err
			}
			if len(list) == 1 && list[0].IsActive {
				return s.productItem(list[0], coin, now), nil
			}
		}
		if p.Rule == nil {
			return nil, nil
		}
		list, err := repo.BestProducts(ctx, ProductQuery{Category: p.Rule.Category, Brand: p.Rule.Brand, SortBy: p.Rule.SortBy, Limit: 1})
		if err != nil || len(list) == 0 {
			return nil, err
		}
		return s.productItem(list[0], coin, now), nil
	}
	if p.RewardID != nil {
		list, err := s.servableRewards(ctx, repo, gameID, coinID, []uuid.UUID{*p.RewardID})
		if err != nil {
			return nil, err
		}
		if len(list) == 1 && list[0].Active(now) && list[0].InStock() && s.available(ctx, env, list[0]) {
			return s.rewardItem(list[0], coin), nil
		}
	}
	if p.Rule == nil {
		return nil, nil
	}
	typ := catalogue.Coupon
	if p.Type == TypeGiftCard {
		typ = catalogue.GiftCard
	}
	// A few candidates: the best one the provider can issue now is served.
	list, err := s.bestRewards(ctx, repo, RewardQuery{GameID: gameID, CoinID: coinID, Type: typ, Category: p.Rule.Category,
		Brand: p.Rule.Brand, SortBy: p.Rule.SortBy, InStock: true, Limit: serveCandidates, Now: now})
	if err != nil {
		return nil, err
	}
	for _, r := range list {
		if s.available(ctx, env, r) {
			return s.rewardItem(r, coin), nil
		}
	}
	return nil, nil
}

// servableRewards returns the rewards of ids as Repo.Rewards does, but for those nobody sees:
// from Config.Reads when it answers, where a reward it does not hold (an inactive reward or
// brand, or none) is left out, as serving would leave it, so memory answers the whole read.
// When Reads fails (no snapshot yet), the Repo answers.
func (s *Service) servableRewards(ctx context.Context, repo Repo, gameID, coinID uuid.UUID, ids []uuid.UUID) ([]RewardItem, error) {
	if s.cfg.Reads != nil {
		if list, _, err := s.cfg.Reads.Rewards(ctx, gameID, coinID, ids); err == nil {
			return list, nil
		}
	}
	return repo.Rewards(ctx, gameID, coinID, ids)
}

// bestRewards answers q as Repo.BestRewards does, from Config.Reads when it answers, else from
// the Repo.
func (s *Service) bestRewards(ctx context.Context, repo Repo, q RewardQuery) ([]RewardItem, error) {
	if s.cfg.Reads != nil {
		if list, err := s.cfg.Reads.BestRewards(ctx, q); err == nil {
			return list, nil
		}
	}
	return repo.BestRewards(ctx, q)
}

// serveCandidates is how many best rewards a placement's rule reads, for when the first ones
// are out of stock at the provider.
const serveCandidates = 5

// available reports whether the voucher provider can issue a synced reward now (pools are
// counted by the query itself).
func (s *Service) available(ctx context.Context, env studio.Environment, r RewardItem) bool {
	return s.cfg.Stock == nil || s.cfg.Stock.ProviderAvailable(ctx, env, r.Reward)
}

// rewardItem is a coupon or gift card as served. Coins may pay the whole price of a reward.
// A coupon has no pricing; its headline is its campaign title, else its discount, else its
// name.
func (s *Service) rewardItem(r RewardItem, coin *Coin) *Item {
	rw := r.Reward
	it := &Item{Type: "GIFT_CARD", ID: rw.ID.String(), Title: rw.Name, Subtitle: rw.CampaignSubTitle,
		BrandName: r.Brand.Name, ImageURL: rw.CoverImage, CTALabel: "Get gift card"}
	if it.ImageURL == "" {
		it.ImageURL = r.Brand.LogoURL
	}
	face := rw.MinFace()
	pricing, offer := Quote(s.cfg.Currency, face, rw.SellingPriceOf(face), 10000, coin)
	it.Coins = offer
	if rw.Type == catalogue.Coupon {
		it.Type, it.CTALabel = "COUPON", "Get coupon"
		switch d := rw.DiscountOnMRP(); {
		case rw.CampaignTitle != "":
			it.OfferText = rw.CampaignTitle
		case d > 0:
			it.OfferText = fmt.Sprintf("%s%% off at %s", trimPct(d), r.Brand.Name)
		default:
			it.OfferText = rw.Name
		}
		return it
	}
	it.Pricing = &pricing
	return it
}

// productItem is a product as served: its pricing is null (and no coins are offered) when the
// price snapshot is over 24 hours old.
func (s *Service) productItem(p catalogue.Product, coin *Coin, now time.Time) *Item {
	it := &Item{Type: "PRODUCT", ID: p.ID, Title: p.Name, Subtitle: p.Category, BrandName: p.BrandName,
		ImageURL: p.ImageURL, CTALabel: "Shop now"}
	it.Pricing, it.Coins = PriceProduct(s.cfg.Currency, p, coin, now)
	return it
}

// PriceProduct quotes a product (Quote with its discounted listing price and its
// maxCoinDiscountPct), or nothing at all when its price snapshot is stale: a touchpoint never
// shows a price the store may not honour.
func PriceProduct(currency string, p catalogue.Product, coin *Coin, now time.Time) (*Pricing, *CoinOffer) {
	if Stale(p.PriceUpdatedAt, now) {
		return nil, nil
	}
	pricing, offer := Quote(currency, p.MRP, p.DiscountedListingPrice, p.MaxCoinDiscountPct, coin)
	return &pricing, offer
}

func trimPct(p money.Pct) string {
	return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.2f", p.Float()), "0"), ".0")
}

// utmKeys are the request parameters cta.url carries on.
var utmKeys = []string{"utm_source", "utm_medium", "utm_campaign"}

// ctaURL is {storeURL}/rewards/{itemID} with the utm parameters sent.
func ctaURL(storeURL, itemID string, utm map[string]string) string {
	u := strings.TrimSuffix(storeURL, "/") + "/rewards/" + url.PathEscape(itemID)
	v := url.Values{}
	for _, k := range utmKeys {
		if utm[k] != "" {
			v.Set(k, utm[k])
		}
	}
	if len(v) > 0 {
		u += "?" + v.Encode()
	}
	return u
}

// PutTree creates or replaces the game's tree of name after checking it: unique node ids (a
// node without one gets one), ASSET nodes link nothing, STATIC nodes link a reward or product
// that exists (or have a descendant that does), DYNAMIC nodes have a query and actionPrefix
// and are not popups, at most MaxNodes nodes and MaxDepth levels.
func (s *Service) PutTree(ctx context.Context, gameID uuid.UUID, name string, nodes []Node) (Tree, bool, error) {
	if !ValidName(name) {
		return Tree{}, false, errs.Invalidf("name must be 1 to %d characters, without / or control characters", MaxNameLen)
	}
	refs, err := validateTreeWith(nodes, s.cfg.AllowHTTPURLs)
	if err != nil {
		return Tree{}, false, err
	}
	var out Tree
	var created bool
	err = s.cfg.Audit.InTx(ctx, func(tx store.Tx) error {
		repo := s.repo.WithTx(tx)
		if err := repo.LockGame(ctx, gameID); err != nil {
			return err
		}
		types, err := repo.RewardTypes(ctx, refs.rewards)
		if err != nil {
			return err
		}
		for _, id := range refs.rewards {
			if _, ok := types[id]; !ok {
				return errs.Invalidf("rewardId %s is not a reward of the catalogue", id)
			}
		}
		found, err := repo.ExistingProducts(ctx, refs.products)
		if err != nil {
			return err
		}
		for _, id := range refs.products {
			if !slices.Contains(found, id) {
				return errs.Invalidf("productId %q is not a product of the catalogue", id)
			}
		}
		if out, created, err = repo.UpsertTree(ctx, Tree{GameID: gameID, Name: name, Nodes: nodes, Served: ServedSize(nodes)}); err != nil {
			return err
		}
		return s.cfg.Audit.Record(ctx, tx, audit.Entry{GameID: &gameID, Action: "tree.put", TargetType: "tree", TargetID: out.ID.String(),
			Details: map[string]string{"name": name, "created": fmt.Sprint(created), "nodes": fmt.Sprint(len(nodes))}})
	})
	s.treesChanged(gameID)
	return out, created, err
}

// DeleteTree deletes the game's tree of name: studio.ErrGameNotFound when there is no such
// game, ErrTouchpointNotFound when it has no such tree.
func (s *Service) DeleteTree(ctx context.Context, gameID uuid.UUID, name string) error {
	e := audit.Entry{GameID: &gameID, Action: "tree.delete", TargetType: "tree", Details: map[string]string{"name": name}}
	err := s.cfg.Audit.Change(ctx, e, func(tx store.Tx) error {
		repo := s.repo.WithTx(tx)
		if err := repo.LockGame(ctx, gameID); err != nil {
			return err
		}
		return repo.DeleteTree(ctx, gameID, name)
	})
	s.treesChanged(gameID)
	return err
}

// treesChanged forgets the game's cached trees, and any read of them in flight, once a change
// has committed (or failed): the next read on this instance reads the storage.
func (s *Service) treesChanged(gameID uuid.UUID) {
	s.trees.drop(gameID)
}

// TreeRequest is how a game reads its trees.
type TreeRequest struct {
	GameID uuid.UUID
	// CoinID, when set, fills the data of STATIC and generated nodes, priced in that coin of
	// the game (404 COIN_NOT_FOUND otherwise).
	CoinID *uuid.UUID
	// PlayerID, when set, caps product coin figures by the player's balance.
	PlayerID *uuid.UUID
}

// TreeByName returns the game's tree of name (case sensitive), served.
func (s *Service) TreeByName(ctx context.Context, q TreeRequest, name string) (Tree, error) {
	if !ValidName(name) {
		// No tree has it: the read still answers for the coin, which is checked first.
		name = ""
	}
	return s.one(ctx, q, TreeKey{Name: name})
}

// TreeByID returns one of the game's trees, served.
func (s *Service) TreeByID(ctx context.Context, q TreeRequest, id uuid.UUID) (Tree, error) {
	return s.one(ctx, q, TreeKey{ID: id})
}

func (s *Service) one(ctx context.Context, q TreeRequest, key TreeKey) (Tree, error) {
	repo := s.repo.Repo()
	var t Tree
	var coin *Coin
	var err error
	if q.PlayerID == nil && s.cfg.CoinValues != nil {
		t, coin, err = s.knownTree(ctx, repo, q, key)
	} else {
		t, coin, err = s.readTree(ctx, repo, q, key)
	}
	if err != nil {
		return Tree{}, err
	}
	list := []Tree{t}
	if err := s.serveTrees(ctx, repo, q.GameID, playerCoin(coin, q.PlayerID), list); err != nil {
		return Tree{}, err
	}
	return list[0], nil
}

// knownTree answers as readTree does without a player, from memory when it can: the coin from
// treeCoin (Config.CoinValues), the tree from s.trees while fresh.
func (s *Service) knownTree(ctx context.Context, repo Repo, q TreeRequest, key TreeKey) (Tree, *Coin, error) {
	// The coin first: COIN_NOT_FOUND whether or not the tree exists.
	coin, err := s.treeCoin(ctx, repo, q)
	if err != nil {
		return Tree{}, nil, err
	}
	if t, fresh, _ := s.trees.get(treeKeyOf(q.GameID, key)); fresh {
		return t, coin, nil
	}
	t, _, err := s.readTree(ctx, repo, TreeRequest{GameID: q.GameID}, key)
	return t, coin, err
}

// readTree reads the tree of key with q's coin and player (Repo.TreeWithCoin), handing the
// storage the cached tree so that an unchanged one is not read and decoded again, and keeps
// what it read.
func (s *Service) readTree(ctx context.Context, repo Repo, q TreeRequest, key TreeKey) (Tree, *Coin, error) {
	k := treeKeyOf(q.GameID, key)
	r := s.trees.begin()
	t, coin, err := repo.TreeWithCoin(ctx, q.GameID, key, q.CoinID, q.PlayerID, s.trees.known(k))
	if errs.CodeOf(err) == ErrTouchpointNotFound.Code {
		s.trees.forget(k)
	}
	if err != nil {
		return Tree{}, nil, err
	}
	s.trees.put(k, t, r)
	return t, coin, nil
}

// Trees returns a page of the game's trees, by name, served: at most limit trees (1 to
// MaxListedTrees) that serve at most MaxPageNodes nodes together (pageOf). Only the page's
// trees are read whole.
func (s *Service) Trees(ctx context.Context, q TreeRequest, page, limit int) (TreeList, error) {
	if page < 1 || limit < 1 || limit > MaxListedTrees {
		return TreeList{}, errs.Invalidf("page must be at least 1 and limit from 1 to %d", MaxListedTrees)
	}
	repo := s.repo.Repo()
	coin, err := s.treeCoin(ctx, repo, q)
	if err != nil {
		return TreeList{}, err
	}
	sizes, total, err := repo.TreeSizes(ctx, q.GameID, page*limit)
	if err != nil {
		return TreeList{}, err
	}
	served := make([]int, len(sizes))
	for i, t := range sizes {
		served[i] = t.Served
	}
	lo, hi := pageOf(served, page, limit)
	out := TreeList{Total: total, More: hi < total}
	if lo == hi {
		return out, nil
	}
	ids := make([]uuid.UUID, 0, hi-lo)
	for _, t := range sizes[lo:hi] {
		ids = append(ids, t.ID)
	}
	known := make(map[uuid.UUID]Tree, len(ids))
	for _, id := range ids {
		if t := s.trees.known(treeKeyOf(q.GameID, TreeKey{ID: id})); t != nil {
			known[id] = *t
		}
	}
	r := s.trees.begin()
	trees, err := repo.TreesByID(ctx, q.GameID, ids, known)
	if err != nil {
		return TreeList{}, err
	}
	for _, t := range trees {
		s.trees.put(treeKeyOf(q.GameID, TreeKey{ID: t.ID}), t, r)
	}
	// A tree written again between the two reads may serve more than it did: the page ends
	// before it when it would pass the bound, as read.
	served = served[:0]
	for _, t := range trees {
		served = append(served, t.Served)
	}
	if _, end := pageOf(served, 1, limit); end < len(trees) {
		trees, out.More = trees[:end], true
	}
	out.Trees = trees
	return out, s.serveTrees(ctx, repo, q.GameID, coin, trees)
}

// treeCoin is the coin that hydrates trees (nil without coinId), with the player's balance. Without
// a player it comes from Config.CoinValues when set: its id and value, all that serving a tree
// uses of it (a tree shows no coin name or image).
func (s *Service) treeCoin(ctx context.Context, repo Repo, q TreeRequest) (*Coin, error) {
	if q.CoinID == nil {
		return nil, nil
	}
	if q.PlayerID == nil && s.cfg.CoinValues != nil {
		n, err := s.cfg.CoinValues.CoinsPerUnit(ctx, q.GameID, *q.CoinID)
		if err != nil {
			return nil, err
		}
		return &Coin{ID: *q.CoinID, CoinsPerUnit: n}, nil
	}
	c, err := repo.Coin(ctx, q.GameID, *q.CoinID, q.PlayerID)
	if err != nil {
		return nil, err
	}
	return playerCoin(&c, q.PlayerID), nil
}

// playerCoin is coin with the balance that caps figures: the player's (0 when it has none), or
// none without a player.
func playerCoin(coin *Coin, playerID *uuid.UUID) *Coin {
	if coin == nil {
		return nil
	}
	if playerID == nil {
		coin.Balance = nil
	} else if coin.Balance == nil {
		zero := int64(0)
		coin.Balance = &zero
	}
	return coin
}

// readMemory answers the reward reads of l from Config.Reads: what it found, and l with only
// the reads left for the Repo (the rewards it does not hold, the products); ok is false, with l
// unchanged, when it failed.
func (s *Service) readMemory(ctx context.Context, l Lookup) (found Found, rest Lookup, ok bool) {
	rest = l
	if len(l.RewardIDs) > 0 {
		list, missing, err := s.cfg.Reads.Rewards(ctx, l.GameID, l.CoinID, l.RewardIDs)
		if err != nil {
			return Found{}, l, false
		}
		found.Rewards, rest.RewardIDs = list, missing
	}
	found.BestRewards = make([][]RewardItem, len(l.BestRewards))
	for i, q := range l.BestRewards {
		list, err := s.cfg.Reads.BestRewards(ctx, q)
		if err != nil {
			return Found{}, l, false
		}
		found.BestRewards[i] = list
	}
	rest.BestRewards = nil
	return found, rest, true
}

// collect adds what stored (so valid) nodes name to r, reading only: the storage may share the
// nodes between requests.
func collect(nodes []Node, r *refs) {
	for i := range nodes {
		n := &nodes[i]
		switch {
		case n.DataType == DataDynamic && n.Query != nil:
			r.dynamic = append(r.dynamic, n)
		case n.RewardID != nil:
			r.rewards = append(r.rewards, *n.RewardID)
		case n.ProductID != "":
			r.products = append(r.products, n.ProductID)
		}
		collect(n.Nodes, r)
		if n.Popup != nil {
			collect([]Node{*n.Popup}, r)
		}
	}
}

// serveTrees replaces the trees' nodes by their served form: DYNAMIC nodes expanded, data
// filled when coin is set. Every tree's items are read together.
func (s *Service) serveTrees(ctx context.Context, repo Repo, gameID uuid.UUID, coin *Coin, trees []Tree) error {
	now := s.now()
	e := &expander{left: MaxServedNodes, coin: coin, currency: s.cfg.Currency, now: now}
	var all refs
	for _, t := range trees {
		collect(t.Nodes, &all)
	}
	// One Lookup: the items of STATIC nodes (only hydrated with a coin) and every DYNAMIC
	// node's query.
	l := Lookup{GameID: gameID}
	if coin != nil {
		l.CoinID, l.RewardIDs, l.ProductIDs = coin.ID, all.rewards, all.products
	}
	// at is where each DYNAMIC node's query sits in l.BestRewards or l.BestProducts.
	at := make([]int, len(all.dynamic))
	for i, n := range all.dynamic {
		q := *n.Query
		if q.SortBy == "" {
			q.SortBy = SortDefault
		}
		if q.Limit == 0 {
			q.Limit = 10
		}
		if q.Type == QueryProducts {
			at[i] = len(l.BestProducts)
			l.BestProducts = append(l.BestProducts, ProductQuery{Category: q.Category, Brand: q.Brand, SortBy: q.SortBy, Limit: q.Limit})
		} else {
			at[i] = len(l.BestRewards)
			l.BestRewards = append(l.BestRewards, RewardQuery{GameID: gameID, CoinID: l.CoinID, Category: q.Category, Brand: q.Brand,
				SortBy: q.SortBy, InStock: true, Limit: q.Limit, Now: now})
		}
	}
	var mem Found
	fromMemory := false
	if s.cfg.Reads != nil {
		mem, l, fromMemory = s.readMemory(ctx, l)
	}
	found, err := repo.Lookup(ctx, l)
	if err != nil {
		return err
	}
	if fromMemory {
		if len(found.Rewards) == 0 {
			found.Rewards = mem.Rewards
		} else {
			found.Rewards = append(found.Rewards, mem.Rewards...)
		}
		found.BestRewards = mem.BestRewards
	}
	// The expander points into found: each item is copied once, into the data of its nodes.
	e.rewards = make(map[uuid.UUID]*RewardItem, len(found.Rewards))
	for i := range found.Rewards {
		e.rewards[found.Rewards[i].Reward.ID] = &found.Rewards[i]
	}
	e.products = make(map[string]*catalogue.Product, len(found.Products))
	for i := range found.Products {
		e.products[found.Products[i].ID] = &found.Products[i]
	}
	e.dynamic = make(map[uuid.UUID][]dynItem, len(all.dynamic))
	for i, n := range all.dynamic {
		var items []dynItem
		if n.Query.Type == QueryProducts {
			list := found.BestProducts[at[i]]
			items = make([]dynItem, len(list))
			for j := range list {
				items[j] = dynItem{product: &list[j]}
			}
		} else {
			list := found.BestRewards[at[i]]
			items = make([]dynItem, len(list))
			for j := range list {
				items[j] = dynItem{reward: &list[j]}
			}
		}
		e.dynamic[n.ID] = items
	}
	for i := range trees {
		e.left = MaxServedNodes // each tree has its own budget
		trees[i].Nodes = e.nodes(trees[i].Nodes)
	}
	return nil
}
