package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// seedRandomCatalogue builds a catalogue with every case the visibility and order rules tell
// apart: inactive rewards and brands, past and future end dates, countries on rewards and
// brands, hidden rewards and coin prices of the game, equal coin prices (ties), dedupe by
// brand, orders over 7 and 30 days, brands in several categories, and rewards created in one
// transaction, as a provider sync creates its products, so that they share created_at and only
// the last tie-break (the id) orders those of equal x-score.
func (b catalogueBundle) seedRandomCatalogue(t *testing.T, rng *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []catalogue.Category{{Code: "FOOD", Name: "Food", DisplayOrder: 2}, {Code: "TRAVEL", Name: "Travel", DisplayOrder: 1},
		{Code: "GAMES", Name: "Games", DisplayOrder: 1}, {Code: "EMPTY", Name: "Empty"}} {
		_, err := b.svc.PutCategory(ctx, c)
		require.NoError(t, err)
	}
	brands := []catalogue.Brand{
		{Code: "ZETA", Name: "Zeta", Categories: []string{"FOOD"}, IsActive: true},
		{Code: "ALPHA", Name: "alpha", Categories: []string{"FOOD", "TRAVEL"}, IsActive: true},
		{Code: "BETA", Name: "Beta", Categories: []string{"GAMES"}, Countries: []string{"IN"}, IsActive: true},
		{Code: "GAMMA", Name: "Gamma", Categories: []string{"TRAVEL", "GAMES"}, Countries: []string{"US", "IN"}, IsActive: true},
		{Code: "OFF", Name: "Off", Categories: []string{"FOOD"}, IsActive: false},
		{Code: "SAME", Name: "Zeta", Categories: []string{}, IsActive: true},
	}
	for _, br := range brands {
		_, err := b.svc.PutBrand(ctx, br)
		require.NoError(t, err)
	}
	past, future := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	types := []catalogue.Type{catalogue.GiftCard, catalogue.Coupon, catalogue.DigitalCredit, catalogue.Physical}
	// After a reward's creation: its orders, and the game hiding or repricing it.
	created := func(n int, r catalogue.Reward) {
		b.ids[fmt.Sprint(n)] = r.ID
		if o := rng.IntN(4); o > 0 {
			b.exec(`INSERT INTO catalogue_reward_orders (reward_id, day, orders) VALUES ($1, current_date - 1, $2), ($1, current_date - 20, $3)`,
				r.ID, o, rng.IntN(3))
		}
		yes := true
		var err error
		switch rng.IntN(6) {
		case 0:
			_, err = b.svc.ChangeGameReward(ctx, b.game.ID, r.ID, catalogue.GameRewardChange{Hidden: &yes})
		case 1:
			if r.FlagAllowStudioEditPrice {
				_, err = b.svc.ChangeGameReward(ctx, b.game.ID, r.ID, catalogue.GameRewardChange{
					CoinPrices: map[uuid.UUID]int64{b.coin.ID: int64(100 * (1 + rng.IntN(4)))}})
			}
		}
		require.NoError(t, err)
	}
	// Rewards 30 to 49 are created in one transaction: 20 rewards of 3 x-scores, about half of
	// them visible, always leave some with equal created_at and x-score.
	const batchFrom, batchTo = 30, 50
	var batch []catalogue.NewReward
	for n := range 60 {
		r := catalogue.Reward{Type: types[rng.IntN(len(types))], BrandCode: brands[rng.IntN(len(brands))].Code,
			Name: fmt.Sprintf("Reward %d", n), IsActive: rng.IntN(8) != 0, XScore: float64(rng.IntN(3)),
			FlagAllowStudioEditPrice: rng.IntN(2) == 0}
		switch rng.IntN(6) {
		case 0:
			r.EndDate = &past
		case 1:
			r.EndDate = &future
		}
		switch rng.IntN(4) {
		case 0:
			r.Countries = []string{"IN"}
		case 1:
			r.Countries = []string{"US"}
		}
		randomPrices(rng, &r, 5)
		// What a purchase reads besides the price (orders.Service plans from the read model).
		var shared string
		switch rng.IntN(4) {
		case 0:
			r.PurchaseCooldown = time.Duration(1+rng.IntN(3)) * time.Hour
		case 1:
			if r.Type == catalogue.GiftCard {
				r.ProviderProductID = fmt.Sprintf("P-%d", n)
			}
		case 2:
			if r.Type == catalogue.Coupon {
				shared = fmt.Sprintf("SHARED-%d", n)
			}
		}
		if n < batchFrom || n >= batchTo {
			r, err := b.svc.CreateReward(ctx, catalogue.NewReward{Reward: r, SharedCode: shared})
			require.NoError(t, err)
			created(n, r)
			continue
		}
		batch = append(batch, catalogue.NewReward{Reward: r, SharedCode: shared})
		if n < batchTo-1 {
			continue
		}
		inserted := make([]catalogue.Reward, len(batch))
		err := postgres.NewCatalogueStore(postgres.NewDB(b.pool)).InTx(ctx, func(repo catalogue.Repo) error {
			for i, nr := range batch {
				var sealed []byte
				if nr.SharedCode != "" {
					sealed = b.box.Seal(nr.SharedCode)
				}
				var err error
				if inserted[i], err = repo.InsertReward(ctx, nr.Reward, sealed); err != nil {
					return err
				}
			}
			return nil
		})
		require.NoError(t, err)
		require.Equal(t, inserted[0].CreatedAt, inserted[len(inserted)-1].CreatedAt, "one transaction, one created_at")
		for i, r := range inserted {
			created(batchFrom+i, r)
		}
	}
}

// randomPrices prices r from few face values (one of faces: ties), as its type is priced: a
// selling price under the mrp, or a range or denominations with a discount.
func randomPrices(rng *rand.Rand, r *catalogue.Reward, faces int) {
	face := inr(int64(10 * (1 + rng.IntN(faces))))
	switch {
	case r.Type == catalogue.Coupon || r.Type == catalogue.Physical:
		// FIXED, as the catalogue keeps a reward priced by its mrp (rewards created through the
		// store, as a sync does, skip the service's normalising).
		r.ValueType, r.MRP, r.SellingPrice = catalogue.Fixed, face, face-money.Amount(rng.IntN(3))*inr(5)
	case rng.IntN(3) == 0:
		r.ValueType, r.MinValue, r.MaxValue, r.DiscountPct = catalogue.Range, face, face*10, money.Pct(rng.IntN(3)*500)
	default:
		r.ValueType, r.Denominations, r.DiscountPct = catalogue.Fixed, []money.Amount{face, face * 2}, money.Pct(rng.IntN(3)*500)
	}
}

// The read model answers what the reference SQL answers (CatalogueReference): every list order,
// filter and page, one reward's fetch, and the brand and category metadata, on a random
// catalogue (TestEveryListOrderIsTheOneCoreDefines ties the read model to catalogue.Compare).
func TestReadModelAgreesWithTheSQL(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(seed, 18)))
	ctx := context.Background()
	reads := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(postgres.NewDB(b.pool)).InSlicesOf(7), nil) // loaded 7 rewards a statement
	snap, err := reads.Current(ctx)
	require.NoError(t, err)

	yes, no := true, false
	base := b.q
	base.CoinsPerUnit, base.Now = b.coin.CoinsPerUnit, time.Now()
	filters := map[string]func(*catalogue.ListQuery){
		"none":      func(*catalogue.ListQuery) {},
		"country":   func(q *catalogue.ListQuery) { q.Country = "IN" },
		"category":  func(q *catalogue.ListQuery) { q.Category = "TRAVEL" },
		"brand":     func(q *catalogue.ListQuery) { q.Brand = "ALPHA" },
		"giftcards": func(q *catalogue.ListQuery) { q.GiftCard = &yes },
		"others":    func(q *catalogue.ListQuery) { q.GiftCard = &no },
		"dedupe":    func(q *catalogue.ListQuery) { q.Dedupe = true },
		"ids": func(q *catalogue.ListQuery) {
			q.RewardIDs = []uuid.UUID{b.ids["3"], b.ids["1"], b.ids["40"], uuid.New()}
		},
		"other game": func(q *catalogue.ListQuery) {
			q.GameID = uuid.New()
		},
	}
	type row struct {
		ID       uuid.UUID
		Override *int64
		Orders7d int64
		Price    int64
	}
	// Orders7d is what TRENDING sorts by; the SQL counts it for that order only.
	rows := func(o catalogue.Order, list []catalogue.Listed) []row {
		out := make([]row, len(list))
		for i, l := range list {
			out[i] = row{l.Reward.ID, l.Override, l.Orders7d, l.Reward.CoinPrice(l.Reward.MinFace(), base.CoinsPerUnit, l.Override)}
			if o != catalogue.OrderTrending {
				out[i].Orders7d = 0
			}
		}
		return out
	}
	for name, f := range filters {
		for _, o := range catalogue.ContentLogics {
			for _, page := range []struct{ off, lim int }{{0, 100}, {0, 7}, {7, 7}, {50, 20}} {
				q := base
				f(&q)
				q.Order, q.Offset, q.Limit = o, page.off, page.lim
				want, wantTotal, err := b.ref.ListVisible(ctx, q)
				require.NoError(t, err)
				got, gotTotal := snap.List(q)
				where := fmt.Sprintf("filter %s, order %s, page %+v", name, o, page)
				require.Equal(t, rows(o, want), rows(o, got), where)
				if len(want) > 0 {
					require.Equal(t, wantTotal, gotTotal, where)
				}
			}
		}
	}
	// What a purchase's plan reads of a reward, and its coin price at each face value it offers
	// (a range's ends and middle): a purchase is planned from the read model (orders.Config).
	purchased := func(l catalogue.Listed) string {
		r := l.Reward
		faces := r.Faces()
		if r.ValueType == catalogue.Range {
			faces = []money.Amount{r.MinValue, (r.MinValue + r.MaxValue) / 2, r.MaxValue}
		}
		prices := make([]int64, len(faces))
		for i, f := range faces {
			prices[i] = r.CoinPrice(f, base.CoinsPerUnit, l.Override)
		}
		return fmt.Sprintf("%s %s faces %v offered %v prices %v cooldown %s shared %v provider %q pool %v end %v active %v",
			r.Type, r.ValueType, faces, r.OffersFace(r.MinValue), prices, r.PurchaseCooldown, r.HasSharedCode,
			r.ProviderProductID, r.IsPool(), r.EndDate != nil, r.IsActive)
	}
	for key, id := range b.ids {
		for _, country := range []string{"", "IN", "US"} {
			q := base
			q.Country = country
			want, wantErr := b.ref.GetVisible(ctx, q, id)
			got, gotErr := snap.Get(q, id)
			require.Equal(t, wantErr, gotErr, "reward %s in %q", key, country)
			require.Equal(t, want.Override, got.Override, "reward %s in %q", key, country)
			require.Equal(t, want.Reward.ID, got.Reward.ID, "reward %s in %q", key, country)
			require.Equal(t, purchased(want), purchased(got), "reward %s in %q", key, country)
		}
	}
	brandRows := func(list []catalogue.BrandMeta) []string {
		out := []string{}
		for _, m := range list {
			out = append(out, fmt.Sprintf("%s:%d", m.Brand.Code, m.RewardCount))
		}
		return out
	}
	for _, gift := range []*bool{nil, &yes, &no} {
		for _, cat := range []string{"", "FOOD", "GAMES", "NONE"} {
			want, err := b.ref.Brands(ctx, b.game.ID, gift, cat, base.Now)
			require.NoError(t, err)
			require.Equal(t, brandRows(want), brandRows(snap.Brands(b.game.ID, gift, cat, base.Now)), "giftCard %v, category %q", gift, cat)
		}
	}
	catRows := func(list []catalogue.CategoryMeta) []string {
		out := []string{}
		for _, m := range list {
			out = append(out, fmt.Sprintf("%s:%d", m.Category.Code, m.RewardCount))
		}
		return out
	}
	want, err := b.ref.Categories(ctx, b.game.ID, base.Now)
	require.NoError(t, err)
	require.Equal(t, catRows(want), catRows(snap.Categories(b.game.ID, base.Now)))
	require.NotEmpty(t, want, "the fixture has categories with visible rewards")
}

// The read model ranks a touchpoint rule as TouchpointsBestRewards does (every order, type,
// category and brand, stock aside), and sees a reward by id as TouchpointsRewards does (hidden,
// price override) or leaves it to the SQL (inactive reward or brand, no such reward).
func TestReadModelRanksTouchpointRulesAsTheSQL(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(seed, 19)))
	ctx := context.Background()
	database := postgres.NewDB(b.pool)
	snap, err := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(database), nil).Current(ctx)
	require.NoError(t, err)
	repo := postgres.NewTouchpointsStore(database).Repo()
	now := time.Now()

	type row struct {
		ID       uuid.UUID
		Override *int64
	}
	checked := 0
	for _, sortBy := range []string{"DEFAULT", "NEWEST", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"} {
		for _, typ := range []catalogue.Type{"", catalogue.GiftCard, catalogue.Coupon, catalogue.Physical} {
			for _, f := range []struct{ category, brand string }{{"", ""}, {"TRAVEL", ""}, {"", "ALPHA"}, {"GAMES", "GAMMA"}, {"NONE", ""}} {
				for _, game := range []uuid.UUID{b.game.ID, uuid.New()} {
					q := touchpoints.RewardQuery{GameID: game, CoinID: b.coin.ID, Type: typ, Category: f.category, Brand: f.brand,
						SortBy: sortBy, Limit: 1000, Now: now}
					want, err := repo.BestRewards(ctx, q)
					require.NoError(t, err)
					ranked := snap.Rank(catalogue.RuleQuery{GameID: game, CoinID: b.coin.ID, Type: typ, Category: f.category,
						Brand: f.brand, SortBy: sortBy, Now: now})
					wantRows, gotRows := []row{}, []row{}
					for _, it := range want {
						wantRows = append(wantRows, row{it.Reward.ID, it.Override})
					}
					for i := range ranked.Len() {
						l := ranked.At(i)
						gotRows = append(gotRows, row{l.Reward.ID, l.Override})
					}
					require.Equal(t, wantRows, gotRows, "sortBy %s, type %q, %+v", sortBy, typ, f)
					checked += len(want)
				}
			}
		}
	}
	require.NotZero(t, checked, "the fixture has rewards rules pick")

	ids := []uuid.UUID{uuid.New()}
	for _, id := range b.ids {
		ids = append(ids, id)
	}
	want, err := repo.Rewards(ctx, b.game.ID, b.coin.ID, ids)
	require.NoError(t, err)
	byID := map[uuid.UUID]touchpoints.RewardItem{}
	for _, it := range want {
		byID[it.Reward.ID] = it
	}
	held := 0
	for _, id := range ids {
		l, hidden, ok := snap.Seen(b.game.ID, b.coin.ID, id)
		it, exists := byID[id]
		if !ok {
			// Only the storage holds it: no such reward, or one nobody sees.
			require.False(t, exists && it.Reward.IsActive && it.Brand.IsActive, "reward %s", id)
			continue
		}
		held++
		require.True(t, exists, "reward %s", id)
		require.Equal(t, it.Hidden, hidden, "reward %s", id)
		require.Equal(t, it.Override, l.Override, "reward %s", id)
		require.Equal(t, it.Reward.Name, l.Reward.Name, "reward %s", id)
		require.Equal(t, it.Brand.Name, l.Brand.Name, "reward %s", id)
		require.Equal(t, it.Active(now), catalogue.Visible(l.Reward, l.Brand, hidden, "", now), "reward %s", id)
	}
	require.NotZero(t, held)
}

// A change of some rewards, or of what a game changed of the rewards (hiding, coin prices), is
// loaded alone, the rest of the snapshot kept, and the snapshot it makes lists and searches as
// a whole load does; any other change since the snapshot (a brand's, the version moved by
// hand) or too many rewards changed ask for a whole load.
func TestReadModelLoadsChangesAlone(t *testing.T) {
	t.Parallel()
	b := setupCatalogue(t)
	b.seedRandomCatalogue(t, rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 20)))
	ctx := context.Background()
	src := postgres.NewCatalogueSnapshots(postgres.NewDB(b.pool))
	reads := catalogue.NewReadModel(src, nil)
	first, err := reads.Current(ctx)
	require.NoError(t, err)
	q := b.q
	q.CoinsPerUnit, q.Now, q.Order, q.Limit = b.coin.CoinsPerUnit, time.Now(), catalogue.OrderDefault, 1000
	listed, total := first.List(q)
	require.Greater(t, len(listed), 1)
	id, other := listed[0].Reward.ID, listed[1].Reward.ID
	loadChanges := func(after int64, most int) (catalogue.Changes, bool) {
		ch, ok, err := src.LoadChanges(ctx, after, most)
		require.NoError(t, err)
		return ch, ok
	}
	hidden := func(games []catalogue.GameReward) bool {
		return slices.ContainsFunc(games, func(g catalogue.GameReward) bool { return g.GameID == b.game.ID && g.RewardID == id && g.Hidden })
	}
	// asWholeLoad checks that snap lists and searches as a whole load of its version does.
	asWholeLoad := func(snap *catalogue.Snapshot) {
		t.Helper()
		whole, err := catalogue.NewReadModel(src, nil).Current(ctx)
		require.NoError(t, err)
		require.Equal(t, whole.Version(), snap.Version())
		require.Equal(t, whole.Rewards(), snap.Rewards())
		require.NoError(t, whole.SearchIndexErr())
		require.NoError(t, snap.SearchIndexErr())
		for _, order := range []catalogue.Order{catalogue.OrderDefault, catalogue.OrderNewest, catalogue.OrderPriceLowHigh, catalogue.OrderTrending} {
			q := q
			q.Order = order
			wantList, wantTotal := whole.List(q)
			gotList, gotTotal := snap.List(q)
			require.Equal(t, wantTotal, gotTotal, order)
			require.Equal(t, wantList, gotList, order)
			for _, text := range []string{listed[0].Reward.Name, listed[1].Reward.Name, "renamed", "zqrenamed"} {
				sq := catalogue.SearchQuery{ListQuery: q, Text: text}
				wantList, wantTotal := whole.Search(sq)
				gotList, gotTotal := snap.Search(sq)
				require.Equal(t, wantTotal, gotTotal, "%s %q", order, text)
				require.Equal(t, wantList, gotList, "%s %q", order, text)
			}
		}
	}

	yes, no := true, false
	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, id, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	ch, ok := loadChanges(first.Version(), 1000)
	require.True(t, ok, "a game's hiding alone")
	require.Greater(t, ch.Version, first.Version())
	require.True(t, ch.AllGames)
	require.Empty(t, ch.Rewards)
	require.True(t, hidden(ch.Games))
	second, err := reads.Current(ctx) // no watcher: it compares the version first
	require.NoError(t, err)
	require.Equal(t, ch.Version, second.Version())
	_, hiddenTotal := second.List(q)
	require.Equal(t, total-1, hiddenTotal, "the hidden reward is not listed")
	otherGame := q
	otherGame.GameID = uuid.New()
	_, otherBefore := first.List(otherGame)
	_, otherTotal := second.List(otherGame)
	require.Equal(t, otherBefore, otherTotal, "for another game it is")
	_, err = second.Get(q, id)
	require.Error(t, err)

	_, err = b.svc.ChangeGameReward(ctx, b.game.ID, id, catalogue.GameRewardChange{Hidden: &no})
	require.NoError(t, err)
	ch, ok = loadChanges(first.Version(), 1000)
	require.True(t, ok, "two changes of the games alone since the first snapshot")
	require.False(t, hidden(ch.Games))

	// A reward renamed through the service (its search texts with it), another gone.
	_, err = b.svc.ChangeReward(ctx, id, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.Name += " zqrenamed" }})
	require.NoError(t, err)
	b.exec(`UPDATE catalogue_rewards SET is_active = false WHERE id = $1`, other)
	ch, ok = loadChanges(second.Version(), 1000)
	require.True(t, ok, "rewards and the games' rewards alone")
	require.True(t, ch.AllGames)
	require.ElementsMatch(t, []uuid.UUID{id, other}, ch.Rewards)
	require.Len(t, ch.Current, 1, "the gone reward is not current")
	require.Equal(t, id, ch.Current[0].ID)
	require.Contains(t, ch.Search[id].Vector, "zqrenamed")
	_, ok = loadChanges(second.Version(), 1)
	require.False(t, ok, "more rewards changed than asked for")
	ch, ok = loadChanges(ch.Version-1, 1000)
	require.True(t, ok)
	require.False(t, ch.AllGames, "the games' rewards of the changed rewards alone")
	require.Equal(t, []uuid.UUID{other}, ch.Rewards)
	third, err := reads.Current(ctx)
	require.NoError(t, err)
	require.Equal(t, first.Rewards()-1, third.Rewards(), "one reward fewer")
	got, err := third.Get(otherGame, id)
	require.NoError(t, err)
	require.True(t, strings.HasSuffix(got.Reward.Name, " zqrenamed"))
	_, err = third.Get(otherGame, other)
	require.Error(t, err, "the gone reward")
	found, _ := third.Search(catalogue.SearchQuery{ListQuery: otherGame, Text: "zqrenamed"})
	require.Len(t, found, 1, "the index took the new name")
	asWholeLoad(third)

	b.exec(`UPDATE catalogue_rewards SET is_active = true WHERE id = $1`, other)
	b.exec(`INSERT INTO catalogue_game_rewards (game_id, reward_id, hidden) VALUES ($1, $2, true)
		ON CONFLICT (game_id, reward_id) DO UPDATE SET hidden = true`, b.game.ID, other)
	ch, ok = loadChanges(third.Version(), 1000)
	require.True(t, ok)
	require.True(t, slices.ContainsFunc(ch.Games, func(g catalogue.GameReward) bool { return g.RewardID == other && g.Hidden }))
	fourth, err := reads.Current(ctx)
	require.NoError(t, err)
	_, err = fourth.Get(otherGame, other)
	require.NoError(t, err, "back")
	_, err = fourth.Get(q, other)
	require.Error(t, err, "hidden for the game")
	asWholeLoad(fourth)

	b.exec(`UPDATE catalogue_brands SET name = name || ' x' WHERE code = $1`, listed[0].Brand.Code)
	_, ok = loadChanges(fourth.Version(), 1000)
	require.False(t, ok, "a brand changed")
	fifth, err := reads.Current(ctx)
	require.NoError(t, err)
	asWholeLoad(fifth)

	b.exec(`UPDATE catalogue_version SET version = version + 1`)
	_, ok = loadChanges(fifth.Version(), 1000)
	require.False(t, ok, "a version moved by hand")
}
