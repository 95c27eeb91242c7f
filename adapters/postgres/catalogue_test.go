package postgres_test

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/studio"
)

type catalogueBundle struct {
	svc  *catalogue.Service
	repo catalogue.Repo
	// ref states the listing and search rules in SQL, the reference the read model is held to.
	ref    postgres.CatalogueReference
	coins  *coins.Service
	game   studio.NewGame
	coin   coins.Coin
	q      catalogue.ListQuery
	exec   func(sql string, args ...any)
	pool   *pgxpool.Pool
	box    sealed.Box
	ids    map[string]uuid.UUID
	studio *studio.Service
	// started is a service as an instance started now has it: its read model not loaded yet.
	started func() *catalogue.Service
}

func setupCatalogue(t *testing.T) catalogueBundle {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.Pool(t)
	database := postgres.NewDB(pool)
	games := postgres.NewStudioStore(database)
	coinStore := postgres.NewCoinsStore(database, nil)
	box, err := sealed.New(bytes.Repeat([]byte{1}, 32))
	require.NoError(t, err)
	cat := postgres.NewCatalogueStore(database)
	started := func() *catalogue.Service {
		return catalogue.NewService(database, cat, coinStore, games, catalogue.Config{Currency: "INR", Box: box,
			PublicURL: "http://localhost:8080", ReadModel: catalogue.NewReadModel(postgres.NewCatalogueSnapshots(database), nil)})
	}
	b := catalogueBundle{
		svc:     started(),
		started: started,
		repo:    cat.Repo(),
		ref:     postgres.NewCatalogueReference(pool),
		coins:   coins.NewService(database, coinStore, games, idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))),
		studio:  studio.NewService(games, newAuditLog(database)),
		ids:     map[string]uuid.UUID{},
		pool:    pool,
		box:     box,
		exec: func(sql string, args ...any) {
			_, err := pool.Exec(ctx, sql, args...)
			require.NoError(t, err)
		},
	}
	s, err := b.studio.CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	b.game, err = b.studio.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Tower Tactics"})
	require.NoError(t, err)
	b.coin, err = b.coins.CreateCoin(ctx, coins.Coin{GameID: b.game.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 10})
	require.NoError(t, err)
	b.q = catalogue.ListQuery{GameID: b.game.ID, CoinID: b.coin.ID, Limit: 100}
	return b
}

func inr(units int64) money.Amount { return money.Amount(units * 100) }

// seedSearchCatalogue builds a small catalogue with names, descriptions and categories to
// search in.
func (b catalogueBundle) seedSearchCatalogue(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for code, name := range map[string]string{"SHOPPING": "Shopping", "FOOD_DINING": "Food & Dining", "GAMING": "Gaming"} {
		_, err := b.svc.PutCategory(ctx, catalogue.Category{Code: code, Name: name})
		require.NoError(t, err)
	}
	brands := []catalogue.Brand{
		{Code: "AMAZON", Name: "Amazon", Description: "Everything store", Categories: []string{"SHOPPING"}, IsActive: true, WebsiteURL: "https://www.amazon.in"},
		{Code: "FLIPKART", Name: "Flipkart", Description: "Online shopping", Categories: []string{"SHOPPING"}, IsActive: true},
		{Code: "SWIGGY", Name: "Swiggy", Description: "Food delivery", Categories: []string{"FOOD_DINING"}, IsActive: true},
		{Code: "STEAM", Name: "Steam", Description: "PC games; works like an Amazon gift card for games", Categories: []string{"GAMING"}, IsActive: true},
	}
	for _, br := range brands {
		_, err := b.svc.PutBrand(ctx, br)
		require.NoError(t, err)
		r, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{
			Type: catalogue.GiftCard, BrandCode: br.Code, Name: br.Name + " Gift Card", Description: br.Description,
			IsActive: true, ValueType: catalogue.Fixed, Denominations: []money.Amount{inr(100), inr(500)},
		}})
		require.NoError(t, err)
		b.ids[br.Code] = r.ID
	}
}

func (b catalogueBundle) search(t *testing.T, text string) []catalogue.Listed {
	t.Helper()
	res, err := b.svc.Search(context.Background(), catalogue.SearchQuery{ListQuery: b.q, Text: text}, nil)
	require.NoError(t, err)
	return res.Rewards
}

func TestSearchToleratesTyposAndPrefixesAndRanksNamesFirst(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedSearchCatalogue(t)

	got := b.search(t, "amazn")
	require.NotEmpty(t, got, "a typo still finds Amazon")
	require.Equal(t, "AMAZON", got[0].Brand.Code)

	got = b.search(t, "flip")
	require.NotEmpty(t, got, "a prefix finds Flipkart")
	require.Equal(t, "FLIPKART", got[0].Brand.Code)

	got = b.search(t, "dining")
	require.Len(t, got, 1, "a category's name finds its brands' rewards")
	require.Equal(t, "SWIGGY", got[0].Brand.Code)

	got = b.search(t, "amazon")
	require.GreaterOrEqual(t, len(got), 2, "the name match and the description match")
	require.Equal(t, "AMAZON", got[0].Brand.Code, "an exact name match ranks above a description match")
	require.Equal(t, "STEAM", got[1].Brand.Code)

	res, err := b.svc.Search(context.Background(), catalogue.SearchQuery{ListQuery: b.q, Text: "shop"}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Categories)
	require.Equal(t, "SHOPPING", res.Categories[0].Category.Code)
	require.Equal(t, int64(2), res.Categories[0].RewardCount)

	res, err = b.svc.Search(context.Background(), catalogue.SearchQuery{ListQuery: b.q, Text: "swigy"}, []string{"brands"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Brands)
	require.Equal(t, "SWIGGY", res.Brands[0].Brand.Code)
	require.Empty(t, res.Rewards)

	// Filters by brand name or code; unknown names are ignored.
	res, err = b.svc.Search(context.Background(), catalogue.SearchQuery{ListQuery: b.q, Text: "gift", Brands: []string{"flipkart", "NOPE"}}, nil)
	require.NoError(t, err)
	require.Len(t, res.Rewards, 1)
	require.Equal(t, "FLIPKART", res.Rewards[0].Brand.Code)
	res, err = b.svc.Search(context.Background(), catalogue.SearchQuery{ListQuery: b.q, Text: "gift", Brands: []string{"NOPE"}}, nil)
	require.NoError(t, err)
	require.Len(t, res.Rewards, 4)
}

// orderCatalogue is a small fixed catalogue on which every list order gives a different
// sequence.
func (b catalogueBundle) seedOrderCatalogue(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	_, err := b.svc.PutCategory(ctx, catalogue.Category{Code: "SHOPPING", Name: "Shopping"})
	require.NoError(t, err)
	for _, code := range []string{"ALPHA", "BRAVO", "CHARLIE", "DELTA"} {
		_, err := b.svc.PutBrand(ctx, catalogue.Brand{Code: code, Name: code + " Store", Categories: []string{"SHOPPING"}, IsActive: true})
		require.NoError(t, err)
	}
	specs := []struct {
		key      string
		brand    string
		typ      catalogue.Type
		range_   bool
		face     int64
		discount money.Pct
		xscore   float64
		orders7  int // successful orders yesterday
		orders30 int // and 20 days ago
	}{
		// coin price at 10 coins a unit: A 900, B 450, C 2000, D 100, E 500;
		// discount on mrp: C 20%, A and B 10%, D and E 0.
		{"A", "ALPHA", catalogue.GiftCard, false, 100, 1000, 5, 1, 20},
		{"B", "BRAVO", catalogue.GiftCard, true, 50, 1000, 6, 9, 0},
		{"C", "CHARLIE", catalogue.Coupon, false, 250, 0, 3, 4, 1},
		{"D", "DELTA", catalogue.GiftCard, false, 10, 0, 2, 0, 0},
		{"E", "ALPHA", catalogue.DigitalCredit, false, 50, 0, 4, 6, 0},
	}
	for _, s := range specs {
		r := catalogue.Reward{Type: s.typ, BrandCode: s.brand, Name: "Reward " + s.key, IsActive: true, XScore: s.xscore, DiscountPct: s.discount}
		switch {
		case s.typ == catalogue.Coupon:
			r.MRP, r.SellingPrice = inr(s.face), inr(200)
		case s.range_:
			r.ValueType, r.MinValue, r.MaxValue = catalogue.Range, inr(s.face), inr(s.face*10)
		default:
			r.ValueType, r.Denominations = catalogue.Fixed, []money.Amount{inr(s.face)}
		}
		created, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: r})
		require.NoError(t, err)
		b.ids[s.key] = created.ID
		b.exec(`INSERT INTO catalogue_reward_orders (reward_id, day, orders) VALUES ($1, current_date - 1, $2), ($1, current_date - 20, $3)`,
			created.ID, s.orders7, s.orders30)
		time.Sleep(2 * time.Millisecond) // distinct created_at
	}
}

func (b catalogueBundle) keys(list []catalogue.Listed) string {
	out := ""
	for _, l := range list {
		for k, id := range b.ids {
			if id == l.Reward.ID {
				out += k
			}
		}
	}
	return out
}

// Every content logic and every search sort gives its own order on the fixed catalogue, and
// the service's order is the one core/catalogue.Compare defines.
func TestEveryListOrderIsTheOneCoreDefines(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedOrderCatalogue(t)
	// The fixture counts its orders in SQL, which a read model reads at its first load and then
	// every OrderCountsInterval: an instance started now has them.
	b.svc = b.started()
	ctx := context.Background()
	seen := map[string]catalogue.Order{}
	check := func(o catalogue.Order, got []catalogue.Listed) {
		t.Helper()
		require.Len(t, got, 5, "order %s", o)
		want := slices.Clone(got)
		catalogue.Sort(o, b.coin.CoinsPerUnit, want)
		require.Equal(t, b.keys(want), b.keys(got), "order %s: the service disagrees with catalogue.Compare", o)
		if other, dup := seen[b.keys(got)]; dup && other != o {
			t.Fatalf("orders %s and %s give the same sequence %s: the fixture does not tell them apart", o, other, b.keys(got))
		}
		seen[b.keys(got)] = o
	}
	for _, o := range catalogue.ContentLogics {
		q := b.q
		q.Order = o
		got, total, err := b.svc.List(ctx, q)
		require.NoError(t, err)
		require.Equal(t, int64(5), total)
		check(o, got)
	}
	// Search sorts: every reward matches "reward" equally well, so pricing-mode puts the RANGE
	// reward (B) last, and most-ordered counts 30 days.
	for name, o := range catalogue.SortBys {
		if o == catalogue.OrderRelevance || o == catalogue.OrderDefault || o == catalogue.OrderNewest ||
			o == catalogue.OrderPriceLowHigh || o == catalogue.OrderPriceHighLow || o == catalogue.OrderDiscount {
			continue // the same orders as above, or (relevance) ties broken the same way as DEFAULT
		}
		q := b.q
		q.Order = o
		res, err := b.svc.Search(ctx, catalogue.SearchQuery{ListQuery: q, Text: "reward"}, []string{"rewards"})
		require.NoError(t, err, name)
		check(o, res.Rewards)
	}
	want := map[catalogue.Order]string{
		catalogue.OrderDefault: "BAECD", catalogue.OrderNewest: "EDCBA", catalogue.OrderTrending: "BECAD",
		catalogue.OrderPriceLowHigh: "DBEAC", catalogue.OrderPriceHighLow: "CAEBD", catalogue.OrderDiscount: "CBAED",
		catalogue.OrderMostOrdered: "ABECD", catalogue.OrderPricingMode: "AECDB",
	}
	require.Len(t, seen, len(want))
	for keys, o := range seen {
		require.Equal(t, want[o], keys, "order %s", o)
	}
}

func TestVisibilityAndPricesPerGame(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedOrderCatalogue(t)
	ctx := context.Background()
	list := func(q catalogue.ListQuery) string {
		got, _, err := b.svc.List(ctx, q)
		require.NoError(t, err)
		return b.keys(got)
	}
	require.Equal(t, "BAECD", list(b.q))

	yes, no := true, false
	_, err := b.svc.ChangeGameReward(ctx, b.game.ID, b.ids["A"], catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	require.Equal(t, "BECD", list(b.q), "a hidden reward is invisible to that game")
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, b.ids["A"], catalogue.GameRewardChange{Hidden: &no})
	require.NoError(t, err)

	_, err = b.svc.ChangeReward(ctx, b.ids["E"], catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.IsActive = false }})
	require.NoError(t, err)
	past := time.Now().Add(-time.Hour)
	_, err = b.svc.ChangeReward(ctx, b.ids["C"], catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.EndDate = &past }})
	require.NoError(t, err)
	require.Equal(t, "BAD", list(b.q), "inactive and expired rewards are invisible")

	_, err = b.svc.ChangeReward(ctx, b.ids["D"], catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.Countries = []string{"US"} }})
	require.NoError(t, err)
	q := b.q
	q.Country = "IN"
	require.Equal(t, "BA", list(q), "a reward of another country is invisible when a country is asked for")

	// Coin prices: 10 coins a unit; a game's own price where the reward allows it.
	got, _, err := b.svc.List(ctx, b.q)
	require.NoError(t, err)
	require.Equal(t, "B", b.keys(got[:1]))
	require.Equal(t, catalogue.Prices{Price: 450, Min: 450, Max: 4500}, got[0].Reward.PricesFor(b.coin.CoinsPerUnit, got[0].Override))
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, b.ids["A"], catalogue.GameRewardChange{CoinPrices: map[uuid.UUID]int64{b.coin.ID: 777}})
	require.ErrorIs(t, err, catalogue.ErrPriceNotEditable)
	_, err = b.svc.ChangeReward(ctx, b.ids["A"], catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.FlagAllowStudioEditPrice = true }})
	require.NoError(t, err)
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, b.ids["A"], catalogue.GameRewardChange{CoinPrices: map[uuid.UUID]int64{b.coin.ID: 777}})
	require.NoError(t, err)
	q = b.q
	q.Order = catalogue.OrderPriceLowHigh
	got, _, err = b.svc.List(ctx, q)
	require.NoError(t, err)
	require.Equal(t, "BA", b.keys(got[len(got)-2:]), "the game's price of A (777) sorts it")
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, b.ids["A"], catalogue.GameRewardChange{CoinPrices: map[uuid.UUID]int64{uuid.New(): 5}})
	require.ErrorContains(t, err, "not a coin of this game")

	_, _, err = b.svc.List(ctx, catalogue.ListQuery{GameID: b.game.ID, CoinID: uuid.New(), Limit: 10})
	require.ErrorIs(t, err, coins.ErrCoinNotFound, "another game's coin (or none) is 404")
}

func TestCouponPoolAndShortLinks(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedSearchCatalogue(t)
	ctx := context.Background()
	coupon, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "SWIGGY",
		Name: "50% off", IsActive: true, MRP: inr(200), SellingPrice: inr(100)}})
	require.NoError(t, err)
	added, free, err := b.svc.AddCodes(ctx, coupon.ID, []catalogue.Code{{Code: "A1"}, {Code: "A2", Pin: "9"}, {Code: "A1"}})
	require.NoError(t, err)
	require.Equal(t, int64(2), added)
	require.Equal(t, int64(2), free)
	added, free, err = b.svc.AddCodes(ctx, coupon.ID, []catalogue.Code{{Code: "A2"}, {Code: "A3"}})
	require.NoError(t, err)
	require.Equal(t, int64(1), added, "duplicates are ignored")
	require.Equal(t, int64(3), free)
	// An operator-made gift card (no provider product) is a pool reward too.
	_, free, err = b.svc.AddCodes(ctx, b.ids["AMAZON"], []catalogue.Code{{Code: "X"}})
	require.NoError(t, err)
	require.Equal(t, int64(1), free)

	q := b.q
	q.RewardIDs = []uuid.UUID{coupon.ID}
	got, _, err := b.svc.List(ctx, q)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.Equal(t, int64(3), *got[0].Free)

	created, err := players.NewService(nil, postgres.NewPlayersStore(postgres.NewDB(b.pool)), nil, players.Config{}).
		CreateWithUUID(ctx, studio.Caller{GameID: b.game.ID, Environment: studio.Test}, "p1")
	require.NoError(t, err)
	p := created.Player.ID
	link, err := b.svc.RedirectionLink(ctx, b.q, p, b.ids["AMAZON"])
	require.NoError(t, err)
	again, err := b.svc.RedirectionLink(ctx, b.q, p, b.ids["AMAZON"])
	require.NoError(t, err)
	require.Equal(t, link, again, "one link per player and reward")
	code := link[len("http://localhost:8080/r/"):]
	to, err := b.svc.FollowLink(ctx, code)
	require.NoError(t, err)
	require.Equal(t, "https://www.amazon.in?utm_source=rewards", to)
	_, err = b.svc.FollowLink(ctx, "nope")
	require.ErrorIs(t, err, catalogue.ErrLinkNotFound)
}
