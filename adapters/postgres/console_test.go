package postgres_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
)

type consoleBundle struct {
	ordersBundle
	repo console.Repo
	tp   *touchpoints.Service
}

func setupConsole(t *testing.T) consoleBundle {
	t.Helper()
	b := consoleBundle{ordersBundle: setupOrders(t)}
	database := postgres.NewDB(b.pool)
	b.repo = postgres.NewConsoleStore(database).Repo()
	b.tp = touchpoints.NewService(postgres.NewTouchpointsStore(database), touchpoints.Config{Currency: "INR",
		Audit: audit.New(database, postgres.NewAuditStore(database))})
	return b
}

func TestConsoleCredentialsShowHintsAndSecretTimes(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	g := b.game.ID
	creds, err := b.repo.Credentials(ctx, g)
	require.NoError(t, err)
	require.Len(t, creds, 2)
	require.Equal(t, studio.Live, creds[0].Environment)
	require.Equal(t, studio.Test, creds[1].Environment)
	for i, c := range creds {
		key := map[studio.Environment]string{studio.Live: b.game.LiveKey, studio.Test: b.game.TestKey}[c.Environment]
		require.Equal(t, studio.KeyHint(key), creds[i].KeyHint, "keys made with the game have their hint")
		require.False(t, c.KeyIssuedAt.IsZero())
		require.Nil(t, c.ServerSecretIssuedAt)
		require.Nil(t, c.PartnerSecretIssuedAt)
	}

	key, err := b.studio.RotateKey(ctx, g, studio.Test)
	require.NoError(t, err)
	_, err = b.studio.IssueServerSecret(ctx, g, studio.Live)
	require.NoError(t, err)
	b.exec(`INSERT INTO partner_secrets (game_id, environment, secret_hash) VALUES ($1, 'test', $2)`, g, []byte("h"))

	creds, err = b.repo.Credentials(ctx, g)
	require.NoError(t, err)
	require.Len(t, creds, 2, "the rotated-away key is not listed")
	require.Equal(t, studio.KeyHint(b.game.LiveKey), creds[0].KeyHint)
	require.Equal(t, key[len(key)-4:], creds[1].KeyHint, "the rotated key's hint")
	require.NotNil(t, creds[0].ServerSecretIssuedAt)
	require.Nil(t, creds[1].ServerSecretIssuedAt)
	require.Nil(t, creds[0].PartnerSecretIssuedAt)
	require.NotNil(t, creds[1].PartnerSecretIssuedAt)

	creds, err = b.repo.Credentials(ctx, uuid.New())
	require.NoError(t, err)
	require.Empty(t, creds)
}

func TestConsoleSetPlayerBlockedInScopeOnly(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	p := b.player(t, "blockable", 0)
	_, err := b.repo.SetPlayerBlocked(ctx, players.Scope{GameID: b.game.ID, Environment: studio.Live}, p.ID, true)
	require.ErrorIs(t, err, players.ErrPlayerNotFound)
	_, err = b.repo.SetPlayerBlocked(ctx, players.Scope{GameID: uuid.New(), Environment: studio.Test}, p.ID, true)
	require.ErrorIs(t, err, players.ErrPlayerNotFound)

	sc := players.Scope{GameID: b.game.ID, Environment: studio.Test}
	got, err := b.repo.SetPlayerBlocked(ctx, sc, p.ID, true)
	require.NoError(t, err)
	require.True(t, got.IsBlocked)
	_, err = b.players.Active(ctx, sc, p.ID)
	require.ErrorIs(t, err, players.ErrPlayerDisabled)
	got, err = b.repo.SetPlayerBlocked(ctx, sc, p.ID, false)
	require.NoError(t, err)
	require.False(t, got.IsBlocked)
	b.players.Forget(p.ID)
	_, err = b.players.Active(ctx, sc, p.ID)
	require.NoError(t, err)

	// A player who deleted its account stays out: the studio's unblock does not bring it back.
	_, err = postgres.NewPlayersStore(postgres.NewDB(b.pool)).Repo().Block(ctx, p.ID)
	require.NoError(t, err)
	_, err = b.repo.SetPlayerBlocked(ctx, sc, p.ID, false)
	require.ErrorIs(t, err, players.ErrPlayerNotFound)
	b.players.Forget(p.ID)
	_, err = b.players.Active(ctx, sc, p.ID)
	require.ErrorIs(t, err, players.ErrPlayerDisabled)
}

func TestConsoleOrdersFiltersAndKeysetPages(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	r := b.coupon(t, 1, 10)
	alice, bob := b.player(t, "alice", 1000), b.player(t, "bob", 1000)
	var all []uuid.UUID // newest first
	for i, p := range []players.Player{alice, bob, alice, alice, bob, alice} {
		v, _, err := b.orders.Buy(ctx, orders.Purchase{Caller: b.caller, Player: p, RewardID: r.ID, CoinID: b.coin.ID})
		require.NoError(t, err, i)
		all = append([]uuid.UUID{v.ID}, all...)
	}
	b.exec(`UPDATE orders SET status = 'TIMEOUT' WHERE id = ANY ($1)`, []uuid.UUID{all[0], all[1]}) // alice's newest, bob's newest
	q := func(q console.OrderQuery) []uuid.UUID {
		t.Helper()
		if q.GameID == uuid.Nil {
			q.GameID, q.Environment = b.game.ID, studio.Test
		}
		if q.Limit == 0 {
			q.Limit = 100
		}
		list, err := b.repo.Orders(ctx, q)
		require.NoError(t, err)
		ids := make([]uuid.UUID, len(list))
		for i, o := range list {
			ids[i] = o.ID
		}
		return ids
	}
	require.Equal(t, all, q(console.OrderQuery{}))
	require.Equal(t, []uuid.UUID{all[0], all[1]}, q(console.OrderQuery{Status: orders.Timeout}))
	require.Equal(t, []uuid.UUID{all[1], all[4]}, q(console.OrderQuery{PlayerID: &bob.ID}))
	require.Equal(t, []uuid.UUID{all[0]}, q(console.OrderQuery{Status: orders.Timeout, PlayerID: &alice.ID}))
	require.Equal(t, []uuid.UUID{all[2], all[3], all[5]}, q(console.OrderQuery{Status: orders.Success, PlayerID: &alice.ID}))
	require.Empty(t, q(console.OrderQuery{GameID: b.game.ID, Environment: studio.Live}), "another environment's")
	require.Empty(t, q(console.OrderQuery{GameID: uuid.New(), Environment: studio.Test}), "another game's")

	var paged []uuid.UUID
	page := console.OrderQuery{Limit: 4}
	for {
		list, err := b.repo.Orders(ctx, console.OrderQuery{GameID: b.game.ID, Environment: studio.Test, Limit: page.Limit, After: page.After})
		require.NoError(t, err)
		for _, o := range list {
			paged = append(paged, o.ID)
		}
		if len(list) < page.Limit {
			break
		}
		last := list[len(list)-1]
		page.After = &console.OrderKey{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	require.Equal(t, all, paged)

	list, err := b.repo.Orders(ctx, console.OrderQuery{GameID: b.game.ID, Environment: studio.Test, Limit: 1})
	require.NoError(t, err)
	require.Len(t, list[0].Codes, 1, "an order comes with its codes (the console hides them)")
	at := list[0].CreatedAt
	require.Equal(t, all[1:], q(console.OrderQuery{To: &at}), "to is exclusive")
	require.Equal(t, all[:1], q(console.OrderQuery{From: &at}), "from is inclusive")
}

func TestConsoleDeletePlacementAndTouchpointCoin(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	g := b.game.ID
	pl, _, err := b.tp.PutPlacement(ctx, touchpoints.Placement{ID: uuid.New(), GameID: g, Environment: studio.Test,
		Screen: "home", Type: touchpoints.TypeCoupon, RewardID: ptrTo(b.coupon(t, 1, 0).ID), IsActive: true,
		Asset: touchpoints.Asset{Source: touchpoints.SourceUpload, ImageURL: "https://cdn.example.com/f.png", Orientation: touchpoints.Portrait, Width: 300, Height: 400}})
	require.NoError(t, err)
	require.ErrorIs(t, b.repo.DeletePlacement(ctx, g, studio.Live, pl.ID), touchpoints.ErrPlacementNotFound)
	require.ErrorIs(t, b.repo.DeletePlacement(ctx, uuid.New(), studio.Test, pl.ID), touchpoints.ErrPlacementNotFound)
	require.NoError(t, b.repo.DeletePlacement(ctx, g, studio.Test, pl.ID))
	require.ErrorIs(t, b.repo.DeletePlacement(ctx, g, studio.Test, pl.ID), touchpoints.ErrPlacementNotFound)
	left, err := b.tp.Placements(ctx, g, studio.Test)
	require.NoError(t, err)
	require.Empty(t, left)

	coin, err := b.repo.TouchpointCoin(ctx, g)
	require.NoError(t, err)
	require.Nil(t, coin)
	require.NoError(t, b.tp.SetCoin(ctx, g, b.coin.ID))
	coin, err = b.repo.TouchpointCoin(ctx, g)
	require.NoError(t, err)
	require.Equal(t, b.coin.ID, *coin)
}

// noPartner is a game never enabled for the partner API.
type noPartner struct{}

func (noPartner) GetSettings(_ context.Context, gameID uuid.UUID) (partner.Settings, error) {
	return partner.Settings{GameID: gameID, Settlement: orders.Wallet}, nil
}
func (noPartner) IssueSecret(context.Context, uuid.UUID, studio.Environment) (string, error) {
	return partner.NewClientSecret(), nil
}
func (noPartner) Ledger(context.Context, uuid.UUID, studio.Environment, int, int) (money.Amount, []partner.Entry, int64, error) {
	return 0, nil, 0, nil
}

// The console on PostgreSQL: a block and its audit entry commit together, a rotated key shows
// masked, and another studio's game is not found.
func TestConsoleOnPostgres(t *testing.T) {
	t.Parallel()
	b := setupConsole(t)
	ctx := context.Background()
	database := postgres.NewDB(b.pool)
	log := audit.New(database, postgres.NewAuditStore(database))
	svc := console.New(console.Deps{Studio: b.studio, Partner: noPartner{}, Touchpoints: b.tp, Players: b.players,
		Coins: b.coins, Orders: b.orders, Audit: log, Store: postgres.NewConsoleStore(database)})
	session := uuid.New()
	dev := members.Principal{StudioID: b.game.StudioID, Role: members.Developer, SessionID: &session,
		Member: members.Member{ID: uuid.New(), StudioID: b.game.StudioID, Email: "dev@example.com", Role: members.Developer}}

	key, err := svc.RotateKey(ctx, dev, b.game.ID, studio.Live)
	require.NoError(t, err)
	view, err := svc.Game(ctx, dev, b.game.ID)
	require.NoError(t, err)
	require.Equal(t, "rk_live_…"+key[len(key)-4:], view.Credentials[0].APIKey)
	require.Equal(t, "rk_test_…"+studio.KeyHint(b.game.TestKey), view.Credentials[1].APIKey)

	p := b.player(t, "support-case", 300)
	v, err := svc.Player(ctx, dev, b.game.ID, studio.Test, "support-case")
	require.NoError(t, err)
	require.Equal(t, p.ID, v.Player.ID)
	require.EqualValues(t, 300, v.Funds[0].Balance)
	require.Len(t, v.Transactions, 1)

	_, err = svc.BlockPlayer(ctx, dev, b.game.ID, studio.Test, p.ID)
	require.NoError(t, err)
	_, err = b.players.Active(ctx, players.Scope{GameID: b.game.ID, Environment: studio.Test}, p.ID)
	require.ErrorIs(t, err, players.ErrPlayerDisabled, "blocked at once on this instance")
	entries, err := svc.Audit(ctx, dev, audit.Filter{Action: "player.block"})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, p.ID.String(), entries[0].TargetID)
	require.Equal(t, dev.Member.ID, *entries[0].Actor.MemberID)

	other, err := b.studio.CreateStudio(ctx, "Elsewhere")
	require.NoError(t, err)
	stranger := dev
	stranger.StudioID = other.ID
	_, err = svc.BlockPlayer(ctx, stranger, b.game.ID, studio.Test, p.ID)
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	_, err = svc.Game(ctx, stranger, b.game.ID)
	require.ErrorIs(t, err, studio.ErrGameNotFound)
}
