package consolepage_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/consolepage"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// The pages of a game's integration (webhooks, players, orders, store) over core/console with
// the real studio, members and webhooks services on in-memory storage, and small fakes of the
// players, coins and orders modules that keep what a test puts in them.

// receiver is the webhook transport: every request answers 200, and none leaves the process.
type receiver struct{}

func (receiver) Send(context.Context, webhooks.Request) (int, error) { return http.StatusOK, nil }
func (receiver) CheckURL(string) error                               { return nil }

// people are a few players, their store settings, and the changes the console makes to them.
type people struct {
	mu       sync.Mutex
	players  map[uuid.UUID]players.Player
	settings map[uuid.UUID]players.StoreSettings
	orders   []orders.Order
}

func (p *people) Lookup(_ context.Context, sc players.Scope, ref string) (players.Player, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, pl := range p.players {
		if pl.GameID != sc.GameID || pl.Environment != sc.Environment {
			continue
		}
		if (pl.UUID != nil && *pl.UUID == ref) || pl.ID.String() == ref || (pl.Phone != nil && *pl.Phone == ref) {
			return pl, nil
		}
	}
	return players.Player{}, players.ErrPlayerNotFound
}

func (p *people) Forget(uuid.UUID) {}

func (p *people) StoreSettings(_ context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if s, ok := p.settings[gameID]; ok {
		return s, nil
	}
	return players.DefaultStoreSettings, nil
}

func (p *people) ChangeStoreSettings(_ context.Context, gameID uuid.UUID, ch players.SettingsChange) (players.StoreSettings, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	cur, ok := p.settings[gameID]
	if !ok {
		cur = players.DefaultStoreSettings
	}
	if ch.RewardsEnabled != nil {
		cur.RewardsEnabled = *ch.RewardsEnabled
	}
	if ch.GcommerceEnabled != nil {
		cur.GcommerceEnabled = *ch.GcommerceEnabled
	}
	if ch.DefaultLandingPage != nil {
		cur.DefaultLandingPage = *ch.DefaultLandingPage
	}
	if ch.Theme != nil {
		cur.Theme = ch.Theme
	}
	p.settings[gameID] = cur
	return cur, nil
}

// SetPlayerBlocked, Orders and TouchpointCoin are the console's own storage of these.
func (p *people) SetPlayerBlocked(_ context.Context, sc players.Scope, id uuid.UUID, blocked bool) (players.Player, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl, ok := p.players[id]
	if !ok || pl.GameID != sc.GameID || pl.Environment != sc.Environment {
		return players.Player{}, players.ErrPlayerNotFound
	}
	pl.IsBlocked = blocked
	p.players[id] = pl
	return pl, nil
}

func (p *people) Orders(_ context.Context, q console.OrderQuery) ([]orders.Order, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []orders.Order
	for i := len(p.orders) - 1; i >= 0; i-- {
		o := p.orders[i]
		if o.GameID == q.GameID && o.Environment == q.Environment && (q.Status == "" || o.Status == q.Status) &&
			(q.PlayerID == nil || o.PlayerID == *q.PlayerID) && len(out) < q.Limit {
			out = append(out, o)
		}
	}
	return out, nil
}

func (p *people) TouchpointCoin(context.Context, uuid.UUID) (*uuid.UUID, error) { return nil, nil }

func (p *people) History(_ context.Context, id uuid.UUID) (orders.Order, []orders.Transition, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range p.orders {
		if o.ID == id {
			return o, []orders.Transition{{To: orders.Initiated, At: o.CreatedAt}, {From: ptr(orders.Initiated), To: o.Status, Reason: "delivered", At: o.UpdatedAt}}, nil
		}
	}
	return orders.Order{}, nil, orders.ErrOrderNotFound
}

func ptr[T any](v T) *T { return &v }

// wallet answers a coin with a balance for every player, and no transactions.
type wallet struct{}

func (wallet) ListCoins(context.Context, uuid.UUID) ([]coins.Coin, error) { return nil, nil }
func (wallet) Funds(_ context.Context, gameID, _ uuid.UUID) ([]coins.Fund, error) {
	return []coins.Fund{{Coin: coins.Coin{ID: uuid.New(), GameID: gameID, Name: "Gems"}, Balance: 1250, LifetimeEarned: 2000, LifetimeSpent: 750}}, nil
}
func (wallet) Transactions(context.Context, uuid.UUID, int, int) ([]coins.Transaction, int64, error) {
	return nil, 0, nil
}

// repo is the console's storage: H6a's test fake for credentials, people for the rest.
type repo struct {
	consoleRepo
	*people
}

func (r repo) Orders(ctx context.Context, q console.OrderQuery) ([]orders.Order, error) {
	return r.people.Orders(ctx, q)
}

// world is two studios, each with a game, a webhook configuration of test with a delivery, and
// a player; the console's pages for the first.
type world struct {
	*bundle
	people *people
	hooks  *webhooksfake.Repo
	// other is the second studio's game, player, configuration and delivery.
	other struct {
		game                  studio.NewGame
		player, config, deliv uuid.UUID
	}
	player   players.Player
	config   uuid.UUID
	delivery uuid.UUID
	order    uuid.UUID
}

func setupWorld(t *testing.T) *world {
	t.Helper()
	ctx := context.Background()
	runner := &memstore.Runner{}
	ar := &auditRepo{}
	log := audit.New(runner, memstore.New[audit.Repo](runner, ar))
	ms := members.NewService(runner, memstore.New[members.Repo](runner, membersfake.New()), log,
		members.Config{Mail: &outbox{}, PublicURL: "http://console.test"})
	ss := studio.NewService(memstore.New[studio.Repo](runner, studiofake.New()), log)
	hooks := webhooksfake.New()
	ws, err := webhooks.NewService(memstore.New[webhooks.Repo](runner, hooks), webhooks.Options{SecretKey: bytes.Repeat([]byte{7}, 32), Transport: receiver{}, Audit: log})
	require.NoError(t, err)
	pp := &people{players: map[uuid.UUID]players.Player{}, settings: map[uuid.UUID]players.StoreSettings{}}
	cs := console.New(console.Deps{Studio: ss, Partner: partners{}, Audit: log, Webhooks: ws, Players: pp, Coins: wallet{}, Orders: pp,
		Store: memstore.New[console.Repo](runner, repo{people: pp})})
	srv := httptest.NewServer(consolepage.New(consolepage.Config{Console: cs, Members: ms, PublicURL: "http://console.test",
		Log: slog.New(slog.NewTextHandler(testLog{t}, nil))}))
	t.Cleanup(srv.Close)

	w := &world{people: pp, hooks: hooks}
	// Each studio: a game, a player in test, a configuration of test and one delivery to it.
	seed := func(name string) (studio.Studio, studio.NewGame, players.Player, uuid.UUID, uuid.UUID) {
		st, err := ss.CreateStudio(ctx, name)
		require.NoError(t, err)
		g, err := ss.CreateGame(ctx, studio.Game{StudioID: st.ID, Name: name + " game"})
		require.NoError(t, err)
		pl := players.Player{ID: uuid.New(), GameID: g.ID, Environment: studio.Test, UUID: ptr("user-" + uuid.NewString()[:6]),
			Phone: ptr("+919876543210"), CreatedAt: time.Now()}
		pp.players[pl.ID] = pl
		c, created, err := ws.Configure(ctx, webhooks.Scope{StudioID: st.ID, Environment: studio.Test},
			webhooks.Change{URL: ptr("https://hooks." + strings.ToLower(strings.Fields(name)[0]) + ".example/rewards"), SubscribedEvents: &webhooks.CoinEventTypes})
		require.NoError(t, err)
		require.True(t, created)
		d, err := hooks.AddDelivery(c.ID, webhooksfake.Event{Type: "COINS_CREDITED", GameID: g.ID})
		require.NoError(t, err)
		return st, g, pl, c.ID, d
	}
	st, g, pl, c, d := seed("Acme Games")
	w.bundle = &bundle{srv: srv, members: ms, studios: ss, audit: ar, studio: st, game: g}
	w.player, w.config, w.delivery = pl, c, d
	_, og, opl, oc, od := seed("Rival Studio")
	w.other.game, w.other.player, w.other.config, w.other.deliv = og, opl.ID, oc, od
	now := time.Now().UTC()
	w.order = uuid.New()
	pp.orders = append(pp.orders, orders.Order{ID: w.order, Channel: orders.Store, GameID: g.ID, Environment: studio.Test, PlayerID: pl.ID,
		RewardID: uuid.New(), Status: orders.Success, Denomination: money.Amount(50000), Quantity: 1, FaceValue: money.Amount(50000),
		CoinsSpent: 5000, CreatedAt: now, UpdatedAt: now, DeadlineAt: now.Add(time.Minute), Codes: []orders.SealedCode{{Code: []byte("sealed"), ProviderVoucherID: "pv-1"}}},
		orders.Order{ID: uuid.New(), Channel: orders.Store, GameID: og.ID, Environment: studio.Test, PlayerID: opl.ID, Status: orders.Success, CreatedAt: now, UpdatedAt: now})
	return w
}

// testLog writes the console's log to the test's.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Helper()
	l.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}

// env is the address of the first studio's game in test.
func (w *world) env() string { return "/console/games/" + w.game.ID.String() + "/test" }

// deliveries counts the test deliveries of a studio.
func (w *world) deliveries(t *testing.T, studioID uuid.UUID) int64 {
	t.Helper()
	_, total, err := w.hooks.ListDeliveries(context.Background(), webhooks.Scope{StudioID: studioID, Environment: studio.Test}, webhooks.DeliveryFilter{Limit: 100})
	require.NoError(t, err)
	return total
}

func jsonOf(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m))
	return m
}

// A DEVELOPER adds a configuration and sees its signing secret once; a VIEWER reads the
// configurations, the stats and the deliveries without a control to change them, and its POSTs
// are 403 ROLE_FORBIDDEN in words with nothing changed.
func TestWebhookPages(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	dev := w.signIn(t, w.member(t, members.Developer))
	viewer := w.signIn(t, w.member(t, members.Viewer))

	a := dev.get(w.env() + "/webhooks")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `id="config-`+w.config.String()+`"`)
	require.Contains(t, a.body, `id="webhook-create"`)
	require.Contains(t, a.body, `id="stats-total">1<`)
	require.NotContains(t, w.other.config.String(), a.body)

	a = dev.post(w.env()+"/webhooks", url.Values{"url": {"https://hooks.new.example/r"}, "event": {"COINS_CREDITED", "ORDER_FAILED"}})
	require.Equal(t, http.StatusCreated, a.status, a.body)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	require.Regexp(t, `<code id="signing-secret"[^>]*>whsec_([A-Za-z0-9/=]|&#43;){40,}</code>`, a.body)

	a = dev.post(w.env()+"/webhooks", url.Values{"url": {"https://hooks.new.example/x"}})
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, "Choose at least one event")

	// The VIEWER.
	a = viewer.get(w.env() + "/webhooks")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `id="read-only"`)
	require.NotContains(t, a.body, `id="webhook-create"`)
	a = viewer.get(w.env() + "/webhooks/deliveries")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `id="delivery-`+w.delivery.String()+`"`)
	require.NotContains(t, a.body, `id="resend-`)
	a = viewer.get(w.env() + "/webhooks/" + w.config.String())
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.NotContains(t, a.body, `id="webhook-rotate"`)

	before := w.deliveries(t, w.studio.ID)
	for _, path := range []string{"/webhooks/deliveries/" + w.delivery.String() + "/resend", "/webhooks/" + w.config.String() + "/rotate-secret",
		"/webhooks/" + w.config.String() + "/delete", "/webhooks"} {
		a = viewer.post(w.env()+path, url.Values{"confirm": {"yes"}, "url": {"https://hooks.v.example/r"}, "event": {"COINS_CREDITED"}})
		require.Equal(t, http.StatusForbidden, a.status, path)
		require.Contains(t, a.body, `id="problem"`, path)
		require.Contains(t, a.body, "lets you read this page but not change it", path)
	}
	require.Equal(t, before, w.deliveries(t, w.studio.ID), "the VIEWER's resend queued nothing")
	list, err := w.hooks.ListConfigs(context.Background(), webhooks.Scope{StudioID: w.studio.ID, Environment: studio.Test})
	require.NoError(t, err)
	require.Len(t, list, 2, "the VIEWER deleted and added nothing")
}

// Resend queues the delivery's event again and leads back to the list as it was filtered;
// another studio's delivery, or configuration, is 404 and nothing is queued.
func TestResendAndCrossStudio(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	dev := w.signIn(t, w.member(t, members.Developer))

	a := dev.post(w.env()+"/webhooks/deliveries/"+w.delivery.String()+"/resend", url.Values{"status": {"PENDING"}, "page": {"1"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, w.env()+"/webhooks/deliveries?status=PENDING", a.header.Get("Location"))
	require.EqualValues(t, 2, w.deliveries(t, w.studio.ID))

	otherBefore := w.deliveries(t, w.other.game.StudioID)
	a = dev.post(w.env()+"/webhooks/deliveries/"+w.other.deliv.String()+"/resend", nil)
	require.Equal(t, http.StatusNotFound, a.status, a.body)
	require.Contains(t, a.body, `id="problem"`)
	require.Equal(t, otherBefore, w.deliveries(t, w.other.game.StudioID))
	require.EqualValues(t, 2, w.deliveries(t, w.studio.ID))

	for _, path := range []string{"/webhooks/" + w.other.config.String(), "/webhooks/not-a-uuid"} {
		require.Equal(t, http.StatusNotFound, dev.get(w.env()+path).status, path)
	}
	a = dev.post(w.env()+"/webhooks/"+w.other.config.String()+"/rotate-secret", url.Values{"graceMinutes": {"60"}})
	require.Equal(t, http.StatusNotFound, a.status)
	// The other studio's game is not found either.
	require.Equal(t, http.StatusNotFound, dev.get("/console/games/"+w.other.game.ID.String()+"/test/webhooks").status)
}

// Deliveries filter by status; rotation shows the new secret once with its grace; recover and
// test answer in a flash.
func TestDeliveriesRotateRecover(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	dev := w.signIn(t, w.member(t, members.Developer))
	ctx := context.Background()
	at := time.Now()
	require.NoError(t, w.hooks.RecordAttempt(ctx, w.delivery, webhooks.StatusFailed, 5, ptr(500), ptr("receiver answered 500"), at, nil))

	a := dev.get(w.env() + "/webhooks/deliveries?status=SUCCESS")
	require.Equal(t, http.StatusOK, a.status)
	require.NotContains(t, a.body, `id="delivery-`+w.delivery.String()+`"`)
	require.Contains(t, a.body, `id="no-deliveries"`)
	a = dev.get(w.env() + "/webhooks/deliveries?status=FAILED")
	require.Contains(t, a.body, `id="delivery-`+w.delivery.String()+`"`)
	require.Contains(t, a.body, `id="resend-`+w.delivery.String()+`"`)
	require.Contains(t, a.body, `<option value="FAILED" selected>`)

	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/rotate-secret", url.Values{"graceMinutes": {"5000"}})
	require.Equal(t, http.StatusBadRequest, a.status)
	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/rotate-secret", url.Values{"graceMinutes": {"60"}})
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	require.Contains(t, a.body, `id="secret-grace"`)
	require.Regexp(t, `<code id="signing-secret"[^>]*>whsec_`, a.body)
	a = dev.get(w.env() + "/webhooks/" + w.config.String())
	require.Contains(t, a.body, `id="config-previous-until"`)
	require.NotContains(t, a.body, "whsec_"+strings.Repeat("*", 0)+"A", "the page shows the secret masked")

	since := at.Add(-time.Hour).UTC().Format("2006-01-02T15:04")
	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/recover", url.Values{"since": {since}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Contains(t, flashOf(a), "1 failed delivery")
	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/recover", url.Values{"since": {since}})
	require.Contains(t, flashOf(a), "No failed delivery")

	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/test", url.Values{"eventType": {"COINS_DEBITED"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Contains(t, flashOf(a), "delivered: the receiver answered HTTP 200")

	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/active", url.Values{"active": {"false"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	a = dev.post(w.env()+"/webhooks/deliveries/"+w.delivery.String()+"/resend", nil)
	require.Equal(t, http.StatusConflict, a.status, "an inactive configuration sends nothing")

	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/delete", nil)
	require.Equal(t, http.StatusBadRequest, a.status, "deleting needs the box ticked")
	a = dev.post(w.env()+"/webhooks/"+w.config.String()+"/delete", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, http.StatusNotFound, dev.get(w.env()+"/webhooks/"+w.config.String()).status)
}

// flashOf is the flash a 303 carries to its next page.
func flashOf(a answer) string {
	for _, c := range (&http.Response{Header: a.header}).Cookies() {
		if c.Name == "rewards_console_flash" {
			s, _ := url.QueryUnescape(c.Value)
			return s
		}
	}
	return ""
}

// A player is found by uuid, phone or id; a VIEWER cannot block (403, nothing changed); a
// DEVELOPER blocks once the box is ticked; another studio's player is 404.
func TestPlayerPages(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	dev := w.signIn(t, w.member(t, members.Developer))
	viewer := w.signIn(t, w.member(t, members.Viewer))
	id := w.player.ID.String()

	for _, q := range []string{*w.player.UUID, "+919876543210", id} {
		a := viewer.get(w.env() + "/players?q=" + url.QueryEscape(q))
		require.Equal(t, http.StatusOK, a.status, q)
		require.Contains(t, a.body, `data-player-id="`+id+`"`, q)
		require.Contains(t, a.body, "Gems")
		require.Contains(t, a.body, `data-order-id="`+w.order.String()+`"`)
		require.NotContains(t, a.body, `id="player-block"`, "a VIEWER has no block button")
	}
	require.Equal(t, http.StatusNotFound, viewer.get(w.env()+"/players?q=nobody").status)
	require.Equal(t, http.StatusNotFound, dev.get(w.env()+"/players/"+w.other.player.String()).status)

	a := viewer.post(w.env()+"/players/"+id+"/block", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusForbidden, a.status)
	require.Contains(t, a.body, "lets you read this page but not change it")
	require.False(t, w.people.players[w.player.ID].IsBlocked)

	a = dev.get(w.env() + "/players/" + id)
	require.Contains(t, a.body, `id="player-block"`)
	a = dev.post(w.env()+"/players/"+id+"/block", nil)
	require.Equal(t, http.StatusBadRequest, a.status, "blocking needs the box ticked")
	require.False(t, w.people.players[w.player.ID].IsBlocked)
	a = dev.post(w.env()+"/players/"+id+"/block", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.True(t, w.people.players[w.player.ID].IsBlocked)
	a = dev.get(w.env() + "/players/" + id)
	require.Contains(t, a.body, `data-blocked="true"`)
	require.Contains(t, a.body, `id="player-unblock"`)
	a = dev.post(w.env()+"/players/"+id+"/unblock", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusSeeOther, a.status)
	require.False(t, w.people.players[w.player.ID].IsBlocked)

	a = dev.post(w.env()+"/players/"+w.other.player.String()+"/block", url.Values{"confirm": {"yes"}})
	require.Equal(t, http.StatusNotFound, a.status)
	require.False(t, w.people.players[w.other.player].IsBlocked)
}

// Orders list by status and player; one order shows its history and never a code; another
// studio's order is 404.
func TestOrderPages(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	viewer := w.signIn(t, w.member(t, members.Viewer))

	a := viewer.get(w.env() + "/orders")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `id="order-`+w.order.String()+`"`)
	a = viewer.get(w.env() + "/orders?status=FAILED")
	require.Contains(t, a.body, `id="no-orders"`)
	a = viewer.get(w.env() + "/orders?player=" + url.QueryEscape(*w.player.UUID) + "&status=SUCCESS")
	require.Contains(t, a.body, `id="order-`+w.order.String()+`"`)
	require.Equal(t, http.StatusNotFound, viewer.get(w.env()+"/orders?player=nobody").status)
	require.Equal(t, http.StatusBadRequest, viewer.get(w.env()+"/orders?from=yesterday").status)
	require.Equal(t, http.StatusBadRequest, viewer.get(w.env()+"/orders?status=LOST").status)

	a = viewer.get(w.env() + "/orders/" + w.order.String())
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `data-to="SUCCESS"`)
	require.Contains(t, a.body, "pv-1")
	require.NotContains(t, a.body, "sealed")
	other := w.people.orders[1].ID
	require.Equal(t, http.StatusNotFound, viewer.get(w.env()+"/orders/"+other.String()).status)
	require.Equal(t, http.StatusNotFound, viewer.get("/console/games/"+w.game.ID.String()+"/live/orders/"+w.order.String()).status)
}

// The theme form replaces the keys it shows and keeps the others; the preview's stylesheet
// applies only values the store would, so nothing typed can end a declaration; a VIEWER sees
// the settings disabled and its changes are refused.
func TestStorePages(t *testing.T) {
	t.Parallel()
	w := setupWorld(t)
	dev := w.signIn(t, w.member(t, members.Developer))
	viewer := w.signIn(t, w.member(t, members.Viewer))
	w.people.settings[w.game.ID] = players.StoreSettings{RewardsEnabled: true, DefaultLandingPage: "rewards",
		Theme: []byte(`{"primaryColor":"#111111","logo":"https://cdn.example/old.png","layout":{"cols":3}}`)}

	a := dev.get(w.env() + "/store")
	require.Equal(t, http.StatusOK, a.status, a.body)
	require.Contains(t, a.body, `value="#111111"`)
	require.Contains(t, a.body, `id="theme-other-keys"`)
	require.Contains(t, a.body, `id="store-preview"`)

	a = dev.post(w.env()+"/store/theme", url.Values{"primaryColor": {"#ff0000"}, "textColor": {"rgb(1, 2, 3)"}, "logoUrl": {"https://cdn.example/new.png"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	theme := jsonOf(t, w.people.settings[w.game.ID].Theme)
	require.Equal(t, map[string]any{"primaryColor": "#ff0000", "textColor": "rgb(1, 2, 3)", "logoUrl": "https://cdn.example/new.png",
		"layout": map[string]any{"cols": float64(3)}}, theme)

	a = dev.post(w.env()+"/store/settings", url.Values{"gcommerceEnabled": {"true"}, "defaultLandingPage": {"home"}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	st := w.people.settings[w.game.ID]
	require.False(t, st.RewardsEnabled)
	require.True(t, st.GcommerceEnabled)
	require.Equal(t, "home", st.DefaultLandingPage)
	require.Equal(t, http.StatusBadRequest, dev.post(w.env()+"/store/settings", url.Values{"defaultLandingPage": {"elsewhere"}}).status)

	a = dev.get(w.env() + "/store/preview.css?primaryColor=" + url.QueryEscape("red;}body{display:none") + "&backgroundColor=%23abcdef&fontFamily=" + url.QueryEscape("Inter;}"))
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "text/css; charset=utf-8", a.header.Get("Content-Type"))
	require.Contains(t, a.body, "--sp-bg:#abcdef;")
	require.NotContains(t, a.body, "display:none")
	require.NotContains(t, a.body, "Inter")

	a = dev.get(w.env() + "/store?preview=1&primaryColor=" + url.QueryEscape("#00ff00") + "&backgroundColor=nope")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `id="theme-draft"`)
	require.Contains(t, a.body, "primaryColor=%2300ff00")
	require.Contains(t, a.body, "Background colour is not a CSS colour")

	a = viewer.get(w.env() + "/store")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `id="read-only"`)
	require.Contains(t, a.body, " disabled>")
	require.NotContains(t, a.body, `id="store-theme-save"`)
	before := string(w.people.settings[w.game.ID].Theme)
	a = viewer.post(w.env()+"/store/theme", url.Values{"primaryColor": {"#000000"}})
	require.Equal(t, http.StatusForbidden, a.status)
	require.Equal(t, before, string(w.people.settings[w.game.ID].Theme))
}
