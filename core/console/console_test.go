package console_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/console/consolefake"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// bundle is a console over real studio, webhooks and audit services on their fakes, and
// consolefake for the rest, with two studios: ours and theirs.
type bundle struct {
	ctx      context.Context
	svc      *console.Service
	world    *consolefake.World
	studios  *studio.Service
	hooks    *webhooks.Service
	hookRepo *webhooksfake.Repo
	log      *audit.Log
	sent     *atomic.Int64 // webhook requests sent
	ours     fixture
	theirs   fixture
}

// fixture is one studio with a game and one of everything in its test environment.
type fixture struct {
	studioID  uuid.UUID
	game      studio.NewGame
	owner     members.Principal
	developer members.Principal
	viewer    members.Principal
	player    players.Player
	order     orders.Order
	config    webhooks.Config
	delivery  uuid.UUID
	placement touchpoints.Placement
}

type transport struct{ sent *atomic.Int64 }

func (t transport) Send(context.Context, webhooks.Request) (int, error) {
	t.sent.Add(1)
	return 200, nil
}
func (transport) CheckURL(string) error { return nil }

func setup(t *testing.T) *bundle {
	t.Helper()
	runner := &memstore.Runner{}
	studioRepo := studiofake.New()
	log := audit.New(runner, memstore.New[audit.Repo](runner, auditfake.New(studioRepo)))
	studios := studio.NewService(memstore.New[studio.Repo](runner, studioRepo), log)
	world := consolefake.New(studioRepo)
	hookRepo := webhooksfake.New()
	sent := &atomic.Int64{}
	hooks, err := webhooks.NewService(memstore.New[webhooks.Repo](runner, hookRepo),
		webhooks.Options{SecretKey: make([]byte, 32), Transport: transport{sent}, Audit: log})
	require.NoError(t, err)
	svc := console.New(console.Deps{Studio: studios, Partner: world, Touchpoints: world, Webhooks: hooks,
		Players: world, Coins: world, Orders: world, Audit: log, Store: memstore.New[console.Repo](runner, world)})
	b := &bundle{ctx: context.Background(), svc: svc, world: world, studios: studios, hooks: hooks, hookRepo: hookRepo,
		log: log, sent: sent}
	b.ours = b.fixture(t, "Pixel Forge")
	b.theirs = b.fixture(t, "Other Studio")
	return b
}

func (b *bundle) fixture(t *testing.T, name string) fixture {
	t.Helper()
	s, err := b.studios.CreateStudio(b.ctx, name)
	require.NoError(t, err)
	g, err := b.studios.CreateGame(b.ctx, studio.Game{StudioID: s.ID, Name: name + " game"})
	require.NoError(t, err)
	f := fixture{studioID: s.ID, game: g, owner: principal(s.ID, members.Owner), developer: principal(s.ID, members.Developer),
		viewer: principal(s.ID, members.Viewer)}
	ref := "player-" + name
	phone := "+9198765" + strings.Repeat("0", 5)
	f.player = b.world.AddPlayer(players.Player{GameID: g.ID, Environment: studio.Test, UUID: &ref, Phone: &phone})
	coin := b.world.AddCoin(g.ID, "Gems")
	f.order = b.world.AddOrder(orders.Order{Channel: orders.Store, GameID: g.ID, Environment: studio.Test,
		PlayerID: f.player.ID, CoinID: coin.ID, Status: orders.Success},
		orders.Transition{To: orders.Success, At: time.Now()})
	f.config, _, err = b.hooks.Configure(b.ctx, webhooks.Scope{StudioID: s.ID, Environment: studio.Test},
		webhooks.Change{URL: ptr("https://hooks.example.com/" + name), SubscribedEvents: &[]string{"COINS_CREDITED"}})
	require.NoError(t, err)
	f.delivery, err = b.hookRepo.AddDelivery(f.config.ID, webhooksfake.Event{GameID: g.ID, Type: "COINS_CREDITED"})
	require.NoError(t, err)
	f.placement, _, err = b.world.PutPlacement(b.ctx, placement(g.ID, studio.Test))
	require.NoError(t, err)
	return f
}

func placement(gameID uuid.UUID, env studio.Environment) touchpoints.Placement {
	return touchpoints.Placement{ID: uuid.New(), GameID: gameID, Environment: env, Screen: "home", Type: touchpoints.TypeProduct,
		Asset: touchpoints.Asset{Source: touchpoints.SourcePreset, PresetID: "frame-1"}, ProductID: "p-1", IsActive: true}
}

// principal is a signed-in member of studioID with role.
func principal(studioID uuid.UUID, role members.Role) members.Principal {
	m := members.Member{ID: uuid.New(), StudioID: studioID, Email: strings.ToLower(string(role)) + "@example.com",
		Name: string(role), Role: role, Status: members.Active}
	session := uuid.New()
	return members.Principal{StudioID: studioID, Member: m, Role: role, SessionID: &session}
}

// token is an access token of role made by maker.
func token(maker members.Principal, role members.Role) members.Principal {
	id := uuid.New()
	return members.Principal{StudioID: maker.StudioID, Member: maker.Member, Role: role, TokenID: &id, TokenName: "ci"}
}

func ptr[T any](v T) *T { return &v }

// state is everything a call could change, to check that a refused call changed nothing.
type state struct {
	world      any
	games      []studio.Game
	keysWork   [4]bool
	configs    []webhooks.Config
	deliveries []webhooks.Delivery
	entries    []audit.Entry
	sent       int64
}

func (b *bundle) state(t *testing.T) state {
	t.Helper()
	st := state{world: b.world.Fingerprint(), sent: b.sent.Load()}
	for i, f := range []fixture{b.ours, b.theirs} {
		games, err := b.studios.ListGames(b.ctx, f.studioID)
		require.NoError(t, err)
		st.games = append(st.games, games...)
		_, errLive := b.studios.Authenticate(b.ctx, f.game.LiveKey, studio.Live)
		_, errTest := b.studios.Authenticate(b.ctx, f.game.TestKey, studio.Test)
		st.keysWork[2*i], st.keysWork[2*i+1] = errLive == nil, errTest == nil
		for _, env := range []studio.Environment{studio.Live, studio.Test} {
			sc := webhooks.Scope{StudioID: f.studioID, Environment: env}
			configs, err := b.hooks.List(b.ctx, sc)
			require.NoError(t, err)
			st.configs = append(st.configs, configs...)
			ds, _, err := b.hooks.Deliveries(b.ctx, sc, webhooks.DeliveryFilter{Limit: 100})
			require.NoError(t, err)
			st.deliveries = append(st.deliveries, ds...)
		}
		entries, err := b.log.List(b.ctx, audit.Filter{StudioID: f.studioID})
		require.NoError(t, err)
		st.entries = append(st.entries, entries...)
	}
	return st
}

// operation is one method of the console, called as p on game with the other ids of f.
type operation struct {
	name   string
	change bool
	call   func(b *bundle, p members.Principal, game uuid.UUID, f fixture) error
	// notFound is what the call answers with our game and the ids of another studio's f, when
	// it takes ids besides the game's.
	notFound error
}

var operations = []operation{
	{name: "Games", call: func(b *bundle, p members.Principal, _ uuid.UUID, _ fixture) error {
		_, err := b.svc.Games(b.ctx, p)
		return err
	}},
	{name: "Game", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.Game(b.ctx, p, g)
		return err
	}},
	{name: "PartnerWallet", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.PartnerWallet(b.ctx, p, g, studio.Test, 10, 0)
		return err
	}},
	{name: "Integration", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.Integration(b.ctx, p, g)
		return err
	}},
	{name: "Placements", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.Placements(b.ctx, p, g, studio.Test)
		return err
	}},
	{name: "PromoteDiff", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.PromoteDiff(b.ctx, p, g)
		return err
	}},
	{name: "Player", notFound: players.ErrPlayerNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.Player(b.ctx, p, g, studio.Test, f.player.ID.String())
		return err
	}},
	{name: "Player by uuid", notFound: players.ErrPlayerNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.Player(b.ctx, p, g, studio.Test, *f.player.UUID)
		return err
	}},
	{name: "PlayerTransactions", notFound: players.ErrPlayerNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.PlayerTransactions(b.ctx, p, g, studio.Test, f.player.ID, 10, 0)
		return err
	}},
	{name: "Orders", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.Orders(b.ctx, p, g, studio.Test, console.OrderFilter{})
		return err
	}},
	{name: "Order", notFound: orders.ErrOrderNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.Order(b.ctx, p, g, studio.Test, f.order.ID)
		return err
	}},
	{name: "WebhookConfigs", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.WebhookConfigs(b.ctx, p, g, studio.Test)
		return err
	}},
	{name: "WebhookConfig", notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.WebhookConfig(b.ctx, p, g, studio.Test, f.config.ID)
		return err
	}},
	{name: "WebhookDeliveries", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, _, err := b.svc.WebhookDeliveries(b.ctx, p, g, studio.Test, webhooks.DeliveryFilter{Limit: 10})
		return err
	}},
	{name: "WebhookStats", call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.WebhookStats(b.ctx, p, g, studio.Test)
		return err
	}},
	{name: "Audit", call: func(b *bundle, p members.Principal, _ uuid.UUID, _ fixture) error {
		_, err := b.svc.Audit(b.ctx, p, audit.Filter{})
		return err
	}},

	{name: "RotateKey", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.RotateKey(b.ctx, p, g, studio.Test)
		return err
	}},
	{name: "IssueServerSecret", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.IssueServerSecret(b.ctx, p, g, studio.Test)
		return err
	}},
	{name: "IssuePartnerSecret", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.IssuePartnerSecret(b.ctx, p, g, studio.Live)
		return err
	}},
	{name: "SetIntegration", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.SetIntegration(b.ctx, p, g, console.IntegrationChange{StoreURL: ptr("https://store.example.com"),
			AllowedOriginsTest: &[]string{"http://localhost:3000"}, ServerOnlyCoinMovements: ptr(true),
			Store: players.SettingsChange{Theme: []byte(`{"primary":"#112233"}`)}})
		return err
	}},
	{name: "PutPlacement", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		pl := placement(g, studio.Test)
		pl.Type, pl.ProductID, pl.RewardID = touchpoints.TypeCoupon, "", ptr(uuid.New())
		_, _, err := b.svc.PutPlacement(b.ctx, p, g, studio.Test, pl)
		return err
	}},
	{name: "DeletePlacement", change: true, notFound: touchpoints.ErrPlacementNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		return b.svc.DeletePlacement(b.ctx, p, g, studio.Test, f.placement.ID)
	}},
	{name: "Promote", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, err := b.svc.Promote(b.ctx, p, g, "")
		return err
	}},
	{name: "BlockPlayer", change: true, notFound: players.ErrPlayerNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.BlockPlayer(b.ctx, p, g, studio.Test, f.player.ID)
		return err
	}},
	{name: "UnblockPlayer", change: true, notFound: players.ErrPlayerNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.UnblockPlayer(b.ctx, p, g, studio.Test, f.player.ID)
		return err
	}},
	{name: "ConfigureWebhook", change: true, call: func(b *bundle, p members.Principal, g uuid.UUID, _ fixture) error {
		_, _, err := b.svc.ConfigureWebhook(b.ctx, p, g, studio.Test, webhooks.Change{URL: ptr("https://hooks.example.com/new"),
			SubscribedEvents: &[]string{"ORDER_FAILED"}})
		return err
	}},
	{name: "UpdateWebhook", change: true, notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.UpdateWebhook(b.ctx, p, g, studio.Test, f.config.ID, webhooks.Change{IsActive: ptr(false)})
		return err
	}},
	{name: "DeleteWebhook", change: true, notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		return b.svc.DeleteWebhook(b.ctx, p, g, studio.Test, f.config.ID)
	}},
	{name: "ResendDelivery", change: true, notFound: webhooks.ErrDeliveryNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.ResendDelivery(b.ctx, p, g, studio.Test, f.delivery)
		return err
	}},
	{name: "RecoverWebhook", change: true, notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.RecoverWebhook(b.ctx, p, g, studio.Test, f.config.ID, time.Now().Add(-time.Hour))
		return err
	}},
	{name: "RotateWebhookSecret", change: true, notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.RotateWebhookSecret(b.ctx, p, g, studio.Test, f.config.ID, time.Hour)
		return err
	}},
	{name: "SendTestWebhook", change: true, notFound: webhooks.ErrConfigNotFound, call: func(b *bundle, p members.Principal, g uuid.UUID, f fixture) error {
		_, err := b.svc.SendTestWebhook(b.ctx, p, g, studio.Test, f.config.ID, "COINS_CREDITED")
		return err
	}},
}

func TestRoles(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			g := b.ours.game.ID
			require.NoError(t, op.call(b, b.ours.owner, g, b.ours), "an owner may do everything")
			b = setup(t)
			g = b.ours.game.ID
			mustTOTP := b.ours.owner
			mustTOTP.MustSetUpTOTP = true
			if !op.change {
				require.NoError(t, op.call(b, b.ours.viewer, g, b.ours), "a viewer reads")
				require.NoError(t, op.call(b, token(b.ours.owner, members.Viewer), g, b.ours), "a VIEWER token reads")
				require.ErrorIs(t, op.call(b, mustTOTP, g, b.ours), members.ErrTOTPSetupRequired)
				return
			}
			before := b.state(t)
			refused := map[string]members.Principal{
				"viewer":                      b.ours.viewer,
				"VIEWER token of an owner":    token(b.ours.owner, members.Viewer),
				"VIEWER token of a developer": token(b.ours.developer, members.Viewer),
			}
			for who, p := range refused {
				require.ErrorIs(t, op.call(b, p, g, b.ours), members.ErrRoleForbidden, who)
			}
			require.ErrorIs(t, op.call(b, mustTOTP, g, b.ours), members.ErrTOTPSetupRequired)
			require.Equal(t, before, b.state(t), "a refused change changes nothing")

			require.NoError(t, op.call(b, b.ours.developer, g, b.ours), "a developer changes")
			b = setup(t)
			require.NoError(t, op.call(b, token(b.ours.owner, members.Developer), b.ours.game.ID, b.ours), "a DEVELOPER token changes")
		})
	}
}

func TestAnotherStudiosIDsAreNotFound(t *testing.T) {
	t.Parallel()
	for _, op := range operations {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			before := b.state(t)
			if op.name != "Games" && op.name != "Audit" {
				err := op.call(b, b.ours.owner, b.theirs.game.ID, b.theirs)
				require.ErrorIs(t, err, studio.ErrGameNotFound, "their game is not found")
				require.ErrorIs(t, op.call(b, b.ours.owner, uuid.New(), b.theirs), studio.ErrGameNotFound,
					"as a game that does not exist")
			}
			if op.notFound != nil {
				require.ErrorIs(t, op.call(b, b.ours.owner, b.ours.game.ID, b.theirs), op.notFound,
					"their id through our game is not found")
			}
			require.Equal(t, before, b.state(t), "nothing of theirs (or ours) changed")
		})
	}
}

func TestListsHoldOnlyTheStudiosOwn(t *testing.T) {
	t.Parallel()
	b := setup(t)
	// Their studio has an audit entry; ours lists none of it, whatever the filter says.
	_, err := b.svc.BlockPlayer(b.ctx, b.theirs.owner, b.theirs.game.ID, studio.Test, b.theirs.player.ID)
	require.NoError(t, err)
	entries, err := b.svc.Audit(b.ctx, b.ours.owner, audit.Filter{StudioID: b.theirs.studioID})
	require.NoError(t, err)
	for _, e := range entries {
		require.Equal(t, b.ours.studioID, e.StudioID, "%s of another studio", e.Action)
	}
	theirs, err := b.svc.Audit(b.ctx, b.theirs.viewer, audit.Filter{Action: "player.block"})
	require.NoError(t, err)
	require.Len(t, theirs, 1)

	games, err := b.svc.Games(b.ctx, b.ours.viewer)
	require.NoError(t, err)
	require.Len(t, games, 1)
	require.Equal(t, b.ours.game.ID, games[0].ID)

	page, err := b.svc.Orders(b.ctx, b.ours.viewer, b.ours.game.ID, studio.Test, console.OrderFilter{})
	require.NoError(t, err)
	require.Len(t, page.Orders, 1)
	require.Equal(t, b.ours.order.ID, page.Orders[0].ID)

	configs, err := b.svc.WebhookConfigs(b.ctx, b.ours.viewer, b.ours.game.ID, studio.Test)
	require.NoError(t, err)
	require.Len(t, configs, 1)
	require.Equal(t, b.ours.config.ID, configs[0].ID)

	// An order of the other environment is not found through this one.
	_, err = b.svc.Order(b.ctx, b.ours.viewer, b.ours.game.ID, studio.Live, b.ours.order.ID)
	require.ErrorIs(t, err, orders.ErrOrderNotFound)
}
