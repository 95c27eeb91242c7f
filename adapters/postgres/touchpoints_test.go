package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/sql/migrations"
)

type touchBundle struct {
	catalogueBundle
	tp    *touchpoints.Service
	repo  touchpoints.Repo
	now   time.Time
	brand string
}

func setupTouchpoints(t *testing.T) touchBundle {
	t.Helper()
	b := setupCatalogue(t)
	store := postgres.NewTouchpointsStore(postgres.NewDB(b.pool))
	now := time.Now()
	tb := touchBundle{catalogueBundle: b, repo: store.Repo(), now: now,
		tp: touchpoints.NewService(store, touchpoints.Config{Currency: "INR", DefaultStoreURL: "http://localhost:8080/store", Now: func() time.Time { return now },
			Audit: newAuditLog(postgres.NewDB(b.pool))})}
	ctx := context.Background()
	_, err := b.svc.PutCategory(ctx, catalogue.Category{Code: "SHOPPING", Name: "Shopping"})
	require.NoError(t, err)
	_, err = b.svc.PutBrand(ctx, catalogue.Brand{Code: "AMAZON", Name: "Amazon", Categories: []string{"SHOPPING"}, IsActive: true})
	require.NoError(t, err)
	return tb
}

func (b touchBundle) giftCard(t *testing.T, name string, xScore float64) uuid.UUID {
	t.Helper()
	r, err := b.svc.CreateReward(context.Background(), catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.GiftCard,
		BrandCode: "AMAZON", Name: name, IsActive: true, ValueType: catalogue.Fixed, XScore: xScore,
		Denominations: []money.Amount{inr(100), inr(500)}, DiscountPct: 1000}})
	require.NoError(t, err)
	// An operator-made gift card is a pool reward: in stock while its pool has codes.
	_, _, err = b.svc.AddCodes(context.Background(), r.ID, []catalogue.Code{{Code: name + "-1"}, {Code: name + "-2"}})
	require.NoError(t, err)
	return r.ID
}

func (b touchBundle) coupon(t *testing.T, name string, xScore float64, codes int) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	r, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon,
		BrandCode: "AMAZON", Name: name, CampaignTitle: name + " deal", IsActive: true, XScore: xScore, MRP: inr(200), SellingPrice: inr(150)}})
	require.NoError(t, err)
	for i := range codes {
		_, _, err := b.svc.AddCodes(ctx, r.ID, []catalogue.Code{{Code: name + string(rune('A'+i))}})
		require.NoError(t, err)
	}
	return r.ID
}

func (b touchBundle) player(t *testing.T, balance int64) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, b.pool.QueryRow(context.Background(),
		`INSERT INTO players (game_id, environment, uuid) VALUES ($1, 'test', $2) RETURNING id`, b.game.ID, uuid.NewString()).Scan(&id))
	b.exec(`INSERT INTO balances (player_id, coin_id, balance, lifetime_earned) VALUES ($1, $2, $3, $3)`, id, b.coin.ID, balance)
	return id
}

func (b touchBundle) place(t *testing.T, env studio.Environment, typ touchpoints.ItemType, rewardID *uuid.UUID, productID string, rule *touchpoints.Rule) uuid.UUID {
	t.Helper()
	p, _, err := b.tp.PutPlacement(context.Background(), touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: env,
		Screen: "home", Type: typ, RewardID: rewardID, ProductID: productID, Rule: rule, IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 300, Height: 400}})
	require.NoError(t, err)
	return p.ID
}

func (b touchBundle) serve(t *testing.T, env studio.Environment, typ touchpoints.ItemType, player *uuid.UUID) touchpoints.Served {
	t.Helper()
	s, err := b.tp.Serve(context.Background(), touchpoints.ServeRequest{GameID: b.game.ID, Environment: env, Screen: "home", Type: typ, PlayerID: player})
	require.NoError(t, err)
	return s
}

func TestTouchpointsServeConfiguredItemThenRule(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()

	require.Nil(t, b.serve(t, studio.Test, "", nil).Item, "nothing configured")

	empty := b.coupon(t, "Empty", 9, 0)
	best := b.coupon(t, "Best", 5, 2)
	b.coupon(t, "Second", 1, 1)
	b.place(t, studio.Test, touchpoints.TypeCoupon, &empty, "", &touchpoints.Rule{Brand: "AMAZON"})

	s := b.serve(t, studio.Test, "", nil)
	require.NotNil(t, s.Item, "the configured coupon is out of codes: the rule's best stands in")
	require.Equal(t, best.String(), s.Item.ID)
	require.Equal(t, "COUPON", s.Item.Type)
	require.Equal(t, "Best deal", s.Item.OfferText)
	require.Nil(t, s.Item.Pricing)
	require.Equal(t, "https://cdn.example.com/f.png", s.Asset.ImageURL)
	require.Nil(t, b.serve(t, studio.Live, "", nil).Item, "the live environment has nothing until promoted")

	// A second placement on the screen: type is now required.
	gc := b.giftCard(t, "Amazon Gift Card", 0)
	b.place(t, studio.Test, touchpoints.TypeGiftCard, &gc, "", nil)
	_, err := b.tp.Serve(ctx, touchpoints.ServeRequest{GameID: b.game.ID, Environment: studio.Test, Screen: "home"})
	require.Equal(t, touchpoints.ErrTypeRequired.Code, errs.CodeOf(err))

	s = b.serve(t, studio.Test, touchpoints.TypeGiftCard, nil)
	require.Equal(t, gc.String(), s.Item.ID)
	require.Equal(t, &touchpoints.Pricing{Currency: "INR", MRP: inr(100), Price: inr(90), DiscountPct: 1000, PriceAfterCoins: 0}, s.Item.Pricing)
	require.Equal(t, int64(900), s.Item.Coins.CoinsRequired, "uncapped without a player: 90.00 × 10")

	player := b.player(t, 250)
	s = b.serve(t, studio.Test, touchpoints.TypeGiftCard, &player)
	require.Equal(t, int64(250), s.Item.Coins.CoinsRequired, "capped by the balance")
	require.Equal(t, inr(65), s.Item.Pricing.PriceAfterCoins)

	poor := b.player(t, 0)
	s = b.serve(t, studio.Test, touchpoints.TypeGiftCard, &poor)
	require.Nil(t, s.Item.Coins, "an empty balance pays nothing")

	// Go-live copies the test placements.
	live, err := b.tp.Promote(ctx, b.game.ID)
	require.NoError(t, err)
	require.Len(t, live, 2)
	require.Equal(t, gc.String(), b.serve(t, studio.Live, touchpoints.TypeGiftCard, nil).Item.ID)

	// A placement of a taken screen and type is a conflict; a reward of the wrong type is 400.
	_, _, err = b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: studio.Test, Screen: "home",
		Type: touchpoints.TypeGiftCard, RewardID: &gc, IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 1, Height: 1}})
	require.Equal(t, touchpoints.ErrPlacementConflict.Code, errs.CodeOf(err))
	_, _, err = b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: studio.Live, Screen: "home",
		Type: touchpoints.TypeCoupon, RewardID: &gc, IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 1, Height: 1}})
	require.Equal(t, errs.Invalid, errs.KindOf(err))
}

func TestTouchpointsPresetAssetsAndStaleProducts(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	_, err := b.tp.PutAsset(ctx, touchpoints.PresetAsset{ID: "gold-frame", Name: "Gold", ImageURL: "https://cdn.example.com/gold.png", Orientation: touchpoints.Landscape, Width: 640, Height: 360})
	require.NoError(t, err)
	_, err = b.svc.PutProduct(ctx, catalogue.Product{ID: "sku-1", Name: "Headphones", MRP: inr(1000), ListingPrice: inr(900),
		DiscountedListingPrice: inr(800), MaxCoinDiscountPct: 5000, PriceUpdatedAt: b.now.Add(-25 * time.Hour), IsActive: true})
	require.NoError(t, err)
	_, _, err = b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: studio.Test, Screen: "home",
		Type: touchpoints.TypeProduct, ProductID: "sku-1", IsActive: true, Asset: touchpoints.Asset{Source: touchpoints.SourcePreset, PresetID: "gold-frame"}})
	require.NoError(t, err)
	s := b.serve(t, studio.Test, "", nil)
	require.Equal(t, "sku-1", s.Item.ID)
	require.Nil(t, s.Item.Pricing, "a price snapshot over 24 h old is not quoted")
	require.Nil(t, s.Item.Coins)
	require.Equal(t, touchpoints.Asset{Source: "PRESET", PresetID: "gold-frame", ImageURL: "https://cdn.example.com/gold.png", Orientation: "LANDSCAPE", Width: 640, Height: 360}, *s.Asset)

	// Changing the library asset changes what is served.
	_, err = b.tp.PutAsset(ctx, touchpoints.PresetAsset{ID: "gold-frame", Name: "Gold", ImageURL: "https://cdn.example.com/gold2.png", Orientation: touchpoints.Landscape, Width: 640, Height: 360})
	require.NoError(t, err)
	require.Equal(t, "https://cdn.example.com/gold2.png", b.serve(t, studio.Test, "", nil).Asset.ImageURL)

	_, _, err = b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: b.game.ID, Environment: studio.Test, Screen: "home",
		Type: touchpoints.TypeCoupon, Rule: &touchpoints.Rule{}, IsActive: true, Asset: touchpoints.Asset{Source: touchpoints.SourcePreset, PresetID: "nope"}})
	require.Equal(t, errs.Invalid, errs.KindOf(err))
}

func TestTouchpointsBestRewardsFollowTheRule(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	low := b.giftCard(t, "Low", 1)
	high := b.giftCard(t, "High", 9)
	hidden := b.giftCard(t, "Hidden", 20)
	b.exec(`INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden) VALUES ($1, $2, true)`, b.game.ID, hidden)
	b.exec(`UPDATE catalogue_rewards SET min_selling = 100 WHERE id = $1`, low)
	q := touchpoints.RewardQuery{GameID: b.game.ID, CoinID: b.coin.ID, Type: catalogue.GiftCard, InStock: true, Limit: 10, Now: b.now}
	ids := func(sortBy string) []uuid.UUID {
		q.SortBy = sortBy
		list, err := b.repo.BestRewards(ctx, q)
		require.NoError(t, err)
		var out []uuid.UUID
		for _, r := range list {
			out = append(out, r.Reward.ID)
		}
		return out
	}
	require.Equal(t, []uuid.UUID{high, low}, ids(touchpoints.SortDefault), "x-score first; hidden rewards never")
	require.Equal(t, []uuid.UUID{low, high}, ids(touchpoints.SortPriceLowHigh))
	require.Equal(t, []uuid.UUID{high, low}, ids(touchpoints.SortNewest))
	q.Brand = "NOPE"
	require.Empty(t, ids(touchpoints.SortDefault))
}

func TestTouchpointsTreesHydrateAndExpand(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	gc := b.giftCard(t, "Amazon Gift Card", 5)
	other := b.giftCard(t, "Other", 1)
	_, err := b.svc.PutProduct(ctx, catalogue.Product{ID: "sku-1", Name: "Headphones", BrandName: "Sony", Category: "Audio", MRP: inr(1000),
		ListingPrice: inr(900), DiscountedListingPrice: inr(800), MaxCoinDiscountPct: 5000, PriceUpdatedAt: b.now, IsActive: true})
	require.NoError(t, err)
	dynID := uuid.New()
	nodes := []touchpoints.Node{
		{DisplayOrder: 1, DataType: touchpoints.DataStatic, RewardID: &gc},
		{DisplayOrder: 2, DataType: touchpoints.DataStatic, ProductID: "sku-1"},
		{ID: dynID, DisplayOrder: 3, DataType: touchpoints.DataDynamic, ActionPrefix: "store://r/", Query: &touchpoints.Query{Type: touchpoints.QueryRewards, Limit: 5}},
	}
	tree, created, err := b.tp.PutTree(ctx, b.game.ID, "Home", nodes)
	require.NoError(t, err)
	require.True(t, created)

	_, err = b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID}, "home")
	require.Equal(t, touchpoints.ErrTouchpointNotFound.Code, errs.CodeOf(err), "names are case sensitive")

	bare, err := b.tp.TreeByID(ctx, touchpoints.TreeRequest{GameID: b.game.ID}, tree.ID)
	require.NoError(t, err)
	require.Len(t, bare.Nodes, 4, "two static nodes and the dynamic one's two rewards")
	for _, n := range bare.Nodes {
		require.Nil(t, n.Data, "no coinId, no data")
	}
	require.Equal(t, "store://r/"+gc.String(), bare.Nodes[2].CTA.Action)
	require.Equal(t, "store://r/"+other.String(), bare.Nodes[3].CTA.Action)

	player := b.player(t, 1000)
	got, err := b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID, CoinID: &b.coin.ID, PlayerID: &player}, "Home")
	require.NoError(t, err)
	rd := got.Nodes[0].Data.Reward
	require.Equal(t, gc, rd.Reward.ID)
	require.True(t, rd.IsActive)
	require.Equal(t, int64(900), rd.CoinPrice, "ceil(90.00 × 10)")
	pd := got.Nodes[1].Data.Product
	require.Equal(t, int64(4000), pd.CoinsForMax, "50% of 800.00 × 10")
	require.Equal(t, int64(1000), pd.CoinsForDiscount, "the player's 1,000 coins")
	require.NotNil(t, got.Nodes[3].Data.Reward)

	_, err = b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID, CoinID: ptrTo(uuid.New())}, "Home")
	require.Equal(t, "COIN_NOT_FOUND", errs.CodeOf(err))
	_, err = b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID, CoinID: ptrTo(uuid.New())}, "Nope")
	require.Equal(t, "COIN_NOT_FOUND", errs.CodeOf(err), "the coin is checked before the tree")
	_, err = b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID, CoinID: &b.coin.ID}, "Nope")
	require.Equal(t, touchpoints.ErrTouchpointNotFound.Code, errs.CodeOf(err))
	_, err = b.tp.TreeByID(ctx, touchpoints.TreeRequest{GameID: uuid.New()}, tree.ID)
	require.Equal(t, touchpoints.ErrTouchpointNotFound.Code, errs.CodeOf(err), "another game's tree")

	// Reads keep the decoded tree and read its version only: a change is served at once, by
	// name and by id.
	changed := []touchpoints.Node{{DisplayOrder: 1, DataType: touchpoints.DataStatic, RewardID: &other}}
	_, created, err = b.tp.PutTree(ctx, b.game.ID, "Home", changed)
	require.NoError(t, err)
	require.False(t, created)
	for range 2 {
		byName, err := b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID, CoinID: &b.coin.ID}, "Home")
		require.NoError(t, err)
		require.Len(t, byName.Nodes, 1)
		require.Equal(t, other, byName.Nodes[0].Data.Reward.Reward.ID)
		byID, err := b.tp.TreeByID(ctx, touchpoints.TreeRequest{GameID: b.game.ID}, tree.ID)
		require.NoError(t, err)
		require.Len(t, byID.Nodes, 1)
		require.Equal(t, other, *byID.Nodes[0].RewardID)
	}

	missing := uuid.New()
	_, _, err = b.tp.PutTree(ctx, b.game.ID, "Bad", []touchpoints.Node{{DataType: touchpoints.DataStatic, RewardID: &missing}})
	require.Equal(t, errs.Invalid, errs.KindOf(err))
	list, err := b.tp.Trees(ctx, touchpoints.TreeRequest{GameID: b.game.ID}, 1, 20)
	require.NoError(t, err)
	require.Len(t, list.Trees, 1, "a refused tree is not stored")
	require.Equal(t, 1, list.Total)

	require.NoError(t, b.tp.DeleteTree(ctx, b.game.ID, "Home"))
	require.Equal(t, touchpoints.ErrTouchpointNotFound.Code, errs.CodeOf(b.tp.DeleteTree(ctx, b.game.ID, "Home")))
}

// A tree is stored with the most nodes it serves, which the list's paging reads without the
// nodes: the first n trees by name, and how many the game has. Trees stored before the sizes
// were kept (migration 00028) hold 2,000, a bound every write has kept.
func TestTouchpointsTreeSizesAreStoredAndReadAlone(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	put := func(name string, nodes ...touchpoints.Node) touchpoints.Tree {
		t.Helper()
		tree, _, err := b.tp.PutTree(ctx, b.game.ID, name, nodes)
		require.NoError(t, err)
		return tree
	}
	dyn := touchpoints.Node{DataType: touchpoints.DataDynamic, ActionPrefix: "store://r/",
		Query: &touchpoints.Query{Type: touchpoints.QueryRewards, Limit: 4}, Nodes: []touchpoints.Node{{}}}
	c := put("c", touchpoints.Node{})
	a := put("a", dyn)
	bb := put("b", touchpoints.Node{}, touchpoints.Node{}, touchpoints.Node{})
	sizes, total, err := b.repo.TreeSizes(ctx, b.game.ID, 2)
	require.NoError(t, err)
	require.Equal(t, 3, total)
	require.Equal(t, []touchpoints.TreeSize{{ID: a.ID, Name: "a", Served: 8}, {ID: bb.ID, Name: "b", Served: 3}}, sizes)

	trees, err := b.repo.TreesByID(ctx, b.game.ID, []uuid.UUID{c.ID, a.ID, uuid.New()}, nil)
	require.NoError(t, err)
	require.Len(t, trees, 2)
	require.Equal(t, []any{"a", 8, 1, "c", 1, 1}, []any{trees[0].Name, trees[0].Served, len(trees[0].Nodes), trees[1].Name, trees[1].Served, len(trees[1].Nodes)})
	other, err := b.repo.TreesByID(ctx, uuid.New(), []uuid.UUID{a.ID}, nil)
	require.NoError(t, err)
	require.Empty(t, other, "another game's tree")
	byName, err := b.tp.TreeByName(ctx, touchpoints.TreeRequest{GameID: b.game.ID}, "a")
	require.NoError(t, err)
	require.Equal(t, 8, byName.Served)

	// The upgrade: the column is dropped and added again, as on a database that had trees
	// before it.
	db := stdlib.OpenDBFromPool(b.pool)
	defer db.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS)
	require.NoError(t, err)
	_, err = provider.ApplyVersion(ctx, 28, false)
	require.NoError(t, err)
	_, err = provider.ApplyVersion(ctx, 28, true)
	require.NoError(t, err)
	sizes, total, err = b.repo.TreeSizes(ctx, b.game.ID, 10)
	require.NoError(t, err)
	require.Equal(t, 3, total)
	for _, s := range sizes {
		require.Equal(t, touchpoints.MaxServedNodes, s.Served, "%s stored before the sizes", s.Name)
	}
	put("c", touchpoints.Node{}, touchpoints.Node{})
	sizes, _, err = b.repo.TreeSizes(ctx, b.game.ID, 10)
	require.NoError(t, err)
	require.Equal(t, 2, sizes[2].Served, "a tree written again has its own size")

	none, total, err := b.repo.TreeSizes(ctx, uuid.New(), 10)
	require.NoError(t, err)
	require.Empty(t, none)
	require.Zero(t, total)
}

func ptrTo[T any](v T) *T { return &v }

func TestTouchpointsLookupOnPoolAndInTransaction(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	gc := b.giftCard(t, "Gift", 5)
	_, err := b.svc.PutProduct(ctx, catalogue.Product{ID: "sku-1", Name: "Headphones", BrandName: "Sony", Category: "Audio", MRP: inr(1000),
		ListingPrice: inr(900), DiscountedListingPrice: inr(800), MaxCoinDiscountPct: 5000, PriceUpdatedAt: b.now, IsActive: true})
	require.NoError(t, err)
	l := touchpoints.Lookup{GameID: b.game.ID, CoinID: b.coin.ID, RewardIDs: []uuid.UUID{gc, uuid.New()}, ProductIDs: []string{"sku-1", "nope"},
		BestRewards: []touchpoints.RewardQuery{
			{GameID: b.game.ID, CoinID: b.coin.ID, SortBy: touchpoints.SortDefault, InStock: true, Limit: 5, Now: b.now},
			{GameID: b.game.ID, Brand: "NOPE", SortBy: touchpoints.SortNewest, InStock: true, Limit: 5, Now: b.now},
		},
		BestProducts: []touchpoints.ProductQuery{{Category: "Audio", SortBy: touchpoints.SortDefault, Limit: 3}}}
	check := func(f touchpoints.Found) {
		t.Helper()
		require.Len(t, f.Rewards, 1, "ids that exist")
		require.Equal(t, gc, f.Rewards[0].Reward.ID)
		require.Len(t, f.Products, 1)
		require.Len(t, f.BestRewards, 2, "one answer per query, in order")
		require.Len(t, f.BestRewards[0], 1)
		require.Equal(t, gc, f.BestRewards[0][0].Reward.ID)
		require.Empty(t, f.BestRewards[1])
		require.Len(t, f.BestProducts, 1)
		require.Equal(t, "sku-1", f.BestProducts[0][0].ID)
	}
	found, err := b.repo.Lookup(ctx, l)
	require.NoError(t, err)
	check(found)
	store := postgres.NewTouchpointsStore(postgres.NewDB(b.pool))
	require.NoError(t, store.InTx(ctx, func(repo touchpoints.Repo) error {
		found, err := repo.Lookup(ctx, l)
		check(found)
		return err
	}))
	empty, err := b.repo.Lookup(ctx, touchpoints.Lookup{GameID: b.game.ID})
	require.NoError(t, err)
	require.Empty(t, empty.Rewards)
}

func TestTouchpointsServeSeesChangesAtOnce(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	first := b.giftCard(t, "First", 1)
	second := b.giftCard(t, "Second", 0)
	placement := b.place(t, studio.Test, touchpoints.TypeGiftCard, &first, "", nil)
	put := func(rewardID uuid.UUID) {
		t.Helper()
		_, _, err := b.tp.PutPlacement(ctx, touchpoints.Placement{ID: placement, GameID: b.game.ID, Environment: studio.Test,
			Screen: "home", Type: touchpoints.TypeGiftCard, RewardID: &rewardID, IsActive: true,
			Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 1, Height: 1}})
		require.NoError(t, err)
	}
	// Each state is served twice: nothing of a read may linger into the next.
	for range 2 {
		s := b.serve(t, studio.Test, "", nil)
		require.Equal(t, first.String(), s.Item.ID)
		require.Equal(t, int64(900), s.Item.Coins.CoinsRequired, "90.00 at 10 coins a unit")
	}
	put(second)
	for range 2 {
		require.Equal(t, second.String(), b.serve(t, studio.Test, "", nil).Item.ID, "another configured reward")
	}
	other, err := b.coins.CreateCoin(ctx, coins.Coin{GameID: b.game.ID, Name: "Stars", ImageURL: "https://cdn.example.com/s.png", CoinsPerUnit: 100})
	require.NoError(t, err)
	require.NoError(t, b.tp.SetCoin(ctx, b.game.ID, other.ID))
	for range 2 {
		s := b.serve(t, studio.Test, "", nil)
		require.Equal(t, other.ID, s.Item.Coins.CoinID, "another touchpoint coin")
		require.Equal(t, int64(9000), s.Item.Coins.CoinsRequired)
	}
	b.exec(`UPDATE catalogue_rewards SET is_active = false WHERE id = $1`, second)
	for range 2 {
		require.Nil(t, b.serve(t, studio.Test, "", nil).Item, "an inactive configured reward and no rule: nothing")
	}
}

// A read handed the caller's copy of a tree answers with that copy while the stored tree is its
// version (its nodes neither read nor decoded), and with the stored tree once it is not.
func TestTouchpointsTreeReadsAnswerWithTheKnownVersion(t *testing.T) {
	t.Parallel()
	b := setupTouchpoints(t)
	ctx := context.Background()
	stored, _, err := b.tp.PutTree(ctx, b.game.ID, "Home", []touchpoints.Node{{DataType: touchpoints.DataAsset}})
	require.NoError(t, err)
	marked := stored
	marked.Nodes = []touchpoints.Node{{DataType: touchpoints.DataAsset}, {DataType: touchpoints.DataAsset}}
	stale := marked
	stale.UpdatedAt = stale.UpdatedAt.Add(-time.Second)

	for _, key := range []touchpoints.TreeKey{{Name: "Home"}, {ID: stored.ID}} {
		got, _, err := b.repo.TreeWithCoin(ctx, b.game.ID, key, nil, nil, &marked)
		require.NoError(t, err)
		require.Len(t, got.Nodes, 2, "%+v: the known copy", key)
		got, _, err = b.repo.TreeWithCoin(ctx, b.game.ID, key, nil, nil, &stale)
		require.NoError(t, err)
		require.Len(t, got.Nodes, 1, "%+v: another version: the stored tree", key)
	}
	trees, err := b.repo.TreesByID(ctx, b.game.ID, []uuid.UUID{stored.ID}, map[uuid.UUID]touchpoints.Tree{stored.ID: marked})
	require.NoError(t, err)
	require.Len(t, trees, 1)
	require.Len(t, trees[0].Nodes, 2, "the known copy")
	trees, err = b.repo.TreesByID(ctx, b.game.ID, []uuid.UUID{stored.ID}, map[uuid.UUID]touchpoints.Tree{stored.ID: stale})
	require.NoError(t, err)
	require.Len(t, trees[0].Nodes, 1, "another version: the stored tree")
}
