package app_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/webhooks"
)

// hooksAPI is the service with its job queue running, webhook attempts retried within
// milliseconds, and a clock the test moves (the webhooks module's).
type hooksAPI struct {
	*testAPI
	mods app.Modules
}

func setupHooks(t *testing.T) hooksAPI {
	t.Helper()
	pool := pgtest.Pool(t)
	clk := &clock{now: time.Now()}
	queue := jobs.New(pool, jobs.Options{Logger: slog.New(slog.DiscardHandler)})
	mods, err := app.NewModules(postgres.NewDB(pool), queue, app.External{
		SecretKey: "test-secret-key-test-secret-key-0123456789",
		// Longer than the clock is moved: the players module shares it.
		PlayerTokenTTL:     30 * 24 * time.Hour,
		OTPSender:          &recordingSender{sent: map[string][]string{}},
		Files:              filestore.Disk{Dir: t.TempDir()},
		Currency:           "INR",
		Now:                clk.Now,
		WebhookTransport:   webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true}),
		WebhookRetryDelays: []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Millisecond},
	})
	require.NoError(t, err)
	runQueue(t, queue)
	handler := app.NewServer(mods, app.ServerConfig{
		Log:        slog.New(slog.DiscardHandler),
		Currency:   "INR",
		Hosts:      httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "127.0.0.1"}},
		AdminToken: adminToken,
		Ready:      func(ctx context.Context) error { return pool.Ping(ctx) },
	}).Handler()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return hooksAPI{testAPI: &testAPI{t: t, srv: srv, clock: clk}, mods: mods}
}

// hit is one request a receiver got.
type hit struct {
	eventID, signature string
	body               []byte
	answered           int
	header             http.Header
}

// receiver is a studio's webhook endpoint: it answers what answer says, or verifies the
// signature with the secrets it holds (401 when none matches) when it holds any.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	hits    []hit
	status  int // answered when the signature is not checked (or verifies)
	secrets []string
}

func newReceiver(t *testing.T, status int) *receiver {
	rc := &receiver{status: status}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		status := rc.status
		if len(rc.secrets) > 0 && status < 300 {
			status = http.StatusUnauthorized
			for _, s := range rc.secrets {
				if err := webhook.ValidatePayloadIgnoringTolerance(body, r.Header.Get("X-Service-Signature"), s); err == nil {
					status = rc.status
				}
			}
		}
		rc.hits = append(rc.hits, hit{eventID: r.Header.Get("X-Service-Event-Id"), signature: r.Header.Get("X-Service-Signature"), body: body, answered: status, header: r.Header.Clone()})
		rc.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) set(status int, secrets ...string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.status, rc.secrets = status, secrets
}

func (rc *receiver) got() []hit {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hit(nil), rc.hits...)
}

// acked are the event ids the receiver acknowledged (2xx), in order.
func (rc *receiver) acked() []string {
	var out []string
	for _, h := range rc.got() {
		if h.answered < 300 {
			out = append(out, h.eventID)
		}
	}
	return out
}

// hookedGame is a game with a player and a webhook configuration to a receiver.
type hookedGame struct {
	game
	bearer, configID, secret string
}

func (a hooksAPI) hookedGame(name, url string) hookedGame {
	a.t.Helper()
	g := a.newGame(name)
	r := a.asGame(g, "POST", "/studio-webhooks/configure", `{"webhookUrl":"`+url+`","subscribedEvents":["COINS_CREDITED"],"environment":"DEVELOPMENT"}`)
	require.Equal(a.t, 201, r.Status, string(r.Raw))
	data := r.Body["data"].(map[string]any)
	return hookedGame{game: g, bearer: "Bearer " + a.federatedToken(g, "p-"+strings.ToLower(name)), configID: data["id"].(string), secret: data["signingSecret"].(string)}
}

func (a hooksAPI) distribute(g hookedGame, n int) {
	a.t.Helper()
	for range n {
		r := a.asGame(g.game, "POST", "/coins/"+g.coinID+"/distribute", `{"amount":5}`, "Authorization", g.bearer)
		require.Equal(a.t, 201, r.Status, string(r.Raw))
	}
}

// deliveries lists g's deliveries with query (newest first).
func (a hooksAPI) deliveries(g hookedGame, query string) []map[string]any {
	a.t.Helper()
	r := a.asGame(g.game, "GET", "/studio-webhooks/deliveries?limit=100&"+query, "")
	require.Equal(a.t, 200, r.Status, string(r.Raw))
	var out []map[string]any
	for _, d := range r.Body["data"].(map[string]any)["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// awaitDeliveries waits until g has n deliveries with status.
func (a hooksAPI) awaitDeliveries(g hookedGame, status string, n int) []map[string]any {
	a.t.Helper()
	var list []map[string]any
	require.Eventually(a.t, func() bool {
		list = a.deliveries(g, "status="+status)
		return len(list) == n
	}, 60*time.Second, 50*time.Millisecond, "waiting for %d %s deliveries", n, status)
	return list
}

func (a hooksAPI) recoverSince(g hookedGame, since time.Time) response {
	a.t.Helper()
	return a.asGame(g.game, "POST", "/studio-webhooks/config/"+g.configID+"/recover", `{"since":"`+since.UTC().Format(time.RFC3339Nano)+`"}`)
}

func requeued(t *testing.T, r response) int {
	t.Helper()
	require.Equal(t, 202, r.Status, string(r.Raw))
	return int(r.Body["data"].(map[string]any)["requeued"].(float64))
}

// TestWebhookRecoverSendsEachDeadEventOnceWithItsOwnID: three events dead-lettered while the receiver
// is down go out again once it is up, each once with its original event id, however many
// recovers run at once; a recover after that sends nothing.
func TestWebhookRecoverSendsEachDeadEventOnceWithItsOwnID(t *testing.T) {
	t.Parallel()
	a := setupHooks(t)
	rc := newReceiver(t, http.StatusServiceUnavailable)
	g := a.hookedGame("Recover", rc.srv.URL+"/hook")
	since := a.clock.Now().Add(-time.Second)
	a.distribute(g, 3)
	dead := a.awaitDeliveries(g, "FAILED", 3)
	deadEvents := map[string]bool{}
	for _, d := range dead {
		deadEvents[d["eventId"].(string)] = true
	}
	require.Len(t, deadEvents, 3)
	require.Len(t, rc.got(), 15, "5 attempts each")
	require.Empty(t, rc.acked())

	rc.set(http.StatusOK)
	// Eight recovers at once take each dead delivery once between them.
	var wg sync.WaitGroup
	var total atomic.Int64
	for range 8 {
		wg.Go(func() {
			r := a.recoverSince(g, since)
			if r.Status != 202 {
				t.Errorf("recover: %d %s", r.Status, r.Raw)
				return
			}
			total.Add(int64(r.Body["data"].(map[string]any)["requeued"].(float64)))
		})
	}
	wg.Wait()
	require.EqualValues(t, 3, total.Load(), "each dead delivery requeued once")
	delivered := a.awaitDeliveries(g, "SUCCESS", 3)
	for _, d := range delivered {
		require.True(t, deadEvents[d["eventId"].(string)], "a recovered delivery carries its event's id")
	}
	require.Eventually(t, func() bool { return len(rc.acked()) == 3 }, 10*time.Second, 20*time.Millisecond)
	acked := map[string]bool{}
	for _, id := range rc.acked() {
		acked[id] = true
	}
	require.Equal(t, deadEvents, acked, "each dead event arrives once, with its original id")
	for _, h := range rc.got() {
		var body webhooks.Payload
		require.NoError(t, json.Unmarshal(h.body, &body))
		require.Equal(t, h.eventID, body.EventID)
		err := webhook.ValidatePayloadIgnoringTolerance(h.body, h.signature, g.secret)
		require.NoError(t, err)
	}

	// Nothing newly failed: a second recover sends nothing.
	require.Zero(t, requeued(t, a.recoverSince(g, since)))
	time.Sleep(500 * time.Millisecond)
	require.Len(t, rc.acked(), 3)
	require.Len(t, a.deliveries(g, ""), 6, "three dead, three recovered")

	// since in the future, or not a time; another studio's configuration.
	requireError(t, a.recoverSince(g, a.clock.Now().Add(time.Hour)), 400, "VALIDATION_FAILED")
	requireError(t, a.asGame(g.game, "POST", "/studio-webhooks/config/"+g.configID+"/recover", `{"since":"yesterday"}`), 400, "VALIDATION_FAILED")
	other := a.hookedGame("Other Recover", rc.srv.URL+"/other")
	requireError(t, a.recoverSince(hookedGame{game: other.game, configID: g.configID}, since), 404, "WEBHOOK_CONFIG_NOT_FOUND")
	requireError(t, a.recoverSince(hookedGame{game: g.game, configID: "not-an-id"}, since), 404, "WEBHOOK_CONFIG_NOT_FOUND")
}

// TestWebhookResendSendsTheSameEventAgain: a resend is a new delivery of the same event; another
// studio's delivery, or an id that is none, is not found.
func TestWebhookResendSendsTheSameEventAgain(t *testing.T) {
	t.Parallel()
	a := setupHooks(t)
	rc := newReceiver(t, http.StatusOK)
	g := a.hookedGame("Resend", rc.srv.URL+"/hook")
	a.distribute(g, 1)
	first := a.awaitDeliveries(g, "SUCCESS", 1)[0]

	r := a.asGame(g.game, "POST", "/studio-webhooks/deliveries/"+first["id"].(string)+"/resend", "")
	require.Equal(t, 202, r.Status, string(r.Raw))
	data := r.Body["data"].(map[string]any)
	require.Equal(t, "PENDING", data["status"])
	require.NotEqual(t, first["id"], data["deliveryId"], "the answer names the new delivery")
	both := a.awaitDeliveries(g, "SUCCESS", 2)
	require.Equal(t, data["deliveryId"], both[0]["id"])
	require.Equal(t, first["eventId"], both[0]["eventId"])
	require.Eventually(t, func() bool { return len(rc.acked()) == 2 }, 10*time.Second, 20*time.Millisecond)
	hits := rc.got()
	require.Equal(t, hits[0].eventID, hits[1].eventID)
	require.Equal(t, hits[0].body, hits[1].body, "the same body")

	other := a.hookedGame("Other Resend", rc.srv.URL+"/other")
	requireError(t, a.asGame(other.game, "POST", "/studio-webhooks/deliveries/"+first["id"].(string)+"/resend", ""), 404, "DELIVERY_NOT_FOUND")
	requireError(t, a.asGame(g.game, "POST", "/studio-webhooks/deliveries/not-an-id/resend", ""), 404, "DELIVERY_NOT_FOUND")
	requireError(t, a.asGame(g.game, "POST", "/studio-webhooks/deliveries/"+uuid.NewString()+"/resend", ""), 404, "DELIVERY_NOT_FOUND")
	require.Len(t, a.deliveries(g, ""), 2)
}

// TestWebhookSecretRotatedSignsBesideTheOldOneDuringTheGrace: a receiver holding only the old secret
// verifies deliveries during the grace and refuses them after it; one holding the new secret
// verifies both.
func TestWebhookSecretRotatedSignsBesideTheOldOneDuringTheGrace(t *testing.T) {
	t.Parallel()
	a := setupHooks(t)
	rc := newReceiver(t, http.StatusOK)
	g := a.hookedGame("Rotate", rc.srv.URL+"/hook")
	rc.set(http.StatusOK, g.secret)
	rotate := func(body string) response {
		return a.asGame(g.game, "POST", "/studio-webhooks/config/"+g.configID+"/rotate-secret", body)
	}
	requireError(t, rotate(`{"graceMinutes":4321}`), 400, "VALIDATION_FAILED")
	requireError(t, rotate(`{"graceMinutes":-1}`), 400, "VALIDATION_FAILED")
	other := a.newGame("Other Rotate")
	requireError(t, a.asGame(other, "POST", "/studio-webhooks/config/"+g.configID+"/rotate-secret", `{}`), 404, "WEBHOOK_CONFIG_NOT_FOUND")

	r := rotate(`{"graceMinutes":60}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	data := r.Body["data"].(map[string]any)
	newSecret := data["signingSecret"].(string)
	require.True(t, strings.HasPrefix(newSecret, "whsec_"))
	require.NotEqual(t, g.secret, newSecret)
	expires, err := time.Parse(time.RFC3339Nano, data["previousSecretExpiresAt"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, a.clock.Now().Add(time.Hour), expires, time.Second)
	cfg := a.asGame(g.game, "GET", "/studio-webhooks/config/"+g.configID, "")
	require.Equal(t, "whsec_****"+newSecret[len(newSecret)-4:], cfg.Body["data"].(map[string]any)["signingSecret"], "shown once, masked afterwards")

	// During the grace: both signatures, and the old secret alone verifies.
	a.distribute(g, 1)
	a.awaitDeliveries(g, "SUCCESS", 1)
	h := rc.got()[0]
	require.Equal(t, 2, strings.Count(h.signature, "v1="), h.signature)
	err = webhook.ValidatePayloadIgnoringTolerance(h.body, h.signature, newSecret)
	require.NoError(t, err)

	// After it: the old secret no longer verifies; the new one does.
	a.clock.Advance(61 * time.Minute)
	a.distribute(g, 1)
	a.awaitDeliveries(g, "FAILED", 1)
	h = rc.got()[1]
	require.Equal(t, http.StatusUnauthorized, h.answered, "the old secret verifies no more")
	require.Equal(t, 1, strings.Count(h.signature, "v1="), h.signature)
	err = webhook.ValidatePayloadIgnoringTolerance(h.body, h.signature, newSecret)
	require.NoError(t, err)

	// grace 0: the replaced secret stops signing at once.
	rc.set(http.StatusOK, newSecret)
	r = rotate(`{"graceMinutes":0}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	before := len(rc.got())
	a.distribute(g, 1)
	require.Eventually(t, func() bool { return len(rc.got()) > before }, 10*time.Second, 20*time.Millisecond)
	h = rc.got()[before]
	require.Equal(t, 1, strings.Count(h.signature, "v1="), h.signature)
	require.Equal(t, http.StatusUnauthorized, h.answered)
}

// TestWebhookReceiverThatNeverAnswersIsDisabledAfterTheRulesWindow: after 5 days of the clock with no
// success, 19 failed deliveries leave the configuration on and the 20th switches it off with a
// reason; then nothing is queued for it, until the studio switches it on again.
func TestWebhookReceiverThatNeverAnswersIsDisabledAfterTheRulesWindow(t *testing.T) {
	t.Parallel()
	a := setupHooks(t)
	var hits atomic.Int32
	gone := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusBadGateway)
	}))
	t.Cleanup(gone.Close)
	g := a.hookedGame("Gone", gone.URL+"/hook")
	config := func() map[string]any {
		r := a.asGame(g.game, "GET", "/studio-webhooks/config/"+g.configID, "")
		require.Equal(t, 200, r.Status, string(r.Raw))
		return r.Body["data"].(map[string]any)
	}
	require.Nil(t, config()["disabledReason"])

	// Within its first 5 days a configuration is never switched off, however much fails.
	a.distribute(g, webhooks.DisableMinFailed)
	a.awaitDeliveries(g, "FAILED", webhooks.DisableMinFailed)
	_, err := a.mods.Webhooks.DisableFailing(context.Background())
	require.NoError(t, err)
	require.Equal(t, true, config()["isActive"])

	// Five days on, those failures are out of the window: 19 more leave it on, the 20th does not.
	a.clock.Advance(webhooks.DisableAfter + time.Minute)
	a.distribute(g, webhooks.DisableMinFailed-1)
	a.awaitDeliveries(g, "FAILED", 2*webhooks.DisableMinFailed-1)
	_, err = a.mods.Webhooks.DisableFailing(context.Background())
	require.NoError(t, err)
	require.Equal(t, true, config()["isActive"])
	a.distribute(g, 1)
	require.Eventually(t, func() bool { return config()["isActive"] == false }, 30*time.Second, 50*time.Millisecond,
		"the 20th final failure switches it off")
	require.Equal(t, webhooks.DisabledReasonFailing, config()["disabledReason"])

	// Switched off: movements queue nothing for it, and recover and resend are refused.
	sent, listed := hits.Load(), len(a.deliveries(g, ""))
	a.distribute(g, 3)
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, sent, hits.Load(), "nothing sent while disabled")
	require.Len(t, a.deliveries(g, ""), listed, "nothing queued while disabled")
	requireError(t, a.recoverSince(g, a.clock.Now().Add(-time.Hour)), 409, "WEBHOOK_CONFIG_INACTIVE")
	some := a.deliveries(g, "")[0]["id"].(string)
	requireError(t, a.asGame(g.game, "POST", "/studio-webhooks/deliveries/"+some+"/resend", ""), 409, "WEBHOOK_CONFIG_INACTIVE")

	// Switched on again: the reason is cleared and deliveries flow.
	r := a.asGame(g.game, "PUT", "/studio-webhooks/config/"+g.configID, `{"isActive":true}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Nil(t, r.Body["data"].(map[string]any)["disabledReason"])
	a.distribute(g, 1)
	require.Eventually(t, func() bool { return hits.Load() > sent }, 10*time.Second, 20*time.Millisecond)
	// Its failures before it was switched on do not count against it.
	_, err = a.mods.Webhooks.DisableFailing(context.Background())
	require.NoError(t, err)
	require.Equal(t, true, config()["isActive"])
}
