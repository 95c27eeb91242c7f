package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
)

// The environments are separate money worlds: with a test key only, store purchases and
// partner orders are fulfilled by the built-in sandbox (SANDBOX- codes) and never reach the live
// voucher provider, while live ones do.
func TestTestEnvironmentNeverReachesTheLiveVoucherProvider(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := setupPartnerWorlds(t, "INR", time.Minute, true)
	live := func() int { return len(p.vouchers.Orders()) }

	// The store: a test player buys a gift card and a sandbox brand.
	s, err := p.m.Studios.CreateStudio(ctx, "Worlds")
	require.NoError(t, err)
	g, err := p.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Worlds"})
	require.NoError(t, err)
	coin, err := p.m.Coins.CreateCoin(ctx, coins.Coin{GameID: g.ID, Name: "Gems", ImageURL: "https://cdn.example.com/g.png", CoinsPerUnit: 1})
	require.NoError(t, err)
	buy := func(env studio.Environment, brand string) orders.View {
		t.Helper()
		caller := studio.Caller{GameID: g.ID, StudioID: s.ID, Environment: env}
		created, err := p.m.Players.CreateWithUUID(ctx, caller, "buyer-"+string(env)+"-"+brand)
		require.NoError(t, err)
		_, _, err = p.m.Coins.Distribute(ctx, coins.Movement{GameID: g.ID, Environment: env, PlayerID: created.Player.ID,
			UserUUID: "buyer", CoinID: coin.ID, Amount: 1_000_000})
		require.NoError(t, err)
		list, _, err := p.m.Catalogue.List(ctx, catalogue.ListQuery{GameID: g.ID, CoinID: coin.ID, Brand: brand, Limit: 1})
		require.NoError(t, err)
		require.Len(t, list, 1, brand)
		r := list[0].Reward
		face := r.MinValue
		if len(r.Denominations) > 0 {
			face = r.Denominations[0]
		}
		v, _, err := p.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: created.Player, RewardID: r.ID, CoinID: coin.ID, Denomination: &face, Quantity: 1})
		require.NoError(t, err)
		return v
	}
	v := buy(studio.Test, "AMAZON")
	require.Equal(t, orders.Success, v.Status)
	require.Len(t, v.Codes, 1)
	require.True(t, strings.HasPrefix(v.Codes[0].Code, "SANDBOX-"), v.Codes[0].Code)
	require.Equal(t, orders.Failed, buy(studio.Test, "SANDBOX_FAIL").Status, "the sandbox honours SANDBOX_FAIL")
	require.Zero(t, live(), "a test purchase reached the live voucher provider")

	// The partner API: a funded test wallet orders through the sandbox too.
	pg := p.game("WALLET", 0)
	require.Equal(t, 201, p.credit(pg, 100000, "fund").Status)
	tok := p.token(pg.key, "")
	placed := p.order(tok, orderBody("w-1", "AMAZON", 500, 2))
	require.Equal(t, 201, placed.Status, string(placed.Raw))
	o := data(placed)
	require.Equal(t, "SUCCESS", o["status"])
	for _, c := range o["codes"].([]any) {
		require.True(t, strings.HasPrefix(c.(map[string]any)["code"].(string), "SANDBOX-"), c)
	}
	slow := p.order(tok, orderBody("w-2", "SANDBOX_SLOW", firstValue(data(p.as(tok, "GET", "/partner/v1/gift-cards/brands/SANDBOX_SLOW", nil))), 1))
	require.Contains(t, []int{200, 201}, slow.Status, string(slow.Raw))
	p.await(tok, data(slow)["orderId"].(string), status("SUCCESS"))
	require.Zero(t, live(), "a test partner order reached the live voucher provider")

	// Live: the live provider fulfils, with its own codes.
	v = buy(studio.Live, "AMAZON")
	require.Equal(t, orders.Success, v.Status)
	require.False(t, strings.HasPrefix(v.Codes[0].Code, "SANDBOX-"), v.Codes[0].Code)
	require.Equal(t, 1, live(), "the live purchase is the live provider's only order")
	require.Equal(t, v.ID.String(), p.vouchers.Orders()[0].ExternalRefID)
}
