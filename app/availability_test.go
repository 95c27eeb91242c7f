package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// Listings offer only what can be bought: an operator-made gift card is a pool reward (0 until
// codes are added; a purchase takes one), and a synced reward shows its provider's stock
// (SANDBOX_NO_STOCK: 0, never -1).
func TestListingsOfferOnlyWhatCanBeBought(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := setupPartnerWorlds(t, "INR", time.Minute, true)
	s, g, coin := p.shop("Shop")
	caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: studio.Test}
	created, err := p.m.Players.CreateWithUUID(ctx, caller, "shopper")
	require.NoError(t, err)
	_, _, err = p.m.Coins.Distribute(ctx, coins.Movement{GameID: g.ID, Environment: studio.Test, PlayerID: created.Player.ID,
		UserUUID: "shopper", CoinID: coin.ID, Amount: 1_000_000})
	require.NoError(t, err)
	token := func() string {
		r := p.call("POST", "/player/login/federatedByStudio", "", map[string]string{"x-api-key": g.TestKey}, map[string]any{"uuid": "shopper"})
		require.Equal(t, 200, r.Status, string(r.Raw))
		return r.Body["access_token"].(string)
	}()
	listed := func(brand string) map[string]any {
		t.Helper()
		r := p.call("GET", "/rewards?coinId="+coin.ID.String()+"&brand="+brand, "", map[string]string{"x-api-key": g.TestKey, "Authorization": "Bearer " + token, "x-language": "en"}, nil)
		require.Equal(t, 200, r.Status, string(r.Raw))
		items := r.Body["items"].([]any)
		require.NotEmpty(t, items, brand)
		return items[0].(map[string]any)
	}

	// The provider's stock, as the test environment's provider (the built-in sandbox) tells it.
	require.Equal(t, float64(0), listed("SANDBOX_NO_STOCK")["availableQuantity"], "out of stock is 0, never -1")
	require.Equal(t, float64(-1), listed("AMAZON")["availableQuantity"], "the sandbox's stock is unlimited")

	// An operator-made gift card: a pool, empty at first.
	r := p.admin("PUT", "/admin/v1/catalogue/brands/HOUSE", map[string]any{"name": "House", "categories": []string{}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = p.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "GIFT_CARD", "brandCode": "HOUSE", "name": "House card",
		"valueType": "FIXED", "denominations": []float64{100}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	house := uuid.MustParse(r.Body["id"].(string))
	require.Equal(t, float64(0), listed("HOUSE")["availableQuantity"])
	face := money.Amount(100_00)
	buy := func() (orders.View, error) {
		v, _, err := p.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: created.Player, RewardID: house, CoinID: coin.ID, Denomination: &face})
		return v, err
	}
	_, err = buy()
	require.ErrorIs(t, err, orders.ErrOutOfStock)

	r = p.admin("POST", "/admin/v1/catalogue/rewards/"+house.String()+"/codes", map[string]any{"codes": []map[string]any{{"code": "HOUSE-1"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, float64(1), listed("HOUSE")["availableQuantity"])
	v, err := buy()
	require.NoError(t, err)
	require.Equal(t, orders.Success, v.Status)
	require.Equal(t, "HOUSE-1", v.Codes[0].Code)
	require.Equal(t, float64(0), listed("HOUSE")["availableQuantity"])
	_, err = buy()
	require.ErrorIs(t, err, orders.ErrOutOfStock, "the pool is empty again")
}

// Touchpoints serve only what can be bought: a gift card out of stock at the environment's
// provider (SANDBOX_NO_STOCK) is never served, configured or by rule.
func TestTouchpointsServeOnlyWhatCanBeBought(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := setupPartnerWorlds(t, "INR", time.Minute, true)
	_, g, _ := p.shop("Serve")
	var noStock uuid.UUID
	require.NoError(t, p.pool.QueryRow(ctx, `SELECT id FROM catalogue_rewards WHERE brand_code = 'SANDBOX_NO_STOCK' LIMIT 1`).Scan(&noStock))
	serve := func(rewardID *uuid.UUID, brand string) *touchpoints.Item {
		t.Helper()
		_, _, err := p.m.Touchpoints.PutPlacement(ctx, touchpoints.Placement{ID: placementID, GameID: g.ID, Environment: studio.Test,
			Screen: "home", Type: touchpoints.TypeGiftCard, RewardID: rewardID, Rule: &touchpoints.Rule{Brand: brand}, IsActive: true,
			Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 1, Height: 1}})
		require.NoError(t, err)
		out, err := p.m.Touchpoints.Serve(ctx, touchpoints.ServeRequest{GameID: g.ID, Environment: studio.Test, Screen: "home"})
		require.NoError(t, err)
		return out.Item
	}
	require.Nil(t, serve(&noStock, "SANDBOX_NO_STOCK"), "an out-of-stock gift card was served")
	item := serve(&noStock, "AMAZON")
	require.NotNil(t, item, "the rule serves what can be bought instead")
	require.NotEqual(t, noStock.String(), item.ID)
}

var placementID = uuid.New()

// shop makes a studio and a game with a coin worth 1 a unit, through the modules.
func (p *partnerAPI) shop(name string) (studio.Studio, studio.NewGame, coins.Coin) {
	p.t.Helper()
	ctx := context.Background()
	s, err := p.m.Studios.CreateStudio(ctx, name)
	require.NoError(p.t, err)
	g, err := p.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: name})
	require.NoError(p.t, err)
	coin, err := p.m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(p.t, err)
	return s, g, coin
}
