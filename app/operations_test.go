package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	voucherhttp "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/studio"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// opsAPI is the whole service as Serve assembles it: metrics on a private registry, the job
// queue running, tracing on tp when it is not nil, the fake voucher provider over HTTP.
type opsAPI struct {
	*testAPI
	mods app.Modules
}

func setupOps(t *testing.T, tp trace.TracerProvider) opsAPI {
	t.Helper()
	pool := pgtest.Pool(t)
	registry, counters := app.NewMetrics()
	// The sandbox brands answer after a minute: an order of one stays open for the whole test.
	fake := fakevouchers.New(fakevouchers.WithSandboxDelay(time.Minute))
	mux := http.NewServeMux()
	fake.Register(mux)
	provider := httptest.NewServer(mux)
	t.Cleanup(provider.Close)

	queue := jobs.New(pool, jobs.Options{Logger: slog.New(slog.DiscardHandler), Metrics: counters})
	database := postgres.NewDB(pool, postgres.WithMetrics(counters), postgres.WithTracing(tp))
	mods, err := app.NewModules(database, queue, app.External{
		SecretKey:        "test-secret-key-test-secret-key-0123456789",
		PlayerTokenTTL:   time.Hour,
		OTPSender:        &recordingSender{sent: map[string][]string{}},
		Files:            filestore.Disk{Dir: t.TempDir()},
		Currency:         "INR",
		WebhookTransport: webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true}),
		// The fake is both the live provider and the test environment's sandbox, for its
		// behaviour switches.
		Vouchers: voucherhttp.New(provider.URL+"/vouchers", ""), TestVouchers: voucherhttp.New(provider.URL+"/vouchers", ""),
		VoucherWait: 200 * time.Millisecond, VoucherPoll: time.Minute, VoucherDeadline: time.Hour,
	})
	require.NoError(t, err)
	app.RegisterCollectors(registry, pool, database, queue)
	runQueue(t, queue)
	handler := app.NewServer(mods, app.ServerConfig{
		Log:        slog.New(slog.DiscardHandler),
		Currency:   "INR",
		Hosts:      httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "127.0.0.1"}},
		AdminToken: adminToken,
		Ready:      func(ctx context.Context) error { return pool.Ping(ctx) },
		Metrics:    counters, Gatherer: registry, TracerProvider: tp,
	}).Handler()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return opsAPI{testAPI: &testAPI{t: t, srv: srv}, mods: mods}
}

// TestMetricsNeedTheOperatorTokenAndShowEverySeries scrapes /metrics after a coin movement
// that a webhook delivers and an order that stays open, and finds every series the operations
// decisions list, labelled by operation (never by raw path).
func TestMetricsNeedTheOperatorTokenAndShowEverySeries(t *testing.T) {
	t.Parallel()
	a := setupOps(t, nil)

	requireError(t, a.do("GET", "/metrics", "", nil, ""), 401, "OPERATOR_TOKEN_MISSING")
	requireError(t, a.do("GET", "/metrics", "", map[string]string{"Authorization": "Bearer wrong"}, ""), 401, "OPERATOR_TOKEN_INVALID")

	// A coin movement, delivered to a webhook receiver.
	var received atomic.Int32
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { received.Add(1) }))
	t.Cleanup(receiver.Close)
	g := a.newGame("Metrics")
	r := a.asGame(g, "POST", "/studio-webhooks/configure",
		`{"webhookUrl":"`+receiver.URL+`/hook","subscribedEvents":["COINS_CREDITED"],"environment":"DEVELOPMENT"}`)
	require.Equal(t, 201, r.Status, string(r.Raw))
	bearer := "Bearer " + a.federatedToken(g, "p-metrics")
	r = a.asGame(g, "POST", "/coins/"+g.coinID+"/distribute", `{"amount":100000}`, "Authorization", bearer)
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = a.asGame(g, "POST", "/coins/"+g.coinID+"/distribute", `{"amount":5,"reason":"DAILY_BONUS_42"}`, "Authorization", bearer)
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Eventually(t, func() bool { return received.Load() == 2 }, 20*time.Second, 50*time.Millisecond, "webhooks not delivered")

	// An order the provider has not finished: it stays open.
	ctx := context.Background()
	_, err := a.mods.Catalogue.Sync(ctx)
	require.NoError(t, err)
	caller := studio.Caller{GameID: mustUUID(t, g.id), Environment: studio.Test}
	coinID := mustUUID(t, g.coinID)
	list, _, err := a.mods.Catalogue.List(ctx, catalogue.ListQuery{GameID: caller.GameID, CoinID: coinID, Brand: "SANDBOX_SLOW", Limit: 1})
	require.NoError(t, err)
	require.Len(t, list, 1)
	_, err = a.mods.Coins.SetCoinsPerUnit(ctx, coinID, 1)
	require.NoError(t, err)
	p, err := a.mods.Players.Authenticate(ctx, caller, strings.TrimPrefix(bearer, "Bearer "), "")
	require.NoError(t, err)
	detail, err := a.mods.Catalogue.Fetch(ctx, catalogue.ListQuery{GameID: caller.GameID, CoinID: coinID}, list[0].Reward.ID, p.ID)
	require.NoError(t, err)
	face := detail.Reward.MinValue
	if len(detail.Faces) > 0 {
		face = detail.Faces[0].Value
	}
	v, _, err := a.mods.Orders.Buy(ctx, orders.Purchase{Caller: caller, Player: p, RewardID: list[0].Reward.ID, CoinID: coinID, Denomination: &face})
	require.NoError(t, err)
	require.NotEqual(t, orders.Success, v.Status)

	scrape := a.do("GET", "/metrics", "", map[string]string{"Authorization": "Bearer " + adminToken}, "")
	require.Equal(t, 200, scrape.Status, string(scrape.Raw))
	require.True(t, strings.HasPrefix(scrape.Header.Get("Content-Type"), "text/plain; version=0.0.4"), scrape.Header.Get("Content-Type"))
	text := string(scrape.Raw)
	for _, series := range []string{
		`rewards_http_requests_total{method="POST",operation="coins-distribute",status="201"} 2`,
		`rewards_http_request_duration_seconds_count{method="POST",operation="coins-distribute",status="201"} 2`,
		`rewards_http_requests_total{method="GET",operation="get-metrics",status="401"} 2`,
		`rewards_coin_movements_total{direction="credit",reason="GAME_CREDIT"} 1`,
		`rewards_coin_movements_total{direction="credit",reason="CUSTOM"} 1`,
		`rewards_coins_moved_total{direction="credit",reason="GAME_CREDIT"} 100000`,
		`rewards_coin_movements_total{direction="debit",reason="PURCHASE_DEBIT"} 1`,
		`rewards_webhook_deliveries_total{outcome="delivered"} 2`,
		`rewards_order_transitions_total{status="INITIATED"} 1`,
		`rewards_orders_open{status=`,
		"rewards_orders_awaiting_operator 0\n",
		`rewards_jobs{kind=`,
		`rewards_webhook_outbox{figure="pending"} `,
		`rewards_webhook_outbox{figure="lag_seconds"} `,
		`rewards_db_pool_acquired_conns `,
		`rewards_db_pool_idle_conns `,
		`rewards_db_pool_total_conns `,
		`rewards_db_pool_max_conns `,
		`rewards_db_pool_empty_acquire_wait_seconds_total `,
		`go_goroutines `,
	} {
		require.Contains(t, text, series, "scrape lacks %s", series)
	}
	// Paths carry ids; the operation label never does.
	require.NotRegexp(t, regexp.MustCompile(`operation="[^"]*[0-9a-f]{8}-[0-9a-f]{4}`), text)
	require.NotContains(t, text, `rewards_scrape_query_errors_total{collector="orders_open"} 1`)
	require.NotContains(t, text, `rewards_scrape_query_errors_total{collector="orders_awaiting_operator"} 1`)
	require.NotContains(t, text, `rewards_scrape_query_errors_total{collector="webhook_outbox"} 1`)
}

// TestRequestsOfUnknownRoutesShareOneLabel: a client inventing paths adds no series.
func TestRequestsOfUnknownRoutesShareOneLabel(t *testing.T) {
	t.Parallel()
	a := setupOps(t, nil)
	for _, p := range []string{"/nope/1", "/nope/2", "/files/../../etc/passwd"} {
		a.do("GET", p, "", nil, "")
	}
	text := string(a.do("GET", "/metrics", "", map[string]string{"Authorization": "Bearer " + adminToken}, "").Raw)
	require.Contains(t, text, `rewards_http_requests_total{method="GET",operation="unmatched",status="404"}`)
	require.NotContains(t, text, "nope")
}

// TestTraceOfARequestHasItsTransactionAsChild: with a tracer provider, a request is a server
// span named after its route, and the database transaction it runs is a child span of it.
func TestTraceOfARequestHasItsTransactionAsChild(t *testing.T) {
	t.Parallel()
	recorder := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(recorder))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	a := setupOps(t, tp)
	g := a.newGame("Traced")
	bearer := "Bearer " + a.federatedToken(g, "p-traced")
	r := a.asGame(g, "POST", "/coins/"+g.coinID+"/distribute", `{"amount":7}`, "Authorization", bearer,
		"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	require.Equal(t, 201, r.Status, string(r.Raw))

	var request sdktrace.ReadOnlySpan
	for _, s := range recorder.Ended() {
		if s.Name() == "POST /coins/{coinId}/distribute" {
			request = s
		}
	}
	require.NotNil(t, request, "no span for the distribute request")
	require.Equal(t, trace.SpanKindServer, request.SpanKind())
	// The caller's trace is continued.
	require.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", request.SpanContext().TraceID().String())
	var children int
	for _, s := range recorder.Ended() {
		if s.Name() == "db.transaction" && s.Parent().SpanID() == request.SpanContext().SpanID() {
			children++
		}
	}
	require.Positive(t, children, "no db.transaction span under the request")
}

// TestTracingIsOffWithoutTheOTLPVariables: without OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nothing is set up, and with one a provider is.
func TestTracingIsOffWithoutTheOTLPVariables(t *testing.T) {
	t.Parallel()
	log := slog.New(slog.DiscardHandler)

	off, err := app.SetupTracing(context.Background(), env(map[string]string{"OTEL_SERVICE_NAME": "x"}), log)
	require.NoError(t, err)
	require.Nil(t, off.Provider)
	require.NoError(t, off.Shutdown(context.Background()))

	disabled, err := app.SetupTracing(context.Background(), env(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}), log)
	require.NoError(t, err)
	require.Nil(t, disabled.Provider)

	// With the variable set, a provider exists; setupOps with a nil provider is what Serve
	// builds without it (no otelhttp handler, no db.transaction spans).
	on, err := app.SetupTracing(context.Background(), env(map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}), log)
	require.NoError(t, err)
	require.NotNil(t, on.Provider)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = on.Shutdown(ctx) // nothing was traced: nothing to flush to the unreachable endpoint
}

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	require.NoError(t, err)
	return id
}

// TestRetentionSettings: OTP records are kept 72 hours and finished deliveries 30 days unless
// set; an OTP retention shorter than a day beyond the 24-hour lock is refused, so a purge can
// never loosen a limit.
func TestRetentionSettings(t *testing.T) {
	t.Parallel()
	c, err := app.LoadConfig(env(nil))
	require.NoError(t, err)
	require.Equal(t, 72*time.Hour, c.OTPRetention)
	require.Equal(t, 30*24*time.Hour, c.DeliveryRetention)

	c, err = app.LoadConfig(env(map[string]string{"REWARDS_OTP_RETENTION": "48h", "REWARDS_DELIVERY_RETENTION": "24h"}))
	require.NoError(t, err)
	require.Equal(t, 48*time.Hour, c.OTPRetention)
	_, err = app.LoadConfig(env(map[string]string{"REWARDS_OTP_RETENTION": "47h"}))
	require.ErrorContains(t, err, "REWARDS_OTP_RETENTION must be a duration from 48h0m0s")
	_, err = app.LoadConfig(env(map[string]string{"REWARDS_DELIVERY_RETENTION": "1h"}))
	require.ErrorContains(t, err, "REWARDS_DELIVERY_RETENTION")
}
