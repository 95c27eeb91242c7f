// Package cataloguetest is the contract of catalogue.Repo's writes and stock: one suite of
// cases that every implementation passes, run on the in-memory fake (cataloguefake) and on
// PostgreSQL (adapters/postgres), so that the operator's catalogue, the pools of codes and the
// short links behave the same on both. What players see of the catalogue (listing, search)
// is the read model's, tested apart.
package cataloguetest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
)

// Harness is one catalogue.Repo under test and the rows of other modules its tables refer to.
type Harness struct {
	Runner store.Runner
	Store  store.Of[catalogue.Repo]
	// NewGame returns a new game's id.
	NewGame func(t *testing.T) uuid.UUID
	// NewPlayer returns the id of a new player of the game.
	NewPlayer func(t *testing.T, gameID uuid.UUID) uuid.UUID
	// Version returns the catalogue's version now.
	Version func(t *testing.T) int64
}

// Run runs every case of the contract, each on a Harness of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle {
		h := open(t)
		return bundle{Harness: h, ctx: context.Background(), repo: h.Store.Repo()}
	}, cases)
}

type bundle struct {
	Harness
	ctx  context.Context
	repo catalogue.Repo
}

// brand stores an active brand of code.
func (b bundle) brand(t *testing.T, code string) catalogue.Brand {
	t.Helper()
	br := catalogue.Brand{Code: code, Name: "Brand " + code, WebsiteURL: "https://" + code + ".example.com", IsActive: true}
	_, err := b.repo.UpsertBrand(b.ctx, br)
	require.NoError(t, err)
	return br
}

// coupon is an active coupon of brand, not yet stored.
func coupon(brand, name string) catalogue.Reward {
	return catalogue.Reward{Type: catalogue.Coupon, BrandCode: brand, Name: name, IsActive: true, ValueType: catalogue.Fixed,
		MRP: money.Amount(200_00), SellingPrice: money.Amount(150_00)}
}

func (b bundle) insert(t *testing.T, r catalogue.Reward, shared []byte) catalogue.Reward {
	t.Helper()
	got, err := b.repo.InsertReward(b.ctx, r, shared)
	require.NoError(t, err)
	return got
}

func (b bundle) get(t *testing.T, id uuid.UUID) catalogue.Reward {
	t.Helper()
	got, err := b.repo.GetReward(b.ctx, id)
	require.NoError(t, err)
	return got
}

// sealed are codes as the pool keeps them, each its own fingerprint.
func sealed(codes ...string) []catalogue.SealedCode {
	out := make([]catalogue.SealedCode, len(codes))
	for i, c := range codes {
		out[i] = catalogue.SealedCode{Fingerprint: []byte("fp:" + c), Code: []byte(c)}
	}
	return out
}

func texts(list []catalogue.SealedCode) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = string(c.Code)
	}
	return out
}

// add adds codes to reward's pool and returns how many it added.
func (b bundle) add(t *testing.T, reward uuid.UUID, codes []catalogue.SealedCode) int64 {
	t.Helper()
	n, err := b.repo.AddCodes(b.ctx, reward, codes)
	require.NoError(t, err)
	return n
}

func (b bundle) take(t *testing.T, reward uuid.UUID, n int) []string {
	t.Helper()
	got, err := b.repo.TakeCodes(b.ctx, reward, uuid.New(), n)
	require.NoError(t, err)
	return texts(got)
}

func (b bundle) free(t *testing.T, reward uuid.UUID) int64 {
	t.Helper()
	n, err := b.repo.FreeCodes(b.ctx, reward)
	require.NoError(t, err)
	return n
}

// ids are the ids of rewards, in their order.
func ids(list []catalogue.Reward) []uuid.UUID {
	out := make([]uuid.UUID, len(list))
	for i, r := range list {
		out[i] = r.ID
	}
	return out
}

var cases = []contract.Case[bundle]{
	{Name: "CategoriesUpsertAndMissingCodes", Run: func(t *testing.T, b bundle) {
		created, err := b.repo.UpsertCategory(b.ctx, catalogue.Category{Code: "FOOD", Name: "Food", DisplayOrder: 2})
		require.NoError(t, err)
		require.True(t, created)
		created, err = b.repo.UpsertCategory(b.ctx, catalogue.Category{Code: "FOOD", Name: "Food & drink", DisplayOrder: 1})
		require.NoError(t, err)
		require.False(t, created, "the second upsert replaces")
		_, err = b.repo.UpsertCategory(b.ctx, catalogue.Category{Code: "TRAVEL", Name: "Travel"})
		require.NoError(t, err)

		missing, err := b.repo.MissingCategories(b.ctx, []string{"NOPE", "FOOD", "TRAVEL", "GONE"})
		require.NoError(t, err)
		require.Equal(t, []string{"NOPE", "GONE"}, missing, "in the order asked")
		missing, err = b.repo.MissingCategories(b.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, missing)
	}},
	{Name: "BrandsUpsertKeepTheirProviderCode", Run: func(t *testing.T, b bundle) {
		br := catalogue.Brand{Code: "ACME", Name: "Acme", Description: "Things", LogoURL: "https://cdn.example.com/acme.png",
			WebsiteURL: "https://acme.example.com", Issuer: "ISSUER", Categories: []string{"FOOD"}, Countries: []string{"IN"},
			IsActive: true, Translations: catalogue.Translations{"hi": {Name: "एक्मे"}}, ProviderCode: "P-ACME"}
		created, err := b.repo.UpsertBrand(b.ctx, br)
		require.NoError(t, err)
		require.True(t, created)
		got, err := b.repo.GetBrand(b.ctx, "ACME")
		require.NoError(t, err)
		require.Equal(t, br, got)
		byProvider, err := b.repo.BrandByProviderCode(b.ctx, "P-ACME")
		require.NoError(t, err)
		require.Equal(t, br, byProvider)

		br.Name, br.ProviderCode, br.IsActive = "Acme Corp", "", false
		created, err = b.repo.UpsertBrand(b.ctx, br)
		require.NoError(t, err)
		require.False(t, created)
		got, err = b.repo.GetBrand(b.ctx, "ACME")
		require.NoError(t, err)
		require.Equal(t, []any{"Acme Corp", false, "P-ACME"}, []any{got.Name, got.IsActive, got.ProviderCode},
			"an upsert without a provider code keeps the brand's")

		_, err = b.repo.UpsertBrand(b.ctx, catalogue.Brand{Code: "OTHER", Name: "Other", ProviderCode: "P-ACME"})
		require.Error(t, err, "a provider brand is imported once")
		_, err = b.repo.GetBrand(b.ctx, "NOPE")
		require.ErrorIs(t, err, catalogue.ErrBrandNotFound)
		_, err = b.repo.BrandByProviderCode(b.ctx, "P-NOPE")
		require.ErrorIs(t, err, catalogue.ErrBrandNotFound)
	}},
	{Name: "RewardsReadBackAsStored", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		end := time.Date(2031, 5, 4, 3, 2, 1, 123456789, time.UTC)
		c := coupon("ACME", "10% off")
		c.Description, c.Countries, c.EndDate, c.XScore = "Ten percent", []string{"IN", "AE"}, &end, 7.5
		c.PurchaseCooldown, c.FlagAllowStudioEditPrice = 90*time.Minute+500*time.Millisecond, true
		c.Assets, c.Translations = map[string]string{"banner": "https://cdn.example.com/b.png"}, catalogue.Translations{"hi": {Name: "दस"}}
		stored := b.insert(t, c, nil)
		require.NotEqual(t, uuid.Nil, stored.ID)
		require.False(t, stored.CreatedAt.IsZero())
		require.False(t, stored.HasSharedCode)

		got := b.get(t, stored.ID)
		require.Equal(t, []any{"10% off", "Ten percent", catalogue.Coupon, "ACME", 7.5, true, true},
			[]any{got.Name, got.Description, got.Type, got.BrandCode, got.XScore, got.IsActive, got.FlagAllowStudioEditPrice})
		require.Equal(t, []any{money.Amount(200_00), money.Amount(150_00)}, []any{got.MRP, got.SellingPrice})
		require.Equal(t, []string{"IN", "AE"}, got.Countries)
		require.True(t, got.EndDate.Equal(end.Truncate(time.Microsecond)), "a timestamp keeps microseconds")
		require.Equal(t, 90*time.Minute, got.PurchaseCooldown, "the cooldown is kept in whole seconds")
		require.Equal(t, c.Assets, got.Assets)
		require.Equal(t, c.Translations, got.Translations)
		require.True(t, got.CreatedAt.Equal(stored.CreatedAt))
		require.True(t, got.IsPool(), "no shared code, no provider product: a pool")

		plain := b.get(t, b.insert(t, coupon("ACME", "Plain"), nil).ID)
		require.Empty(t, plain.Countries)
		require.Nil(t, plain.EndDate)
		require.Empty(t, plain.Assets)

		_, err := b.repo.GetReward(b.ctx, uuid.New())
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound)
		_, err = b.repo.InsertReward(b.ctx, coupon("NOPE", "No brand"), nil)
		require.Error(t, err, "a reward's brand exists")
	}},
	{Name: "RewardPricesReadBackFromTheirColumns", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		fixed := catalogue.Reward{Type: catalogue.GiftCard, BrandCode: "ACME", Name: "Fixed", IsActive: true, ValueType: catalogue.Fixed,
			Denominations: []money.Amount{100_00, 500_00}, DiscountPct: 250}
		rng := catalogue.Reward{Type: catalogue.DigitalCredit, BrandCode: "ACME", Name: "Range", IsActive: true, ValueType: catalogue.Range,
			MinValue: 50_00, MaxValue: 5000_00, DiscountPct: 100}
		physical := catalogue.Reward{Type: catalogue.Physical, BrandCode: "ACME", Name: "Mug", IsActive: true, ValueType: catalogue.Fixed,
			MRP: 300_00, SellingPrice: 240_00}
		for _, r := range []catalogue.Reward{fixed, rng, physical} {
			got := b.get(t, b.insert(t, r, nil).ID)
			require.Equal(t, []any{r.MinFace(), r.MaxFace(), r.Faces(), r.DiscountOnMRP(), r.SellingPriceOf(r.MinFace())},
				[]any{got.MinFace(), got.MaxFace(), got.Faces(), got.DiscountOnMRP(), got.SellingPriceOf(got.MinFace())}, r.Name)
		}
	}},
	{Name: "UpdateKeepsOrReplacesTheSharedCode", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		b.brand(t, "OTHER")
		r := b.insert(t, coupon("ACME", "Shared"), []byte("SEALED-1"))
		require.True(t, r.HasSharedCode)
		require.False(t, b.get(t, r.ID).IsPool(), "a shared code is no pool")
		shared, err := b.repo.SharedCode(b.ctx, r.ID)
		require.NoError(t, err)
		require.Equal(t, []byte("SEALED-1"), shared)

		r.Name, r.BrandCode, r.SellingPrice = "Renamed", "OTHER", money.Amount(120_00)
		updated, err := b.repo.UpdateReward(b.ctx, r, nil)
		require.NoError(t, err)
		require.True(t, updated.HasSharedCode, "nil keeps the shared code")
		require.True(t, updated.CreatedAt.Equal(r.CreatedAt))
		require.True(t, updated.UpdatedAt.After(r.UpdatedAt))
		got := b.get(t, r.ID)
		require.Equal(t, []any{"Renamed", "OTHER", money.Amount(120_00), true}, []any{got.Name, got.BrandCode, got.SellingPrice, got.HasSharedCode})
		shared, err = b.repo.SharedCode(b.ctx, r.ID)
		require.NoError(t, err)
		require.Equal(t, []byte("SEALED-1"), shared)

		_, err = b.repo.UpdateReward(b.ctx, r, []byte("SEALED-2"))
		require.NoError(t, err)
		shared, err = b.repo.SharedCode(b.ctx, r.ID)
		require.NoError(t, err)
		require.Equal(t, []byte("SEALED-2"), shared, "a code replaces it")

		updated, err = b.repo.UpdateReward(b.ctx, r, []byte{})
		require.NoError(t, err)
		require.False(t, updated.HasSharedCode, "an empty code removes it")
		require.False(t, b.get(t, r.ID).HasSharedCode)
		_, err = b.repo.SharedCode(b.ctx, r.ID)
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound)

		r.ID = uuid.New()
		_, err = b.repo.UpdateReward(b.ctx, r, nil)
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound)
	}},
	{Name: "LockRewardInATransaction", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		r := b.insert(t, coupon("ACME", "Locked"), nil)
		require.NoError(t, b.Store.InTx(b.ctx, func(repo catalogue.Repo) error {
			got, err := repo.LockReward(b.ctx, r.ID)
			require.NoError(t, err)
			require.Equal(t, "Locked", got.Name)
			_, err = repo.LockReward(b.ctx, uuid.New())
			require.ErrorIs(t, err, catalogue.ErrRewardNotFound)
			return nil
		}))
		// Two transactions that each lock the reward and add codes count only their own.
		var wg sync.WaitGroup
		added := make([]int64, 2)
		for i := range added {
			wg.Go(func() {
				assert.NoError(t, b.Store.InTx(b.ctx, func(repo catalogue.Repo) error {
					if _, err := repo.LockReward(b.ctx, r.ID); err != nil {
						return err
					}
					n, err := repo.AddCodes(b.ctx, r.ID, sealed("SAME-1", "SAME-2", fmt.Sprintf("OWN-%d", i)))
					added[i] = n
					return err
				}))
			})
		}
		wg.Wait()
		require.Equal(t, int64(4), added[0]+added[1], "two shared codes once, and each one's own")
		require.Equal(t, int64(4), b.free(t, r.ID))
	}},
	{Name: "RolledBackWritesKeepNothing", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		pool := b.insert(t, coupon("ACME", "Pool"), nil)
		b.add(t, pool.ID, sealed("A", "B"))
		var inserted catalogue.Reward
		err := b.Store.InTx(b.ctx, func(repo catalogue.Repo) error {
			var err error
			if inserted, err = repo.InsertReward(b.ctx, coupon("ACME", "Gone"), nil); err != nil {
				return err
			}
			if _, err := repo.AddCodes(b.ctx, pool.ID, sealed("C")); err != nil {
				return err
			}
			if _, err := repo.TakeCodes(b.ctx, pool.ID, uuid.New(), 2); err != nil {
				return err
			}
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		_, err = b.repo.GetReward(b.ctx, inserted.ID)
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound)
		require.Equal(t, int64(2), b.free(t, pool.ID), "the codes taken went back, the code added is gone")
	}},
	{Name: "ListRewardsNewestFirstFilteredAndPaged", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		b.brand(t, "OTHER")
		var all []catalogue.Reward
		add := func(r catalogue.Reward) catalogue.Reward {
			got := b.insert(t, r, nil)
			all = append(all, got)
			return got
		}
		c1 := add(coupon("ACME", "c1"))
		inactive := coupon("ACME", "c2")
		inactive.IsActive = false
		c2 := add(inactive)
		g1 := add(catalogue.Reward{Type: catalogue.GiftCard, BrandCode: "OTHER", Name: "g1", IsActive: true, ValueType: catalogue.Fixed,
			Denominations: []money.Amount{100_00}})
		c3 := add(coupon("OTHER", "c3"))
		list := func(f catalogue.AdminFilter) ([]uuid.UUID, int64) {
			t.Helper()
			if f.Limit == 0 {
				f.Limit = 10
			}
			got, total, err := b.repo.ListRewards(b.ctx, f)
			require.NoError(t, err)
			return ids(got), total
		}
		got, total := list(catalogue.AdminFilter{})
		require.Equal(t, []uuid.UUID{c3.ID, g1.ID, c2.ID, c1.ID}, got, "newest first")
		require.EqualValues(t, 4, total)
		got, total = list(catalogue.AdminFilter{Limit: 2, Offset: 1})
		require.Equal(t, []uuid.UUID{g1.ID, c2.ID}, got)
		require.EqualValues(t, 4, total, "the total counts every page")
		got, _ = list(catalogue.AdminFilter{Type: catalogue.Coupon})
		require.Equal(t, []uuid.UUID{c3.ID, c2.ID, c1.ID}, got)
		got, _ = list(catalogue.AdminFilter{BrandCode: "ACME"})
		require.Equal(t, []uuid.UUID{c2.ID, c1.ID}, got)
		active, inactiveOnly := true, false
		got, total = list(catalogue.AdminFilter{Active: &active, Type: catalogue.Coupon})
		require.Equal(t, []uuid.UUID{c3.ID, c1.ID}, got)
		require.EqualValues(t, 2, total)
		got, _ = list(catalogue.AdminFilter{Active: &inactiveOnly})
		require.Equal(t, []uuid.UUID{c2.ID}, got)
		got, _ = list(catalogue.AdminFilter{BrandCode: "NOPE"})
		require.Empty(t, got)

		page, _, err := b.repo.ListRewards(b.ctx, catalogue.AdminFilter{Limit: 10})
		require.NoError(t, err)
		require.Equal(t, "g1", page[1].Name)
		require.Equal(t, []money.Amount{100_00}, page[1].Denominations, "listed rewards read back as stored")
		require.Len(t, all, 4)
	}},
	{Name: "ProviderProductsAreFoundAndDeactivated", Run: func(t *testing.T, b bundle) {
		for _, br := range []catalogue.Brand{
			{Code: "KEPT", Name: "Kept", IsActive: true, ProviderCode: "P-KEPT"},
			{Code: "GONE", Name: "Gone", IsActive: true, ProviderCode: "P-GONE"},
			{Code: "HOUSE", Name: "House", IsActive: true},
		} {
			_, err := b.repo.UpsertBrand(b.ctx, br)
			require.NoError(t, err)
		}
		synced := func(brand, product string) catalogue.Reward {
			r := catalogue.Reward{Type: catalogue.GiftCard, BrandCode: brand, Name: product, IsActive: true, ValueType: catalogue.Fixed,
				Denominations: []money.Amount{100_00}, ProviderProductID: product}
			return b.insert(t, r, nil)
		}
		kept, gone := synced("KEPT", "PROD-1"), synced("KEPT", "PROD-2")
		house := b.insert(t, coupon("HOUSE", "House"), nil)
		require.False(t, b.get(t, kept.ID).IsPool(), "the provider's stock, not a pool")

		found, err := b.repo.RewardByProviderProduct(b.ctx, "PROD-1")
		require.NoError(t, err)
		require.Equal(t, kept.ID, found.ID)
		require.Equal(t, "PROD-1", found.ProviderProductID)
		_, err = b.repo.RewardByProviderProduct(b.ctx, "PROD-NOPE")
		require.ErrorIs(t, err, catalogue.ErrRewardNotFound)
		_, err = b.repo.InsertReward(b.ctx, catalogue.Reward{Type: catalogue.GiftCard, BrandCode: "KEPT", Name: "again", ValueType: catalogue.Fixed,
			ProviderProductID: "PROD-1"}, nil)
		require.Error(t, err, "a provider product is imported once")

		n, err := b.repo.DeactivateProviderRewards(b.ctx, []string{"PROD-1"}, []string{"P-KEPT"})
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		require.Equal(t, []bool{true, false, true}, []bool{b.get(t, kept.ID).IsActive, b.get(t, gone.ID).IsActive, b.get(t, house.ID).IsActive},
			"only a provider product no longer listed")
		active := func(code string) bool {
			br, err := b.repo.GetBrand(b.ctx, code)
			require.NoError(t, err)
			return br.IsActive
		}
		require.Equal(t, []bool{true, false, true}, []bool{active("KEPT"), active("GONE"), active("HOUSE")})
		n, err = b.repo.DeactivateProviderRewards(b.ctx, []string{"PROD-1"}, []string{"P-KEPT"})
		require.NoError(t, err)
		require.Zero(t, n, "an inactive reward is not counted again")
		n, err = b.repo.DeactivateProviderRewards(b.ctx, nil, nil)
		require.NoError(t, err)
		require.EqualValues(t, 1, n, "empty lists keep nothing")
	}},
	{Name: "PoolCodesAreAddedOnceByFingerprint", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		pool := b.insert(t, coupon("ACME", "Pool"), nil)
		other := b.insert(t, coupon("ACME", "Other pool"), nil)
		expiry := time.Date(2032, 1, 2, 3, 4, 5, 678901234, time.UTC)
		first := sealed("A", "B", "C")
		first[1].Pin, first[1].Expiry = []byte("PIN-B"), &expiry
		require.EqualValues(t, 3, b.add(t, pool.ID, first))

		again := append(sealed("C", "D"), catalogue.SealedCode{Fingerprint: []byte("fp:A"), Code: []byte("A-AGAIN")})
		require.EqualValues(t, 1, b.add(t, pool.ID, again), "C and a code with A's fingerprint are there already")
		require.Equal(t, int64(4), b.free(t, pool.ID))
		require.EqualValues(t, 1, b.add(t, other.ID, sealed("A")), "fingerprints are a pool's own")

		taken, err := b.repo.TakeCodes(b.ctx, pool.ID, uuid.New(), 3)
		require.NoError(t, err)
		require.ElementsMatch(t, []string{"A", "B", "C"}, texts(taken), "the codes added first are taken first")
		for _, c := range taken {
			if string(c.Code) == "B" {
				require.Equal(t, []byte("PIN-B"), c.Pin)
				require.True(t, c.Expiry.Equal(expiry.Truncate(time.Microsecond)))
			} else {
				require.Empty(t, c.Pin)
				require.Nil(t, c.Expiry)
			}
		}
		require.Equal(t, int64(1), b.free(t, pool.ID))
		require.Equal(t, []string{"D"}, b.take(t, pool.ID, 5), "fewer than asked: the pool ran out")
		require.Empty(t, b.take(t, pool.ID, 1))
		require.Zero(t, b.free(t, pool.ID))
		require.Equal(t, int64(1), b.free(t, other.ID))
		require.EqualValues(t, 1, b.add(t, pool.ID, sealed("D", "E")), "a taken code still refuses its duplicate")
	}},
	{Name: "FreeCodesOfCountsPoolsOnly", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		pool := b.insert(t, coupon("ACME", "Pool"), nil)
		empty := b.insert(t, coupon("ACME", "Empty pool"), nil)
		shared := b.insert(t, coupon("ACME", "Shared"), []byte("SEALED"))
		mug := b.insert(t, catalogue.Reward{Type: catalogue.Physical, BrandCode: "ACME", Name: "Mug", IsActive: true, ValueType: catalogue.Fixed,
			MRP: 300_00, SellingPrice: 300_00}, nil)
		synced := b.insert(t, catalogue.Reward{Type: catalogue.GiftCard, BrandCode: "ACME", Name: "Synced", IsActive: true,
			ValueType: catalogue.Fixed, Denominations: []money.Amount{100_00}, ProviderProductID: "PROD-1"}, nil)
		b.add(t, pool.ID, sealed("A", "B", "C"))
		b.take(t, pool.ID, 1)
		free, err := b.repo.FreeCodesOf(b.ctx, []uuid.UUID{pool.ID, empty.ID, shared.ID, mug.ID, synced.ID, uuid.New()})
		require.NoError(t, err)
		require.Equal(t, map[uuid.UUID]int64{pool.ID: 2, empty.ID: 0}, free)
		free, err = b.repo.FreeCodesOf(b.ctx, nil)
		require.NoError(t, err)
		require.Empty(t, free)
	}},
	{Name: "ConcurrentTakesNeverShareACode", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		pool := b.insert(t, coupon("ACME", "Pool"), nil)
		const codes, takers, each = 30, 8, 5
		var all []string
		for i := range codes {
			all = append(all, fmt.Sprintf("CODE-%02d", i))
		}
		b.add(t, pool.ID, sealed(all...))
		var mu sync.Mutex
		var got []string
		var wg sync.WaitGroup
		for range takers {
			wg.Go(func() {
				var mine []catalogue.SealedCode
				assert.NoError(t, b.Store.InTx(b.ctx, func(repo catalogue.Repo) (err error) {
					mine, err = repo.TakeCodes(b.ctx, pool.ID, uuid.New(), each)
					return err
				}))
				mu.Lock()
				defer mu.Unlock()
				got = append(got, texts(mine)...)
			})
		}
		wg.Wait()
		rest := b.take(t, pool.ID, codes)
		got = append(got, rest...)
		slices.Sort(got)
		require.Equal(t, all, got, "every code went to one order only")
		require.Zero(t, b.free(t, pool.ID))
	}},
	{Name: "GameRewardSettingsAreSavedAndReplaced", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		r := b.insert(t, coupon("ACME", "Priced"), nil)
		game, otherGame, coin := b.NewGame(t), b.NewGame(t), uuid.New()
		got, err := b.repo.GameReward(b.ctx, game, r.ID)
		require.NoError(t, err)
		require.Equal(t, catalogue.GameReward{GameID: game, RewardID: r.ID}, got, "nothing changed: the zero value")

		require.NoError(t, b.repo.SaveGameReward(b.ctx, catalogue.GameReward{GameID: game, RewardID: r.ID, Hidden: true,
			CoinPrices: map[uuid.UUID]int64{coin: 1500}}))
		got, err = b.repo.GameReward(b.ctx, game, r.ID)
		require.NoError(t, err)
		require.Equal(t, []any{true, map[uuid.UUID]int64{coin: 1500}}, []any{got.Hidden, got.CoinPrices})
		other, err := b.repo.GameReward(b.ctx, otherGame, r.ID)
		require.NoError(t, err)
		require.False(t, other.Hidden, "a game's settings are its own")

		require.NoError(t, b.repo.SaveGameReward(b.ctx, catalogue.GameReward{GameID: game, RewardID: r.ID}))
		got, err = b.repo.GameReward(b.ctx, game, r.ID)
		require.NoError(t, err)
		require.False(t, got.Hidden)
		require.Empty(t, got.CoinPrices, "a save replaces the prices")
	}},
	{Name: "ShortLinksAreOnePerPlayerAndReward", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		r := b.insert(t, coupon("ACME", "Linked"), nil)
		game := b.NewGame(t)
		player, other := b.NewPlayer(t, game), b.NewPlayer(t, game)
		code, err := b.repo.ShortLink(b.ctx, player, r.ID, "first")
		require.NoError(t, err)
		require.Equal(t, "first", code)
		code, err = b.repo.ShortLink(b.ctx, player, r.ID, "second")
		require.NoError(t, err)
		require.Equal(t, "first", code, "the player's link is kept")

		// Concurrent first calls agree on one code.
		codes := make([]string, 6)
		var wg sync.WaitGroup
		for i := range codes {
			wg.Go(func() {
				c, err := b.repo.ShortLink(b.ctx, other, r.ID, fmt.Sprintf("race-%d", i))
				assert.NoError(t, err)
				codes[i] = c
			})
		}
		wg.Wait()
		require.Len(t, slices.Compact(slices.Clone(codes)), 1, "%v", codes)
		require.NotEqual(t, "first", codes[0])

		site, err := b.repo.FollowLink(b.ctx, "first")
		require.NoError(t, err)
		require.Equal(t, "https://ACME.example.com", site, "the website of the reward's brand")
		_, err = b.repo.FollowLink(b.ctx, "nope")
		require.ErrorIs(t, err, catalogue.ErrLinkNotFound)
	}},
	{Name: "VersionMovesWithWhatPlayersSee", Run: func(t *testing.T, b bundle) {
		b.brand(t, "ACME")
		r := b.insert(t, coupon("ACME", "Versioned"), nil)
		game := b.NewGame(t)
		player := b.NewPlayer(t, game)
		moves := func(what string, write func() error) {
			t.Helper()
			before := b.Version(t)
			require.NoError(t, write(), what)
			require.Greater(t, b.Version(t), before, "%s moves the version", what)
		}
		stays := func(what string, write func() error) {
			t.Helper()
			before := b.Version(t)
			require.NoError(t, write(), what)
			require.Equal(t, before, b.Version(t), "%s leaves the version", what)
		}
		moves("a category", func() error {
			_, err := b.repo.UpsertCategory(b.ctx, catalogue.Category{Code: "FOOD", Name: "Food"})
			return err
		})
		moves("a brand", func() error {
			_, err := b.repo.UpsertBrand(b.ctx, catalogue.Brand{Code: "ACME", Name: "Acme", IsActive: true})
			return err
		})
		moves("a new reward", func() error {
			_, err := b.repo.InsertReward(b.ctx, coupon("ACME", "New"), nil)
			return err
		})
		moves("a changed reward", func() error {
			_, err := b.repo.UpdateReward(b.ctx, r, nil)
			return err
		})
		moves("a game's settings", func() error {
			return b.repo.SaveGameReward(b.ctx, catalogue.GameReward{GameID: game, RewardID: r.ID, Hidden: true})
		})
		stays("codes", func() error {
			if _, err := b.repo.AddCodes(b.ctx, r.ID, sealed("A", "B")); err != nil {
				return err
			}
			_, err := b.repo.TakeCodes(b.ctx, r.ID, uuid.New(), 1)
			return err
		})
		stays("an order", func() error { return b.repo.RecordOrder(b.ctx, r.ID, time.Now()) })
		stays("a product", func() error {
			_, err := b.repo.UpsertProduct(b.ctx, catalogue.Product{ID: "SKU-1", Name: "Mug", IsActive: true, PriceUpdatedAt: time.Now()})
			return err
		})
		stays("a short link", func() error {
			if _, err := b.repo.ShortLink(b.ctx, player, r.ID, "v1"); err != nil {
				return err
			}
			_, err := b.repo.FollowLink(b.ctx, "v1")
			return err
		})
	}},
	{Name: "ProductsUpsertReportsCreated", Run: func(t *testing.T, b bundle) {
		p := catalogue.Product{ID: "SKU-1", Name: "Mug", BrandName: "Acme", Category: "Home", MRP: 500_00, ListingPrice: 450_00,
			DiscountedListingPrice: 400_00, MaxCoinDiscountPct: 2000, PriceUpdatedAt: time.Now(), IsActive: true}
		created, err := b.repo.UpsertProduct(b.ctx, p)
		require.NoError(t, err)
		require.True(t, created)
		p.Name = "Big mug"
		created, err = b.repo.UpsertProduct(b.ctx, p)
		require.NoError(t, err)
		require.False(t, created)
	}},
}
