package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/app"
)

func TestMain(m *testing.M) {
	httpapi.VerifyJSON(true) // every answer of these tests written by encoding/json too, and compared
	os.Exit(pgtest.Main(m))
}

const adminToken = "test-admin-token"

type testAPI struct {
	t     *testing.T
	srv   *httptest.Server
	sms   *recordingSender
	clock *clock
	// client checks every answer against the served documents (checkedClient), made at the
	// first request.
	client     *http.Client
	clientOnce sync.Once
}

// recordingSender is an OTPSender that keeps what it sends, as a phone would.
type recordingSender struct {
	mu   sync.Mutex
	sent map[string][]string
}

func (r *recordingSender) SendOTP(_ context.Context, phone, message string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sent[phone] = append(r.sent[phone], message)
	return nil
}

// lastCode returns the code of the newest message sent to phone.
func (r *recordingSender) lastCode(t *testing.T, phone string) string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	msgs := r.sent[phone]
	require.NotEmpty(t, msgs, "no SMS sent to %s", phone)
	return regexp.MustCompile(`\b\d{6}\b`).FindString(msgs[len(msgs)-1])
}

// clock is a settable clock for the players module.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time          { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.now = c.now.Add(d) }

func setup(t *testing.T) *testAPI {
	t.Helper()
	return setupOn(t, pgtest.Pool(t))
}

// setupOn is setup on a given database: two calls on one pool are two instances of the
// service sharing it.
func setupOn(t *testing.T, pool *pgxpool.Pool) *testAPI {
	t.Helper()
	sender := &recordingSender{sent: map[string][]string{}}
	clk := &clock{now: time.Now()}
	database := postgres.NewDB(pool)
	mods, err := app.NewModules(database, jobs.New(pool, jobs.Options{}), app.External{
		SecretKey:      "test-secret-key-test-secret-key-0123456789",
		PlayerTokenTTL: time.Hour,
		OTPSender:      sender,
		Files:          filestore.Disk{Dir: t.TempDir()},
		Now:            clk.Now,
	})
	require.NoError(t, err)
	handler := app.NewServer(mods, app.ServerConfig{
		Log:        slog.New(slog.DiscardHandler),
		Currency:   "INR",
		Hosts:      httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "127.0.0.1"}},
		AdminToken: adminToken,
		Ready:      func(ctx context.Context) error { return pool.Ping(ctx) },
	}).Handler()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return &testAPI{t: t, srv: srv, sms: sender, clock: clk}
}

// runQueue works queue's jobs until the test ends, then stops it, its running jobs cancelled.
func runQueue(t *testing.T, queue *jobs.Queue) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, queue.Start(ctx))
	t.Cleanup(func() {
		cancel()
		stopCtx, done := context.WithTimeout(context.Background(), 10*time.Second)
		defer done()
		_ = queue.Stop(stopCtx)
	})
}

type response struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

func (a *testAPI) do(method, path, host string, headers map[string]string, body string) response {
	a.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	require.NoError(a.t, err)
	if host != "" {
		req.Host = host
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return a.send(req)
}

func (a *testAPI) send(req *http.Request) response {
	a.t.Helper()
	a.clientOnce.Do(func() { a.client = checkedClient(a.t, a.srv) })
	res, err := a.client.Do(req)
	require.NoError(a.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(a.t, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		require.NoError(a.t, json.Unmarshal(raw, &out.Body), string(raw))
	}
	return out
}

func (a *testAPI) admin(method, path, body string) response {
	return a.do(method, path, "", map[string]string{"Authorization": "Bearer " + adminToken}, body)
}

func requireError(t *testing.T, r response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, string(r.Raw))
	require.Equal(t, float64(status), r.Body["statusCode"], string(r.Raw))
	require.Equal(t, http.StatusText(status), r.Body["error"])
	require.Equal(t, code, r.Body["code"], string(r.Raw))
	require.NotEmpty(t, r.Body["message"])
	require.Equal(t, r.Header.Get("x-request-id"), r.Body["requestId"])
}

func TestOpenAPIDocumentIsCommittedAndFresh(t *testing.T) {
	t.Parallel()
	want, err := app.OpenAPIYAML()
	require.NoError(t, err)
	got, err := os.ReadFile("../adapters/httpapi/openapi.yaml")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "adapters/httpapi/openapi.yaml is stale: run `go tool task generate`")
}

// operation is an operation of the served APIs, with its path.
type operation struct {
	*huma.Operation
	path string
}

// servedOperations lists every operation of the public, the operator and the studio API, by id.
func servedOperations() []operation {
	srv := app.NewServer(app.Modules{}, app.ServerConfig{})
	var ops []operation
	for _, api := range []huma.API{srv.API, srv.OperatorAPI, srv.StudioAPI} {
		for path, item := range api.OpenAPI().Paths {
			for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
				if op != nil {
					ops = append(ops, operation{op, path})
				}
			}
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.OperationID, b.OperationID) })
	return ops
}

func TestEveryOperationIsDocumented(t *testing.T) {
	t.Parallel()
	for _, op := range servedOperations() {
		require.NotEmpty(t, op.OperationID, op.path)
		require.NotEmpty(t, op.Summary, op.OperationID)
		require.NotEmpty(t, op.Description, op.OperationID)
		require.NotEmpty(t, op.Tags, op.OperationID)
		if op.RequestBody != nil {
			require.Equal(t, httpapi.BodyReadTimeout, op.BodyReadTimeout, "%s: the body read deadline must not cut its handler short", op.OperationID)
		}
		// The token exchange carries its credentials in the body; provider webhooks their signature;
		// a studio member signs in, accepts an invitation or resets a password without any.
		if public := []string{"/healthz", "/readyz", "/files/", "/r/", "/partner/v1/token", "/webhooks/",
			"/studio/v1/sessions", "/studio/v1/invites/", "/studio/v1/password-resets"}; !slices.ContainsFunc(public, func(p string) bool { return strings.HasPrefix(op.path, p) }) {
			require.NotEmpty(t, op.Security, "%s declares no security", op.OperationID)
		}
	}
}

func TestErrorModel(t *testing.T) {
	t.Parallel()
	a := setup(t)

	r := a.admin("POST", "/admin/v1/studios", `{"name":"x","isAdmin":true}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Equal(t, "body.isAdmin", r.Body["details"].([]any)[0].(map[string]any)["location"])

	r = a.admin("POST", "/admin/v1/studios", `{"name":""}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Equal(t, "body.name", r.Body["details"].([]any)[0].(map[string]any)["location"])

	requireError(t, a.admin("POST", "/admin/v1/studios", `{"name":`), 400, "VALIDATION_FAILED")
	// Ids in paths are opaque to clients: a malformed one is as unknown as any other.
	requireError(t, a.admin("GET", "/admin/v1/studios/not-a-uuid", ""), 404, "STUDIO_NOT_FOUND")
	requireError(t, a.admin("GET", "/admin/v1/studios/00000000-0000-4000-8000-000000000000", ""), 404, "STUDIO_NOT_FOUND")
	requireError(t, a.do("GET", "/no/such/route", "", nil, ""), 404, "ROUTE_NOT_FOUND")
	requireError(t, a.do("DELETE", "/coins", "", nil, ""), 405, "METHOD_NOT_ALLOWED")
	requireError(t, a.admin("POST", "/admin/v1/studios", `{"name":"`+strings.Repeat("a", 2<<20)+`"}`), 413, "BODY_TOO_LARGE")
	requireError(t, a.do("GET", "/admin/v1/studios", "", nil, ""), 401, "OPERATOR_TOKEN_MISSING")
	requireError(t, a.do("GET", "/admin/v1/studios", "", map[string]string{"Authorization": "Bearer nope"}, ""), 401, "OPERATOR_TOKEN_INVALID")

	// Nothing was created by any of the bad requests.
	r = a.admin("GET", "/admin/v1/studios", "")
	require.Equal(t, 200, r.Status)
	require.JSONEq(t, `[]`, string(r.Raw))
}

func TestRequestIDIsEchoedWhenValidAndGeneratedOtherwise(t *testing.T) {
	t.Parallel()
	a := setup(t)
	r := a.do("GET", "/healthz", "", map[string]string{"x-request-id": "abc-123"}, "")
	require.Equal(t, "abc-123", r.Header.Get("x-request-id"))
	r = a.do("GET", "/healthz", "", map[string]string{"x-request-id": "bad id with spaces"}, "")
	require.NotEqual(t, "bad id with spaces", r.Header.Get("x-request-id"))
	require.NotEmpty(t, r.Header.Get("x-request-id"))
}

func TestAPIKeyAuthentication(t *testing.T) {
	t.Parallel()
	a := setup(t)
	st := a.admin("POST", "/admin/v1/studios", `{"name":"Pixel Forge"}`)
	require.Equal(t, 201, st.Status, string(st.Raw))
	g := a.admin("POST", "/admin/v1/studios/"+st.Body["id"].(string)+"/games", `{"name":"Tower Tactics"}`)
	require.Equal(t, 201, g.Status, string(g.Raw))
	keys := g.Body["apiKeys"].(map[string]any)
	live, test := keys["live"].(string), keys["test"].(string)
	gameID := g.Body["id"].(string)

	coin := a.admin("POST", "/admin/v1/games/"+gameID+"/coins", `{"name":"Gems","imageUrl":"https://cdn.example.com/gem.png"}`)
	require.Equal(t, 201, coin.Status, string(coin.Raw))

	r := a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": test}, "")
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.JSONEq(t, `[{"id":"`+coin.Body["id"].(string)+`","name":"Gems","url":"https://cdn.example.com/gem.png"}]`, string(r.Raw))
	require.Equal(t, 200, a.do("GET", "/coins", "live.localhost:443", map[string]string{"x-api-key": live}, "").Status)

	requireError(t, a.do("GET", "/coins", "localhost", nil, ""), 401, "API_KEY_MISSING")
	requireError(t, a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": "rk_test_00000000000000000000000000000000"}, ""), 401, "API_KEY_UNKNOWN")
	r = a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": live}, "")
	requireError(t, r, 401, "API_KEY_WRONG_ENVIRONMENT")
	require.Contains(t, r.Body["message"], "live environment")
	requireError(t, a.do("GET", "/coins", "evil.example", map[string]string{"x-api-key": test}, ""), 421, "UNKNOWN_HOST")

	rot := a.admin("POST", "/admin/v1/games/"+gameID+"/api-keys/test/rotate", "")
	require.Equal(t, 201, rot.Status, string(rot.Raw))
	requireError(t, a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": test}, ""), 401, "API_KEY_REVOKED")
	require.Equal(t, 200, a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": rot.Body["apiKey"].(string)}, "").Status)
	// Rotating the test key leaves the live key alone.
	require.Equal(t, 200, a.do("GET", "/coins", "live.localhost", map[string]string{"x-api-key": live}, "").Status)
}
