package app_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// budgetPlayers makes n funded players of the saga's game in its test environment.
func budgetPlayers(t *testing.T, b sagaBundle, n int) []players.Player {
	t.Helper()
	return budgetPlayersIn(t, b, b.caller, n)
}

// budgetPlayersIn makes n funded players of the saga's game in caller's environment.
func budgetPlayersIn(t *testing.T, b sagaBundle, caller studio.Caller, n int) []players.Player {
	t.Helper()
	ctx := context.Background()
	out := make([]players.Player, n)
	for i := range out {
		created, err := b.m.Players.CreateWithUUID(ctx, caller, "budget-"+string(caller.Environment)+"-"+string(rune('a'+i/26))+string(rune('a'+i%26)))
		require.NoError(t, err)
		_, _, err = b.m.Coins.Distribute(ctx, coins.Movement{GameID: caller.GameID, Environment: caller.Environment, PlayerID: created.Player.ID,
			UserUUID: created.Player.StudioRef(), CoinID: b.coin.ID, Amount: 1_000_000})
		require.NoError(t, err)
		out[i] = created.Player
	}
	return out
}

// The smallest face value of a brand's reward.
func budgetFace(t *testing.T, b sagaBundle, brand string) money.Amount {
	t.Helper()
	d, err := b.m.Catalogue.Fetch(context.Background(), catalogue.ListQuery{GameID: b.caller.GameID, CoinID: b.coin.ID}, b.products[brand], b.player.ID)
	require.NoError(t, err)
	if len(d.Faces) > 0 {
		return d.Faces[0].Value
	}
	return d.Reward.MinValue
}

// finishOrder runs an order's fulfilment until it is final, as its job does, and returns it.
func finishOrder(t *testing.T, b sagaBundle, id uuid.UUID) orders.Order {
	t.Helper()
	ctx := context.Background()
	for range 100 {
		next, err := b.m.Orders.Fulfil(ctx, id)
		require.NoError(t, err)
		if next == 0 {
			break
		}
		time.Sleep(next)
	}
	o, err := b.m.Orders.Get(ctx, id)
	require.NoError(t, err)
	return o
}

// A purchase that would take the day's purchases past the budget is 429 and takes nothing; a
// refunded order gives its share back.
func TestPurchaseBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSaga(t, time.Hour)
	face := budgetFace(t, b, "AMAZON")
	budget := face.Times(2)
	_, err := b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{Test: &budget}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	buy := func(p players.Player, brand string) (orders.View, error) {
		f := budgetFace(t, b, brand)
		v, _, err := b.m.Orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: b.products[brand], CoinID: b.coin.ID, Denomination: &f})
		if err == nil && !v.Status.Final() {
			// On a loaded machine the provider's answer can come after the purchase's wait
			// (300 ms here): finish the order as its job would, then read how it ended.
			v.Status = finishOrder(t, b, v.ID).Status
		}
		return v, err
	}
	ps := budgetPlayers(t, b, 3)
	v, err := buy(ps[0], "AMAZON")
	require.NoError(t, err)
	require.Equal(t, orders.Success, v.Status)
	v, err = buy(ps[1], "AMAZON")
	require.NoError(t, err)
	require.Equal(t, orders.Success, v.Status)

	// The budget is spent: 429 with Retry-After until the next UTC day, and no coins move.
	funds, err := b.m.Coins.Funds(ctx, b.caller.GameID, ps[2].ID)
	require.NoError(t, err)
	_, err = buy(ps[2], "AMAZON")
	require.ErrorIs(t, err, orders.ErrBudgetExceeded)
	var coded *errs.Error
	require.ErrorAs(t, err, &coded)
	require.Positive(t, coded.RetryAfter)
	require.LessOrEqual(t, coded.RetryAfter, 24*time.Hour)
	after, err := b.m.Coins.Funds(ctx, b.caller.GameID, ps[2].ID)
	require.NoError(t, err)
	require.Equal(t, funds[0].Balance, after[0].Balance, "a refused purchase took coins")

	// The live environment has its own budget (default 100,000): untouched by test's.
	g, err := b.m.Studios.GetGame(ctx, b.caller.GameID)
	require.NoError(t, err)
	require.Equal(t, studio.DefaultLiveBudget, *g.PurchaseBudget.Live)

	// A refunded order gives its share back: raise the budget by one SANDBOX_FAIL face, whose
	// order fails; then that share is free again for an AMAZON card... only once.
	fail := budgetFace(t, b, "SANDBOX_FAIL")
	budget = face.Times(2) + fail
	_, err = b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{Test: &budget}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	v, err = buy(ps[2], "SANDBOX_FAIL")
	require.NoError(t, err)
	require.Equal(t, orders.Failed, v.Status)
	v, err = buy(ps[2], "SANDBOX_FAIL")
	require.NoError(t, err, "the failed order's share was not given back")
	require.Equal(t, orders.Failed, v.Status)

	// Unlimited again.
	_, err = b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	_, err = buy(ps[2], "AMAZON")
	require.NoError(t, err)
}

// Live purchases are capped by the live budget, whatever the test environment's (unlimited by
// default): a live purchase past it is refused and takes nothing, while a test one still goes.
func TestLivePurchaseBudget(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSaga(t, time.Hour)
	face := budgetFace(t, b, "AMAZON")
	budget := face.Times(2)
	g, err := b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{Live: &budget}, map[studio.Environment]bool{studio.Live: true})
	require.NoError(t, err)
	require.Nil(t, g.PurchaseBudget.Test, "the test environment has no budget")
	live := b.caller
	live.Environment = studio.Live
	buy := func(caller studio.Caller, p players.Player) (orders.View, error) {
		v, _, err := b.m.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: p, RewardID: b.products["AMAZON"], CoinID: b.coin.ID, Denomination: &face})
		return v, err
	}
	ps := budgetPlayersIn(t, b, live, 3)
	for _, p := range ps[:2] {
		v, err := buy(live, p)
		require.NoError(t, err)
		require.Equal(t, orders.Success, v.Status)
	}

	funds, err := b.m.Coins.Funds(ctx, b.caller.GameID, ps[2].ID)
	require.NoError(t, err)
	_, err = buy(live, ps[2])
	require.ErrorIs(t, err, orders.ErrBudgetExceeded, "the live budget is spent")
	after, err := b.m.Coins.Funds(ctx, b.caller.GameID, ps[2].ID)
	require.NoError(t, err)
	require.Equal(t, funds[0].Balance, after[0].Balance, "a refused purchase took coins")

	v, err := buy(b.caller, budgetPlayers(t, b, 1)[0])
	require.NoError(t, err, "the live budget capped a test purchase")
	require.Equal(t, orders.Success, v.Status)
}

// 50 purchases racing at the edge of the budget never take the day past it.
func TestPurchaseBudgetUnderConcurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSaga(t, time.Hour)
	face := budgetFace(t, b, "AMAZON")
	const fits = 7
	budget := face.Times(fits)
	_, err := b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{Test: &budget}, map[studio.Environment]bool{studio.Test: true})
	require.NoError(t, err)
	ps := budgetPlayers(t, b, 50)
	var (
		wg                 sync.WaitGroup
		mu                 sync.Mutex
		succeeded, refused int
		start              = make(chan struct{})
	)
	for _, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, _, err := b.m.Orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: b.products["AMAZON"], CoinID: b.coin.ID, Denomination: &face})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				succeeded++
			case errs.CodeOf(err) == orders.ErrBudgetExceeded.Code:
				refused++
			default:
				t.Errorf("purchase: %v", err)
			}
		}()
	}
	close(start)
	wg.Wait()
	require.Equal(t, fits, succeeded, "purchases within the budget")
	require.Equal(t, 50-fits, refused)
	// Every player either has an order and paid for it, or neither.
	var total money.Amount
	for _, p := range ps {
		list, _, err := b.m.Orders.PlayerOrders(ctx, p.ID, nil, 10, 0)
		require.NoError(t, err)
		for _, o := range list {
			total += o.FaceValue
		}
	}
	require.Equal(t, budget, total, "the day's orders add up to the budget exactly")
}

// The operator sets the budgets through PATCH /admin/v1/games/{gameId}.
func TestPurchaseBudgetSettings(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Budget")
	r := a.admin("PATCH", "/admin/v1/games/"+g.id, `{}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, map[string]any{"live": float64(100000), "test": nil}, r.Body["purchaseBudgetPerDay"], "the defaults")
	r = a.admin("PATCH", "/admin/v1/games/"+g.id, `{"purchaseBudgetPerDay":{"test":250.5}}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, map[string]any{"live": float64(100000), "test": 250.5}, r.Body["purchaseBudgetPerDay"])
	r = a.admin("PATCH", "/admin/v1/games/"+g.id, `{"purchaseBudgetPerDay":{"live":-1,"test":0}}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, map[string]any{"live": nil, "test": float64(0)}, r.Body["purchaseBudgetPerDay"])
	for _, bad := range []string{`{"purchaseBudgetPerDay":{"live":-2}}`, `{"purchaseBudgetPerDay":{"live":1000000000.01}}`,
		`{"purchaseBudgetPerDay":{"live":1.001}}`, `{"purchaseBudgetPerDay":{"staging":1}}`} {
		requireError(t, a.admin("PATCH", "/admin/v1/games/"+g.id, bad), 400, "VALIDATION_FAILED")
	}
	r = a.admin("PATCH", "/admin/v1/games/"+g.id, `{}`)
	require.Equal(t, map[string]any{"live": nil, "test": float64(0)}, r.Body["purchaseBudgetPerDay"], "a refused change changed nothing")
}

// Purchases made while the game has no budget (spread over the day's shards) count towards one
// set later that day, with the purchases made since.
func TestPurchaseBudgetCountsPurchasesWithoutOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSaga(t, time.Hour)
	face := budgetFace(t, b, "AMAZON")
	ps := budgetPlayers(t, b, 16)
	buy := func(p players.Player) error {
		_, _, err := b.m.Orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: b.products["AMAZON"], CoinID: b.coin.ID, Denomination: &face})
		return err
	}
	setBudget := func(faces int64) {
		budget := face.Times(faces)
		_, err := b.m.Studios.SetPurchaseBudget(ctx, b.caller.GameID, studio.Budgets{Test: &budget}, map[studio.Environment]bool{studio.Test: true})
		require.NoError(t, err)
	}
	var wg sync.WaitGroup
	for _, p := range ps[:12] {
		wg.Go(func() { require.NoError(t, buy(p)) })
	}
	wg.Wait()

	setBudget(14)
	require.NoError(t, buy(ps[12]))
	require.NoError(t, buy(ps[13]))
	require.ErrorIs(t, buy(ps[14]), orders.ErrBudgetExceeded, "14 faces spent of 14")
	setBudget(10)
	require.ErrorIs(t, buy(ps[14]), orders.ErrBudgetExceeded, "14 faces spent of 10")
	setBudget(15)
	require.NoError(t, buy(ps[14]))
	require.ErrorIs(t, buy(ps[15]), orders.ErrBudgetExceeded, "15 faces spent of 15")
}
