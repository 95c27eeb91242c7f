package console_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

func TestRotatedKeyShowsMaskedOnceAndTheOldStops(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	view, err := b.svc.Game(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	live, test := b.ours.game.LiveKey, b.ours.game.TestKey
	require.Equal(t, []string{"rk_live_…" + live[len(live)-4:], "rk_test_…" + test[len(test)-4:]},
		[]string{view.Credentials[0].APIKey, view.Credentials[1].APIKey}, "the keys made with the game show their last characters")

	key, err := b.svc.RotateKey(b.ctx, b.ours.developer, g, studio.Test)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^rk_test_[0-9A-Za-z]{32}$`), key)
	_, err = b.studios.Authenticate(b.ctx, b.ours.game.TestKey, studio.Test)
	require.ErrorIs(t, err, studio.ErrKeyRevoked)
	_, err = b.studios.Authenticate(b.ctx, key, studio.Test)
	require.NoError(t, err)

	view, err = b.svc.Game(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.Equal(t, studio.Test, view.Credentials[1].Environment)
	require.Equal(t, "rk_test_…"+key[len(key)-4:], view.Credentials[1].APIKey)
	require.Equal(t, "rk_live_…"+live[len(live)-4:], view.Credentials[0].APIKey, "the live key did not change")
	entries, err := b.svc.Audit(b.ctx, b.ours.viewer, audit.Filter{Action: "api_key.rotate"})
	require.NoError(t, err)
	require.Len(t, entries, 1, "the studio module records the rotation; the console adds no second entry")
	require.Equal(t, b.ours.developer.Member.ID, *entries[0].Actor.MemberID)
	for _, v := range entries[0].Details {
		require.NotContains(t, v, key[8:], "never a key in the log")
	}

	_, err = b.svc.RotateKey(b.ctx, b.ours.developer, g, "prod")
	require.ErrorIs(t, err, errs.ErrInvalid)
}

func TestPartnerSecretAndWallet(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	secret, err := b.svc.IssuePartnerSecret(b.ctx, b.ours.developer, g, studio.Test)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^rcs_[0-9A-Za-z]{40}$`), secret)
	view, err := b.svc.Game(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.NotNil(t, view.Credentials[1].PartnerSecretIssuedAt)
	require.Nil(t, view.Credentials[0].PartnerSecretIssuedAt)

	b.world.Credit(g, studio.Test, 500_00)
	b.world.Credit(g, studio.Test, 250_00)
	b.world.Credit(b.theirs.game.ID, studio.Test, 1_00)
	w, err := b.svc.PartnerWallet(b.ctx, b.ours.viewer, g, studio.Test, 1, 1)
	require.NoError(t, err)
	require.EqualValues(t, 750_00, w.Balance)
	require.EqualValues(t, 2, w.Total)
	require.Len(t, w.Entries, 1)
	require.EqualValues(t, 250_00, w.Entries[0].Amount)
}

func TestIntegrationSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	gems, err := b.world.ListCoins(b.ctx, g)
	require.NoError(t, err)
	in, err := b.svc.SetIntegration(b.ctx, b.ours.developer, g, console.IntegrationChange{
		StoreURL: ptr("https://store.example.com/"), AllowedOriginsLive: &[]string{"https://Play.Example.com"},
		ServerOnlyCoinMovements: ptr(true), TouchpointCoinID: &gems[0].ID,
		Store: players.SettingsChange{GcommerceEnabled: ptr(true), Theme: []byte(`{"primary":"#112233"}`)}})
	require.NoError(t, err)
	require.Equal(t, "https://store.example.com", in.StoreURL)
	require.Equal(t, []string{"https://play.example.com"}, in.AllowedOrigins.Live)
	require.True(t, in.ServerOnlyCoinMovements)
	require.True(t, in.Store.GcommerceEnabled)
	require.JSONEq(t, `{"primary":"#112233"}`, string(in.Store.Theme))
	require.Equal(t, &gems[0].ID, in.TouchpointCoinID)
	require.Len(t, in.Coins, 1)

	read, err := b.svc.Integration(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.Equal(t, in, read)

	_, err = b.svc.SetIntegration(b.ctx, b.ours.developer, g, console.IntegrationChange{StoreURL: ptr("ftp://x")})
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = b.svc.SetIntegration(b.ctx, b.ours.developer, g, console.IntegrationChange{TouchpointCoinID: ptr(uuid.New())})
	require.ErrorIs(t, err, errs.ErrInvalid, "a coin of no game of ours")
}

func TestLivePlacementsChangeOnlyByPromote(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	before := b.state(t)
	_, _, err := b.svc.PutPlacement(b.ctx, b.ours.owner, g, studio.Live, placement(g, studio.Live))
	require.ErrorIs(t, err, console.ErrLivePlacements)
	require.Equal(t, errs.Invalid, errs.KindOf(err))
	require.ErrorIs(t, b.svc.DeletePlacement(b.ctx, b.ours.owner, g, studio.Live, b.ours.placement.ID), console.ErrLivePlacements)
	_, _, err = b.svc.PutPlacement(b.ctx, b.ours.owner, g, "staging", placement(g, studio.Test))
	require.ErrorIs(t, err, errs.ErrInvalid)
	require.Equal(t, before, b.state(t))

	pl := placement(uuid.New(), studio.Live) // the game and environment are the call's
	pl.ID = uuid.Nil
	pl.Type, pl.ProductID, pl.RewardID = touchpoints.TypeGiftCard, "", ptr(uuid.New())
	put, created, err := b.svc.PutPlacement(b.ctx, b.ours.developer, g, studio.Test, pl)
	require.NoError(t, err)
	require.True(t, created)
	require.NotEqual(t, uuid.Nil, put.ID)
	require.Equal(t, g, put.GameID)
	require.Equal(t, studio.Test, put.Environment)

	require.NoError(t, b.svc.DeletePlacement(b.ctx, b.ours.developer, g, studio.Test, b.ours.placement.ID))
	require.ErrorIs(t, b.svc.DeletePlacement(b.ctx, b.ours.developer, g, studio.Test, b.ours.placement.ID),
		touchpoints.ErrPlacementNotFound)
	test, err := b.svc.Placements(b.ctx, b.ours.viewer, g, studio.Test)
	require.NoError(t, err)
	require.Len(t, test, 1)
	require.Equal(t, put.ID, test[0].ID)

	entries, err := b.svc.Audit(b.ctx, b.ours.viewer, audit.Filter{Action: "placement.delete"})
	require.NoError(t, err)
	require.Len(t, entries, 1, "the delete is recorded once; the refused one is not")
	e := entries[0]
	require.Equal(t, b.ours.placement.ID.String(), e.TargetID)
	require.Equal(t, "test", e.Environment)
	require.Equal(t, audit.Member, e.Actor.Kind, "a context without an actor records the principal")
	require.Equal(t, b.ours.developer.Member.ID, *e.Actor.MemberID)
}

func TestPromoteDiffAndPromote(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	dev := b.ours.developer

	d, err := b.svc.PromoteDiff(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.Len(t, d.Added, 1)
	require.Equal(t, b.ours.placement.ID, d.Added[0].ID)
	require.Empty(t, d.Changed)
	require.Empty(t, d.Removed)

	promoted, err := b.svc.Promote(b.ctx, dev, g, d.Version)
	require.NoError(t, err)
	require.Equal(t, d, promoted)
	d, err = b.svc.PromoteDiff(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.True(t, d.Empty(), "live is test's copy")

	// Change one, add one, delete none: then the diff read before a further edit is stale.
	changed := b.ours.placement
	changed.IsActive = false
	_, _, err = b.svc.PutPlacement(b.ctx, dev, g, studio.Test, changed)
	require.NoError(t, err)
	d, err = b.svc.PromoteDiff(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.Len(t, d.Changed, 1)
	require.Equal(t, []string{"isActive"}, d.Changed[0].Fields)
	require.True(t, d.Changed[0].Live.IsActive)
	require.False(t, d.Changed[0].Test.IsActive)

	require.NoError(t, b.svc.DeletePlacement(b.ctx, dev, g, studio.Test, changed.ID))
	_, err = b.svc.Promote(b.ctx, dev, g, d.Version)
	require.ErrorIs(t, err, console.ErrPromoteChanged)
	live, err := b.svc.Placements(b.ctx, b.ours.viewer, g, studio.Live)
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.True(t, live[0].IsActive, "a refused promote copies nothing")

	d, err = b.svc.PromoteDiff(b.ctx, b.ours.viewer, g)
	require.NoError(t, err)
	require.Len(t, d.Removed, 1)
	_, err = b.svc.Promote(b.ctx, dev, g, d.Version)
	require.NoError(t, err)
	live, err = b.svc.Placements(b.ctx, b.ours.viewer, g, studio.Live)
	require.NoError(t, err)
	require.Empty(t, live)
	theirs, err := b.world.Placements(b.ctx, b.theirs.game.ID, studio.Test)
	require.NoError(t, err)
	require.Len(t, theirs, 1, "their placements are untouched")
}

func TestPlayerLookupAndBlock(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	pl := b.ours.player
	coin, err := b.world.ListCoins(b.ctx, g)
	require.NoError(t, err)
	for i := range 25 {
		b.world.AddTransaction(coins.Transaction{PlayerID: pl.ID, GameID: g, CoinID: coin[0].ID, Amount: int64(i + 1)})
	}
	for _, ref := range []string{pl.ID.String(), *pl.UUID, *pl.Phone, " " + *pl.Phone + " "} {
		v, err := b.svc.Player(b.ctx, b.ours.viewer, g, studio.Test, ref)
		require.NoError(t, err, ref)
		require.Equal(t, pl.ID, v.Player.ID)
		require.Len(t, v.Funds, 1)
		require.EqualValues(t, 325, v.Funds[0].Balance)
		require.Len(t, v.Transactions, console.PlayerPage)
		require.EqualValues(t, 25, v.TransactionsTotal)
		require.EqualValues(t, 25, v.Transactions[0].Amount, "newest first")
		require.Len(t, v.Orders, 1)
		require.Empty(t, v.OrdersNext)
	}
	for _, ref := range []string{"", "+910000000000", uuid.NewString(), "nobody"} {
		_, err := b.svc.Player(b.ctx, b.ours.viewer, g, studio.Test, ref)
		require.ErrorIs(t, err, players.ErrPlayerNotFound, ref)
	}
	_, err = b.svc.Player(b.ctx, b.ours.viewer, g, studio.Live, pl.ID.String())
	require.ErrorIs(t, err, players.ErrPlayerNotFound, "a test player is not a live one")

	page, err := b.svc.PlayerTransactions(b.ctx, b.ours.viewer, g, studio.Test, pl.ID, 10, 20)
	require.NoError(t, err)
	require.Len(t, page.Transactions, 5)
	require.EqualValues(t, 25, page.Total)

	blocked, err := b.svc.BlockPlayer(b.ctx, b.ours.developer, g, studio.Test, pl.ID)
	require.NoError(t, err)
	require.True(t, blocked.IsBlocked)
	stored, _ := b.world.Player(pl.ID)
	require.True(t, stored.IsBlocked)
	require.Equal(t, []uuid.UUID{pl.ID}, b.world.Forgotten(), "the players service forgets its cached player")
	unblocked, err := b.svc.UnblockPlayer(b.ctx, b.ours.developer, g, studio.Test, pl.ID)
	require.NoError(t, err)
	require.False(t, unblocked.IsBlocked)

	entries, err := b.svc.Audit(b.ctx, b.ours.viewer, audit.Filter{})
	require.NoError(t, err)
	entries = entries[:2]
	require.Equal(t, "player.unblock", entries[0].Action, "newest first")
	require.Equal(t, "player.block", entries[1].Action)
	for _, e := range entries {
		require.Equal(t, "player", e.TargetType)
		require.Equal(t, pl.ID.String(), e.TargetID)
		require.Equal(t, g, *e.GameID)
		require.Equal(t, b.ours.studioID, e.StudioID)
	}

	// A block that fails records nothing.
	_, err = b.svc.BlockPlayer(b.ctx, b.ours.developer, g, studio.Live, pl.ID)
	require.ErrorIs(t, err, players.ErrPlayerNotFound)
	after, err := b.svc.Audit(b.ctx, b.ours.viewer, audit.Filter{})
	require.NoError(t, err)
	require.Equal(t, "player.unblock", after[0].Action, "a failed block records nothing")
}

func TestActorFromContextWins(t *testing.T) {
	t.Parallel()
	b := setup(t)
	actor := b.ours.developer.Actor("203.0.113.9", "console-test")
	ctx := audit.WithActor(b.ctx, actor)
	_, err := b.svc.BlockPlayer(ctx, b.ours.developer, b.ours.game.ID, studio.Test, b.ours.player.ID)
	require.NoError(t, err)
	entries, err := b.svc.Audit(b.ctx, b.ours.viewer, audit.Filter{Action: "player.block"})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, actor, entries[0].Actor)
}

func TestOrdersFilterAndPage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	other := b.world.AddPlayer(players.Player{GameID: g, Environment: studio.Test})
	start := time.Now().Add(-time.Hour).UTC().Truncate(time.Microsecond)
	var failed []uuid.UUID
	for i := range 7 {
		o := orders.Order{Channel: orders.Store, GameID: g, Environment: studio.Test, PlayerID: other.ID,
			Status: orders.Success, CreatedAt: start.Add(time.Duration(i) * time.Minute)}
		if i%2 == 0 {
			o.Status = orders.Failed
		}
		o = b.world.AddOrder(o)
		if o.Status == orders.Failed {
			failed = append([]uuid.UUID{o.ID}, failed...)
		}
	}
	b.world.AddOrder(orders.Order{GameID: g, Environment: studio.Live, PlayerID: other.ID, Status: orders.Failed})

	var got []uuid.UUID
	f := console.OrderFilter{Status: orders.Failed, PlayerID: &other.ID, Limit: 3}
	for range 5 {
		page, err := b.svc.Orders(b.ctx, b.ours.viewer, g, studio.Test, f)
		require.NoError(t, err)
		for _, o := range page.Orders {
			got = append(got, o.ID)
		}
		if page.Next == "" {
			break
		}
		f.Cursor = page.Next
	}
	require.Equal(t, failed, got, "every failed order of the player, newest first, each once")

	from, to := start.Add(2*time.Minute), start.Add(5*time.Minute)
	page, err := b.svc.Orders(b.ctx, b.ours.viewer, g, studio.Test, console.OrderFilter{From: &from, To: &to})
	require.NoError(t, err)
	require.Len(t, page.Orders, 3, "minutes 2, 3 and 4: from is inclusive, to exclusive")

	for _, bad := range []console.OrderFilter{{Status: "LOST"}, {Limit: 201}, {Limit: -1}, {Cursor: "x"}, {From: &to, To: &from}} {
		_, err := b.svc.Orders(b.ctx, b.ours.viewer, g, studio.Test, bad)
		require.Equal(t, errs.Invalid, errs.KindOf(err), "%+v", bad)
	}
}

func TestOrderShowsHistoryAndNoCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := b.ours.game.ID
	expiry := time.Now().Add(24 * time.Hour)
	o := b.world.AddOrder(orders.Order{GameID: g, Environment: studio.Test, PlayerID: b.ours.player.ID, Status: orders.Success,
		Codes: []orders.SealedCode{{Code: []byte("sealed"), Pin: []byte("pin"), ProviderVoucherID: "v-1", Value: 100_00, Expiry: &expiry}}},
		orders.Transition{To: orders.Processing}, orders.Transition{From: ptr(orders.Processing), To: orders.Success})
	v, err := b.svc.Order(b.ctx, b.ours.viewer, g, studio.Test, o.ID)
	require.NoError(t, err)
	require.Nil(t, v.Order.Order.Codes, "sealed codes never leave")
	require.Equal(t, []console.CodeSummary{{ProviderVoucherID: "v-1", Value: 100_00, Expiry: &expiry}}, v.Order.Codes)
	require.Len(t, v.History, 2)
	require.Equal(t, orders.Success, v.History[1].To)
}
