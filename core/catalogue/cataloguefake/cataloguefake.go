// Package cataloguefake is an in-memory catalogue.Repo that behaves like the PostgreSQL one
// (adapters/postgres/catalogue.go), for core tests: upserts report whether they created, a
// reward reads back as its row keeps it (prices as the columns the listing sorts by, the
// cooldown in whole seconds, times in microseconds), a pool refuses a second code with the
// same fingerprint and gives each code to one order only, in the order the codes were added,
// and the catalogue's version moves with every write of what players see (categories,
// brands, rewards, the games' settings). Register it with a memstore.Runner (memstore.New) and
// a failed transaction leaves it as it was.
//
// What it holds of other modules' tables: nothing. It checks that a reward's brand exists, but
// no foreign key to games or players, and GetVisibleWithCoin reads the coin from the coins
// repository given to New.
//
// cataloguetest.Run is the contract it passes with PostgreSQL.
package cataloguefake

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct {
	*memstore.Table[state]
	coins coins.Repo
}

var _ catalogue.Repo = (*Repo)(nil)

// reward is a reward's row: the reward as it reads back, and its sealed shared code.
type reward struct {
	r      catalogue.Reward
	shared []byte
}

// poolCode is a code of a pool; order is uuid.Nil while the code is free.
type poolCode struct {
	code  catalogue.SealedCode
	order uuid.UUID
}

type gameKey struct{ game, reward uuid.UUID }

type linkKey struct{ player, reward uuid.UUID }

type link struct {
	key    linkKey
	clicks int64
}

type orderKey struct {
	reward uuid.UUID
	day    string
}

type state struct {
	categories map[string]catalogue.Category
	brands     map[string]catalogue.Brand
	rewards    map[uuid.UUID]reward
	pools      map[uuid.UUID][]poolCode // in the order the codes were added
	products   map[string]catalogue.Product
	games      map[gameKey]catalogue.GameReward
	links      map[string]link
	linkCodes  map[linkKey]string
	orders     map[orderKey]int64
	version    int64
}

// New returns an empty fake; GetVisibleWithCoin reads coins from coinRepo (nil: it is not
// called).
func New(coinRepo coins.Repo) *Repo {
	return &Repo{coins: coinRepo, Table: memstore.NewTable(state{
		categories: map[string]catalogue.Category{}, brands: map[string]catalogue.Brand{},
		rewards: map[uuid.UUID]reward{}, pools: map[uuid.UUID][]poolCode{}, products: map[string]catalogue.Product{},
		games: map[gameKey]catalogue.GameReward{}, links: map[string]link{}, linkCodes: map[linkKey]string{},
		orders: map[orderKey]int64{},
	}, state.clone)}
}

func (s state) clone() state {
	return state{
		categories: memstore.CloneMap(s.categories, cloneCategory),
		brands:     memstore.CloneMap(s.brands, cloneBrand),
		rewards:    memstore.CloneMap(s.rewards, func(r reward) reward { return reward{r: cloneReward(r.r), shared: bytes.Clone(r.shared)} }),
		pools:      memstore.CloneMap(s.pools, slices.Clone[[]poolCode]),
		products:   memstore.CloneMap(s.products, nil),
		games: memstore.CloneMap(s.games, func(g catalogue.GameReward) catalogue.GameReward {
			g.CoinPrices = maps.Clone(g.CoinPrices)
			return g
		}),
		links:     memstore.CloneMap(s.links, nil),
		linkCodes: memstore.CloneMap(s.linkCodes, nil),
		orders:    memstore.CloneMap(s.orders, nil),
		version:   s.version,
	}
}

func cloneCategory(c catalogue.Category) catalogue.Category {
	c.Translations = maps.Clone(c.Translations)
	return c
}

func cloneBrand(b catalogue.Brand) catalogue.Brand {
	b.Categories, b.Countries, b.Translations = slices.Clone(b.Categories), slices.Clone(b.Countries), maps.Clone(b.Translations)
	return b
}

func cloneReward(r catalogue.Reward) catalogue.Reward {
	r.Assets, r.Translations = maps.Clone(r.Assets), maps.Clone(r.Translations)
	r.Countries, r.Denominations = slices.Clone(r.Countries), slices.Clone(r.Denominations)
	r.EndDate = memstore.ClonePtr(r.EndDate)
	return r
}

// Version is the catalogue's version, which moves with every write of what players see.
func (r *Repo) Version() int64 {
	st := r.Lock()
	defer r.Unlock()
	return st.version
}

// nonNil is s, or an empty slice for nil: an empty array column reads back empty, not NULL.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

// translations is t as its JSON column reads back: never nil.
func translations(t catalogue.Translations) catalogue.Translations {
	out := catalogue.Translations{}
	maps.Copy(out, t)
	return out
}

// row is rw as its row reads back: the prices of the columns it is stored in (face values,
// selling prices and the discount on mrp), the cooldown in whole seconds, the end date in
// microseconds and JSON columns never nil.
func row(rw catalogue.Reward) catalogue.Reward {
	out := cloneReward(rw)
	out.Assets = map[string]string{}
	maps.Copy(out.Assets, rw.Assets)
	out.Translations = translations(rw.Translations)
	out.Countries = nonNil(rw.Countries)
	if rw.EndDate != nil {
		end := memstore.PGTime(*rw.EndDate)
		out.EndDate = &end
	}
	out.PurchaseCooldown = rw.PurchaseCooldown.Truncate(time.Second)
	out.Denominations, out.MinValue, out.MaxValue, out.DiscountPct, out.MRP, out.SellingPrice = nil, 0, 0, 0, 0, 0
	switch {
	case rw.Type != catalogue.GiftCard && rw.Type != catalogue.DigitalCredit:
		out.MRP, out.SellingPrice = rw.MinFace(), rw.SellingPriceOf(rw.MinFace())
	case rw.ValueType == catalogue.Range:
		out.MinValue, out.MaxValue, out.DiscountPct = rw.MinFace(), rw.MaxFace(), rw.DiscountOnMRP()
	default:
		out.DiscountPct = rw.DiscountOnMRP()
		out.Denominations = slices.Clone(rw.Faces())
		if len(out.Denominations) == 0 {
			out.Denominations = nil
		}
	}
	return out
}

// UpsertCategory implements catalogue.Repo.
func (r *Repo) UpsertCategory(_ context.Context, c catalogue.Category) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	_, existed := st.categories[c.Code]
	c.Translations = translations(c.Translations)
	st.categories[c.Code] = cloneCategory(c)
	st.version++
	return !existed, nil
}

// MissingCategories implements catalogue.Repo.
func (r *Repo) MissingCategories(_ context.Context, codes []string) ([]string, error) {
	st := r.Lock()
	defer r.Unlock()
	missing := []string{}
	for _, c := range codes {
		if _, ok := st.categories[c]; !ok {
			missing = append(missing, c)
		}
	}
	return missing, nil
}

// UpsertBrand implements catalogue.Repo.
func (r *Repo) UpsertBrand(_ context.Context, b catalogue.Brand) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	old, existed := st.brands[b.Code]
	if b.ProviderCode == "" {
		b.ProviderCode = old.ProviderCode
	}
	if b.ProviderCode != "" {
		for code, other := range st.brands {
			if code != b.Code && other.ProviderCode == b.ProviderCode {
				return false, fmt.Errorf("upsert brand %s: provider code %s is brand %s's", b.Code, b.ProviderCode, code)
			}
		}
	}
	b.Categories, b.Countries, b.Translations = nonNil(b.Categories), nonNil(b.Countries), translations(b.Translations)
	st.brands[b.Code] = b
	st.version++
	return !existed, nil
}

// GetBrand implements catalogue.Repo.
func (r *Repo) GetBrand(_ context.Context, code string) (catalogue.Brand, error) {
	st := r.Lock()
	defer r.Unlock()
	b, err := memstore.Get(st.brands, code, catalogue.ErrBrandNotFound)
	return cloneBrand(b), err
}

// BrandByProviderCode implements catalogue.Repo.
func (r *Repo) BrandByProviderCode(_ context.Context, providerCode string) (catalogue.Brand, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, b := range st.brands {
		if b.ProviderCode == providerCode && providerCode != "" {
			return cloneBrand(b), nil
		}
	}
	return catalogue.Brand{}, catalogue.ErrBrandNotFound
}

// checkReward refuses what the table's keys refuse: an unknown brand, a provider product
// another reward was imported as.
func (s *state) checkReward(rw catalogue.Reward) error {
	if _, ok := s.brands[rw.BrandCode]; !ok {
		return fmt.Errorf("reward %s: no brand %s", rw.ID, rw.BrandCode)
	}
	if rw.ProviderProductID != "" {
		for id, other := range s.rewards {
			if id != rw.ID && other.r.ProviderProductID == rw.ProviderProductID {
				return fmt.Errorf("reward %s: provider product %s is reward %s's", rw.ID, rw.ProviderProductID, id)
			}
		}
	}
	return nil
}

// InsertReward implements catalogue.Repo.
func (r *Repo) InsertReward(_ context.Context, rw catalogue.Reward, sharedCode []byte) (catalogue.Reward, error) {
	st := r.Lock()
	defer r.Unlock()
	rw.ID = uuid.New()
	if err := st.checkReward(rw); err != nil {
		return catalogue.Reward{}, fmt.Errorf("insert reward: %w", err)
	}
	now := r.Now()
	rw.CreatedAt, rw.UpdatedAt, rw.HasSharedCode = now, now, sharedCode != nil
	st.rewards[rw.ID] = reward{r: row(rw), shared: bytes.Clone(sharedCode)}
	st.version++
	return rw, nil
}

func (r *Repo) getReward(id uuid.UUID) (catalogue.Reward, error) {
	st := r.Lock()
	defer r.Unlock()
	rw, err := memstore.Get(st.rewards, id, catalogue.ErrRewardNotFound)
	return cloneReward(rw.r), err
}

// LockReward implements catalogue.Repo: the runner runs one transaction at a time.
func (r *Repo) LockReward(_ context.Context, id uuid.UUID) (catalogue.Reward, error) {
	return r.getReward(id)
}

// GetReward implements catalogue.Repo.
func (r *Repo) GetReward(_ context.Context, id uuid.UUID) (catalogue.Reward, error) {
	return r.getReward(id)
}

// RewardByProviderProduct implements catalogue.Repo.
func (r *Repo) RewardByProviderProduct(_ context.Context, productID string) (catalogue.Reward, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, rw := range st.rewards {
		if productID != "" && rw.r.ProviderProductID == productID {
			return cloneReward(rw.r), nil
		}
	}
	return catalogue.Reward{}, catalogue.ErrRewardNotFound
}

// UpdateReward implements catalogue.Repo. The provider product stays the one the reward was
// imported as.
func (r *Repo) UpdateReward(_ context.Context, rw catalogue.Reward, sharedCode []byte) (catalogue.Reward, error) {
	st := r.Lock()
	defer r.Unlock()
	old, err := memstore.Get(st.rewards, rw.ID, catalogue.ErrRewardNotFound)
	if err != nil {
		return catalogue.Reward{}, err
	}
	if err := st.checkReward(rw); err != nil {
		return catalogue.Reward{}, fmt.Errorf("update reward %s: %w", rw.ID, err)
	}
	shared := old.shared
	if sharedCode != nil {
		shared = nil
		if len(sharedCode) > 0 {
			shared = bytes.Clone(sharedCode)
		}
	}
	rw.CreatedAt, rw.UpdatedAt, rw.HasSharedCode = old.r.CreatedAt, r.Now(), shared != nil
	stored := rw
	stored.ProviderProductID = old.r.ProviderProductID
	st.rewards[rw.ID] = reward{r: row(stored), shared: shared}
	st.version++
	return rw, nil
}

// ListRewards implements catalogue.Repo: newest first (then by id), and the total of the
// filter, which a page past the end reports as 0 (as the window count of no rows does).
func (r *Repo) ListRewards(_ context.Context, f catalogue.AdminFilter) ([]catalogue.Reward, int64, error) {
	st := r.Lock()
	defer r.Unlock()
	var all []catalogue.Reward
	for _, rw := range st.rewards {
		if (f.Type == "" || rw.r.Type == f.Type) && (f.BrandCode == "" || rw.r.BrandCode == f.BrandCode) &&
			(f.Active == nil || rw.r.IsActive == *f.Active) {
			all = append(all, rw.r)
		}
	}
	slices.SortFunc(all, func(a, b catalogue.Reward) int { return memstore.CompareCreated(b.CreatedAt, a.ID, a.CreatedAt, b.ID) })
	if f.Offset >= len(all) {
		return []catalogue.Reward{}, 0, nil
	}
	page := all[f.Offset:min(len(all), f.Offset+f.Limit)]
	out := make([]catalogue.Reward, len(page))
	for i, rw := range page {
		out[i] = cloneReward(rw)
	}
	return out, int64(len(all)), nil
}

// DeactivateProviderRewards implements catalogue.Repo.
func (r *Repo) DeactivateProviderRewards(_ context.Context, keepProducts, keepBrands []string) (int64, error) {
	st := r.Lock()
	defer r.Unlock()
	now := r.Now()
	var n int64
	for id, rw := range st.rewards {
		if rw.r.ProviderProductID != "" && rw.r.IsActive && !slices.Contains(keepProducts, rw.r.ProviderProductID) {
			rw.r.IsActive, rw.r.UpdatedAt = false, now
			st.rewards[id] = rw
			n++
		}
	}
	for code, b := range st.brands {
		if b.ProviderCode != "" && b.IsActive && !slices.Contains(keepBrands, b.ProviderCode) {
			b.IsActive = false
			st.brands[code] = b
		}
	}
	st.version++
	return n, nil
}

// AddCodes implements catalogue.Repo.
func (r *Repo) AddCodes(_ context.Context, rewardID uuid.UUID, codes []catalogue.SealedCode) (int64, error) {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.rewards[rewardID]; !ok {
		return 0, fmt.Errorf("add codes: no reward %s", rewardID)
	}
	pool := st.pools[rewardID]
	var n int64
	for _, c := range codes {
		if slices.ContainsFunc(pool, func(p poolCode) bool { return bytes.Equal(p.code.Fingerprint, c.Fingerprint) }) {
			continue
		}
		c.Fingerprint, c.Code, c.Pin = bytes.Clone(c.Fingerprint), bytes.Clone(c.Code), bytes.Clone(c.Pin)
		if c.Expiry != nil {
			at := memstore.PGTime(*c.Expiry)
			c.Expiry = &at
		}
		pool = append(pool, poolCode{code: c})
		n++
	}
	st.pools[rewardID] = pool
	return n, nil
}

func free(pool []poolCode) int64 {
	var n int64
	for _, c := range pool {
		if c.order == uuid.Nil {
			n++
		}
	}
	return n
}

// FreeCodes implements catalogue.Repo.
func (r *Repo) FreeCodes(_ context.Context, rewardID uuid.UUID) (int64, error) {
	st := r.Lock()
	defer r.Unlock()
	return free(st.pools[rewardID]), nil
}

// FreeCodesOf implements catalogue.Repo.
func (r *Repo) FreeCodesOf(_ context.Context, ids []uuid.UUID) (map[uuid.UUID]int64, error) {
	st := r.Lock()
	defer r.Unlock()
	out := map[uuid.UUID]int64{}
	for _, id := range ids {
		if rw, ok := st.rewards[id]; ok && rw.r.IsPool() {
			out[id] = free(st.pools[id])
		}
	}
	return out, nil
}

// TakeCodes implements catalogue.Repo: the first n free codes, in the order they were added.
// The codes come back without their fingerprints, as the statement returns them.
func (r *Repo) TakeCodes(_ context.Context, rewardID, orderID uuid.UUID, n int) ([]catalogue.SealedCode, error) {
	st := r.Lock()
	defer r.Unlock()
	pool := st.pools[rewardID]
	out := []catalogue.SealedCode{}
	for i := range pool {
		if len(out) == n {
			break
		}
		if pool[i].order == uuid.Nil {
			pool[i].order = orderID
			c := pool[i].code
			out = append(out, catalogue.SealedCode{Code: bytes.Clone(c.Code), Pin: bytes.Clone(c.Pin), Expiry: memstore.ClonePtr(c.Expiry)})
		}
	}
	return out, nil
}

// SharedCode implements catalogue.Repo.
func (r *Repo) SharedCode(_ context.Context, rewardID uuid.UUID) ([]byte, error) {
	st := r.Lock()
	defer r.Unlock()
	rw, ok := st.rewards[rewardID]
	if !ok || rw.shared == nil {
		return nil, catalogue.ErrRewardNotFound.Withf("this coupon has no shared code")
	}
	return bytes.Clone(rw.shared), nil
}

// RecordOrder implements catalogue.Repo.
func (r *Repo) RecordOrder(_ context.Context, rewardID uuid.UUID, at time.Time) error {
	st := r.Lock()
	defer r.Unlock()
	st.orders[orderKey{reward: rewardID, day: at.Format(time.DateOnly)}]++
	return nil
}

// UpsertProduct implements catalogue.Repo.
func (r *Repo) UpsertProduct(_ context.Context, p catalogue.Product) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	_, existed := st.products[p.ID]
	p.PriceUpdatedAt = memstore.PGTime(p.PriceUpdatedAt)
	st.products[p.ID] = p
	return !existed, nil
}

// GameReward implements catalogue.Repo.
func (r *Repo) GameReward(_ context.Context, gameID, rewardID uuid.UUID) (catalogue.GameReward, error) {
	st := r.Lock()
	defer r.Unlock()
	g, ok := st.games[gameKey{game: gameID, reward: rewardID}]
	if !ok {
		return catalogue.GameReward{GameID: gameID, RewardID: rewardID}, nil
	}
	g.CoinPrices = maps.Clone(g.CoinPrices)
	return g, nil
}

// SaveGameReward implements catalogue.Repo.
func (r *Repo) SaveGameReward(_ context.Context, g catalogue.GameReward) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.rewards[g.RewardID]; !ok {
		return fmt.Errorf("save game reward: no reward %s", g.RewardID)
	}
	prices := map[uuid.UUID]int64{}
	maps.Copy(prices, g.CoinPrices)
	g.CoinPrices = prices
	st.games[gameKey{game: g.GameID, reward: g.RewardID}] = g
	st.version++
	return nil
}

// GetVisibleWithCoin implements catalogue.Repo.
func (r *Repo) GetVisibleWithCoin(ctx context.Context, q catalogue.ListQuery, id uuid.UUID) (catalogue.Listed, coins.Coin, error) {
	coin, err := r.coins.GetCoin(ctx, q.GameID, q.CoinID)
	if err != nil {
		return catalogue.Listed{}, coins.Coin{}, err
	}
	st := r.Lock()
	defer r.Unlock()
	rw, err := memstore.Get(st.rewards, id, catalogue.ErrRewardNotFound)
	if err != nil {
		return catalogue.Listed{}, coin, err
	}
	b := st.brands[rw.r.BrandCode]
	g := st.games[gameKey{game: q.GameID, reward: id}]
	if !catalogue.Visible(rw.r, b, g.Hidden, q.Country, q.Now) {
		return catalogue.Listed{}, coin, catalogue.ErrRewardNotFound
	}
	out := catalogue.Listed{Reward: cloneReward(rw.r), Brand: cloneBrand(b)}
	if p := g.CoinPrices[q.CoinID]; p > 0 {
		out.Override = &p
	}
	return out, coin, nil
}

// ShortLink implements catalogue.Repo.
func (r *Repo) ShortLink(_ context.Context, playerID, rewardID uuid.UUID, code string) (string, error) {
	st := r.Lock()
	defer r.Unlock()
	k := linkKey{player: playerID, reward: rewardID}
	if have, ok := st.linkCodes[k]; ok {
		return have, nil
	}
	if _, ok := st.rewards[rewardID]; !ok {
		return "", fmt.Errorf("short link: no reward %s", rewardID)
	}
	if _, taken := st.links[code]; taken {
		return "", fmt.Errorf("short link: code %s is taken", code)
	}
	st.links[code], st.linkCodes[k] = link{key: k}, code
	return code, nil
}

// FollowLink implements catalogue.Repo.
func (r *Repo) FollowLink(_ context.Context, code string) (string, error) {
	st := r.Lock()
	defer r.Unlock()
	l, err := memstore.Get(st.links, code, catalogue.ErrLinkNotFound)
	if err != nil {
		return "", err
	}
	l.clicks++
	st.links[code] = l
	return st.brands[st.rewards[l.key.reward].r.BrandCode].WebsiteURL, nil
}

// Clicks returns how many times the link of code was followed.
func (r *Repo) Clicks(code string) int64 {
	st := r.Lock()
	defer r.Unlock()
	return st.links[code].clicks
}

// Orders returns the orders of a reward RecordOrder counted on the day of at.
func (r *Repo) Orders(rewardID uuid.UUID, at time.Time) int64 {
	st := r.Lock()
	defer r.Unlock()
	return st.orders[orderKey{reward: rewardID, day: at.Format(time.DateOnly)}]
}
