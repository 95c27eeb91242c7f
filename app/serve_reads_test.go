package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// serveFixture is a catalogue with every case serving tells apart, on two instances
// (setupCatalogueInstances): synced gift cards (the provider's stock), operator-made gift cards
// and coupons whose pools are full or empty, a coupon with a shared code, a hidden reward, an
// inactive reward, a reward of an inactive brand, one that has ended, and brands in categories.
type serveFixture struct {
	*catalogueInstances
	// ids are every reward, by a name saying what it is.
	ids map[string]uuid.UUID
}

func setupServe(t *testing.T) *serveFixture {
	t.Helper()
	ctx := context.Background()
	c := setupCatalogueInstances(t)
	f := &serveFixture{catalogueInstances: c, ids: map[string]uuid.UUID{}}
	cat := c.a.Catalogue
	_, err := cat.Sync(ctx)
	require.NoError(t, err)
	for id, l := range c.listed(t, c.a) {
		f.ids[fmt.Sprintf("synced %s %s", l.Reward.BrandCode, id)] = id
	}
	for _, cg := range []catalogue.Category{{Code: "FOOD", Name: "Food"}, {Code: "TRAVEL", Name: "Travel"}} {
		_, err := cat.PutCategory(ctx, cg)
		require.NoError(t, err)
	}
	for _, b := range []catalogue.Brand{{Code: "HOUSE", Name: "House", Categories: []string{"FOOD"}, IsActive: true},
		{Code: "TRIP", Name: "Trip", Categories: []string{"TRAVEL", "FOOD"}, IsActive: true},
		{Code: "CLOSED", Name: "Closed", Categories: []string{"FOOD"}, IsActive: true}} {
		_, err := cat.PutBrand(ctx, b)
		require.NoError(t, err)
	}
	past := time.Now().Add(-time.Hour)
	add := func(name string, r catalogue.Reward, shared string, codes int) uuid.UUID {
		t.Helper()
		r.Name, r.IsActive = name, true
		created, err := cat.CreateReward(ctx, catalogue.NewReward{Reward: r, SharedCode: shared})
		require.NoError(t, err, name)
		var list []catalogue.Code
		for n := range codes {
			list = append(list, catalogue.Code{Code: fmt.Sprintf("%s-%d", created.ID, n)})
		}
		if len(list) > 0 {
			_, _, err = cat.AddCodes(ctx, created.ID, list)
			require.NoError(t, err, name)
		}
		f.ids[name] = created.ID
		return created.ID
	}
	card := func(brand string, face int64, discount money.Pct, xscore float64) catalogue.Reward {
		return catalogue.Reward{Type: catalogue.GiftCard, BrandCode: brand, ValueType: catalogue.Fixed,
			Denominations: []money.Amount{money.Amount(face * 100)}, DiscountPct: discount, XScore: xscore}
	}
	coupon := func(brand string, mrp, price int64, xscore float64) catalogue.Reward {
		return catalogue.Reward{Type: catalogue.Coupon, BrandCode: brand, MRP: money.Amount(mrp * 100),
			SellingPrice: money.Amount(price * 100), XScore: xscore}
	}
	add("card house full", card("HOUSE", 100, 500, 5), "", 3)
	add("card house empty", card("HOUSE", 50, 1000, 9), "", 0)
	add("card trip full", card("TRIP", 200, 0, 1), "", 2)
	hidden := add("card trip hidden", card("TRIP", 300, 1500, 8), "", 2)
	inactive := add("card house inactive", card("HOUSE", 75, 0, 7), "", 2)
	ended := card("TRIP", 20, 0, 6)
	ended.EndDate = &past
	add("card trip ended", ended, "", 2)
	add("card closed brand", card("CLOSED", 10, 0, 10), "", 2)
	add("coupon house full", coupon("HOUSE", 100, 60, 2), "", 1)
	add("coupon house empty", coupon("HOUSE", 100, 10, 9), "", 0)
	add("coupon trip shared", coupon("TRIP", 100, 100, 1), "SHARED-CODE", 0)
	titled := coupon("TRIP", 40, 30, 3)
	titled.CampaignTitle = "Two for one"
	add("coupon trip titled", titled, "", 1)

	yes := true
	_, err = cat.ChangeGameReward(ctx, c.q.GameID, hidden, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	_, err = cat.ChangeReward(ctx, inactive, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.IsActive = false }})
	require.NoError(t, err)
	_, err = cat.PutBrand(ctx, catalogue.Brand{Code: "CLOSED", Name: "Closed", Categories: []string{"FOOD"}, IsActive: false})
	require.NoError(t, err)
	return f
}

// place makes the game's placement of typ on the home screen, through instance m.
func (f *serveFixture) place(t *testing.T, m app.Modules, typ touchpoints.ItemType, rewardID *uuid.UUID, rule *touchpoints.Rule) {
	t.Helper()
	_, _, err := m.Touchpoints.PutPlacement(context.Background(), touchpoints.Placement{ID: placementOf(typ), GameID: f.q.GameID,
		Environment: studio.Test, Screen: "home", Type: typ, RewardID: rewardID, Rule: rule, IsActive: true, Asset: serveAsset})
	require.NoError(t, err)
}

var serveAsset = touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png",
	Orientation: touchpoints.Portrait, Width: 1, Height: 1}

func placementOf(typ touchpoints.ItemType) uuid.UUID {
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("serve-placement-"+string(typ)))
}

// served is what svc serves of the placement of typ on the game's home screen, with the time
// taken out.
func (f *serveFixture) served(t *testing.T, svc *touchpoints.Service, typ touchpoints.ItemType) touchpoints.Served {
	t.Helper()
	out, err := svc.Serve(context.Background(), touchpoints.ServeRequest{GameID: f.q.GameID, Environment: studio.Test, Screen: "home", Type: typ})
	require.NoError(t, err)
	out.ServedAt = time.Time{}
	return out
}

func itemID(s touchpoints.Served) string {
	if s.Item == nil {
		return ""
	}
	return s.Item.ID
}

// Serving a placement from memory (the catalogue's read model and pool stock, as the service is
// wired) answers what the SQL path (TouchpointsRewards, TouchpointsBestRewards) answers: the
// configured reward of every kind — in stock or not, hidden, inactive, of an inactive brand,
// ended — and every rule's order, type, category and brand.
func TestServeFromMemoryAgreesWithTheSQL(t *testing.T) {
	t.Parallel()
	f := setupServe(t)
	memory := f.a.Touchpoints
	sql := touchpoints.NewService(postgres.NewTouchpointsStore(postgres.NewDB(f.pool)), touchpoints.Config{Currency: "INR",
		DefaultStoreURL: "https://rewards.example.com/store", Stock: f.a.Catalogue})

	types := map[uuid.UUID]catalogue.Type{}
	for name, id := range f.ids {
		r, err := f.a.Catalogue.GetReward(context.Background(), id)
		require.NoError(t, err, name)
		types[id] = r.Type
	}
	served, rules := 0, 0
	check := func(typ touchpoints.ItemType, rewardID *uuid.UUID, rule *touchpoints.Rule, what string) {
		t.Helper()
		f.place(t, f.a, typ, rewardID, rule)
		want, got := f.served(t, sql, typ), f.served(t, memory, typ)
		require.Equal(t, want, got, what)
		if got.Item != nil {
			served++
		}
	}
	for name, id := range f.ids {
		typ := touchpoints.TypeCoupon
		switch types[id] {
		case catalogue.GiftCard:
			typ = touchpoints.TypeGiftCard
		case catalogue.Coupon:
		default:
			continue
		}
		check(typ, &id, nil, "configured "+name)
		check(typ, &id, &touchpoints.Rule{SortBy: touchpoints.SortDefault}, "configured "+name+", with a rule")
	}
	for _, typ := range []touchpoints.ItemType{touchpoints.TypeGiftCard, touchpoints.TypeCoupon} {
		for _, sortBy := range touchpoints.SortOrders {
			for _, r := range []touchpoints.Rule{{}, {Category: "FOOD"}, {Category: "TRAVEL"}, {Brand: "HOUSE"}, {Brand: "TRIP"},
				{Brand: "CLOSED"}, {Category: "FOOD", Brand: "TRIP"}, {Brand: "NONE"}} {
				r.SortBy = sortBy
				check(typ, nil, &r, fmt.Sprintf("%s rule %+v", typ, r))
				rules++
			}
		}
	}
	require.NotZero(t, served, "the fixture serves something")
	require.NotZero(t, rules)
}

// An operator's change reaches serving at once on the instance that made it and soon after
// on another instance: hiding the configured reward, showing it again, a new price, new codes
// for an empty pool, and deactivating it.
func TestServeSeesOperatorChangesAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := setupServe(t)
	cat := f.a.Catalogue
	typ := touchpoints.TypeGiftCard
	seen := func(what string, ok func(touchpoints.Served) bool) {
		t.Helper()
		require.True(t, ok(f.served(t, f.a.Touchpoints, typ)), "%s: not served at once by the instance that made it", what)
		require.Eventually(t, func() bool { return ok(f.served(t, f.b.Touchpoints, typ)) }, otherInstanceBound, 10*time.Millisecond,
			"%s: not served by the other instance within %s", what, otherInstanceBound)
	}

	card, fallback := f.ids["card trip full"], f.ids["card house full"]
	f.place(t, f.a, touchpoints.TypeGiftCard, &card, &touchpoints.Rule{Brand: "HOUSE"})
	seen("configured", func(s touchpoints.Served) bool { return itemID(s) == card.String() })
	yes, no := true, false
	_, err := cat.ChangeGameReward(ctx, f.q.GameID, card, catalogue.GameRewardChange{Hidden: &yes})
	require.NoError(t, err)
	seen("hide", func(s touchpoints.Served) bool { return itemID(s) == fallback.String() })
	_, err = cat.ChangeGameReward(ctx, f.q.GameID, card, catalogue.GameRewardChange{Hidden: &no})
	require.NoError(t, err)
	seen("show again", func(s touchpoints.Served) bool { return itemID(s) == card.String() })
	_, err = cat.ChangeReward(ctx, card, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.DiscountPct = 2500 }})
	require.NoError(t, err)
	seen("new price", func(s touchpoints.Served) bool {
		return s.Item != nil && s.Item.Pricing != nil && s.Item.Pricing.Price == money.Amount(150_00)
	})
	_, err = cat.ChangeReward(ctx, card, catalogue.RewardChange{Apply: func(r *catalogue.Reward) { r.IsActive = false }})
	require.NoError(t, err)
	seen("deactivate", func(s touchpoints.Served) bool { return itemID(s) == fallback.String() })

	empty := f.ids["coupon house empty"]
	typ = touchpoints.TypeCoupon
	f.place(t, f.a, typ, &empty, nil)
	seen("empty pool", func(s touchpoints.Served) bool { return s.Item == nil && s.PlacementID != nil })
	_, _, err = cat.AddCodes(ctx, empty, []catalogue.Code{{Code: "NEW-1"}})
	require.NoError(t, err)
	seen("new codes", func(s touchpoints.Served) bool { return itemID(s) == empty.String() })
}
