// Package e2e drives the built service over HTTP as a studio would: the service image built
// from this checkout, PostgreSQL and the fakes all run in containers (see e2e/harness).
//
// Every top-level test starts a stack of its own and runs in parallel with the others, as many
// at a time as go test's -parallel flag allows (4 in `go tool task test`; GOMAXPROCS by default). The images are built
// once, by whichever test asks first; the others wait for that build.
package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/e2e/harness"
)

const adminToken = "e2e-operator-token"

// stack is one running deployment: PostgreSQL, the fakes and the service on a private network.
type stack struct {
	t     *testing.T
	ctx   context.Context
	net   *harness.Network
	pg    *harness.Postgres
	fakes *harness.Container
	svc   *harness.Container
	image string
	env   map[string]string
	// client checks the service's answers against its documents (httpClient).
	client     *http.Client
	clientOnce sync.Once
}

const (
	fakeSMSSID   = "ACe2e"
	fakeSMSToken = "e2e-sms-token"
)

// startStack starts PostgreSQL, the fakes and the service, with env added to the service's
// environment.
func startStack(t *testing.T, env map[string]string) *stack {
	t.Helper()
	if testing.Short() {
		t.Skip("e2e: needs Docker; skipped with -short")
	}
	ctx := context.Background()
	// The images are built once per machine (and kept for the process), on a fresh machine the
	// PostgreSQL image in about a minute and the Go images (a cold go build) in about as long, so
	// they are built side by side. The two Go builds stay one after the other: they share most
	// of their packages, which two concurrent go builds would both compile.
	var image, fakesImage string
	var goErr, pgErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		if image, goErr = harness.GoImage(ctx, "rewards-e2e-service", "./app/cmd/rewards"); goErr == nil {
			fakesImage, goErr = harness.GoImage(ctx, "rewards-e2e-fakes", "./fakes/cmd/fakes")
		}
	}()
	go func() {
		defer wg.Done()
		_, pgErr = harness.PostgresImage(ctx) // StartPostgres below then finds it
	}()
	wg.Wait()
	require.NoError(t, goErr)
	require.NoError(t, pgErr)
	nw := harness.NewNetwork(ctx, t)
	pg := harness.StartPostgres(ctx, t, nw)
	fakes := harness.StartContainer(ctx, t, harness.ContainerRequestOptions{
		Image: fakesImage,
		Env: map[string]string{"FAKE_SMS_ACCOUNT_SID": fakeSMSSID, "FAKE_SMS_AUTH_TOKEN": fakeSMSToken,
			// The payment fakes send their webhooks to the service (every instance answers to "rewards").
			"FAKE_WEBHOOK_TARGET": "http://rewards:8080", "FAKE_WEBHOOK_BACKOFF": "300ms"},
		Network:      nw,
		Aliases:      []string{"fakes"},
		ExposedPort:  "9090/tcp",
		WaitHTTPPath: "/healthz",
	})
	full := map[string]string{
		// Development mode with every default spelled out, so that the webhook tests may use the
		// local-development switches that production refuses.
		"REWARDS_MODE":            "development",
		"REWARDS_DEMO_SEED":       "false",
		"DATABASE_URL":            pg.InternalDSN,
		"REWARDS_ADMIN_TOKEN":     adminToken,
		"REWARDS_SECRET_KEY":      "e2e-secret-key-0123456789abcdefghijklmnop",
		"REWARDS_LOG_FORMAT":      "json",
		"REWARDS_SMS_PROVIDER":    "twilio",
		"REWARDS_SMS_BASE_URL":    "http://fakes:9090",
		"REWARDS_SMS_ACCOUNT_SID": fakeSMSSID,
		"REWARDS_SMS_AUTH_TOKEN":  fakeSMSToken,
		"REWARDS_SMS_FROM":        "+15550001111",
	}
	for k, v := range env {
		full[k] = v
	}
	s := &stack{t: t, ctx: ctx, net: nw, pg: pg, fakes: fakes, image: image, env: full}
	s.svc = s.addInstance()
	return s
}

// addInstance starts another service instance on the same database.
func (s *stack) addInstance() *harness.Container {
	s.t.Helper()
	return harness.StartContainer(s.ctx, s.t, harness.ContainerRequestOptions{
		Image:        s.image,
		Env:          s.env,
		Network:      s.net,
		Aliases:      []string{"rewards"},
		ExposedPort:  "8080/tcp",
		WaitHTTPPath: "/healthz",
	})
}

// response is a decoded HTTP answer.
type response struct {
	Status int
	Header http.Header
	Raw    []byte
	Body   map[string]any
}

// request is one call to the service.
type request struct {
	method, path string
	host         string // "" is the development host 127.0.0.1
	headers      map[string]string
	body         any // string is sent as is, anything else as JSON
}

func (s *stack) call(r request) response {
	s.t.Helper()
	var rd io.Reader
	switch b := r.body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		require.NoError(s.t, err)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(s.ctx, r.method, s.svc.BaseURL+r.path, rd)
	require.NoError(s.t, err)
	if r.host != "" {
		req.Host = r.host
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.headers {
		req.Header.Set(k, v)
	}
	res, err := s.httpClient().Do(req)
	require.NoError(s.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(s.t, err)
	out := response{Status: res.StatusCode, Header: res.Header, Raw: raw}
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		require.NoError(s.t, json.Unmarshal(raw, &out.Body), string(raw))
	}
	return out
}

func (s *stack) admin(method, path string, body any) response {
	s.t.Helper()
	return s.call(request{method: method, path: path, body: body, headers: map[string]string{"Authorization": "Bearer " + adminToken}})
}

// tenant is a studio with one game and one coin, created through the operator API.
type tenant struct {
	StudioID, GameID, CoinID string
	LiveKey, TestKey         string
}

func (s *stack) newTenant(name string) tenant {
	s.t.Helper()
	st := s.admin("POST", "/admin/v1/studios", map[string]any{"name": name})
	require.Equal(s.t, 201, st.Status, string(st.Raw))
	g := s.admin("POST", "/admin/v1/studios/"+str(st.Body["id"])+"/games", map[string]any{"name": name + " Game", "storeUrl": "https://store.example.com"})
	require.Equal(s.t, 201, g.Status, string(g.Raw))
	keys := g.Body["apiKeys"].(map[string]any)
	c := s.admin("POST", "/admin/v1/games/"+str(g.Body["id"])+"/coins", map[string]any{"name": "Gems", "imageUrl": "https://cdn.example.com/gem.png"})
	require.Equal(s.t, 201, c.Status, string(c.Raw))
	return tenant{StudioID: str(st.Body["id"]), GameID: str(g.Body["id"]), CoinID: str(c.Body["id"]),
		LiveKey: str(keys["live"]), TestKey: str(keys["test"])}
}

func str(v any) string { s, _ := v.(string); return s }

// requireError checks the error envelope every API shares.
func requireError(t *testing.T, r response, status int, code string) {
	t.Helper()
	require.Equal(t, status, r.Status, string(r.Raw))
	require.Equal(t, float64(status), r.Body["statusCode"], string(r.Raw))
	require.Equal(t, http.StatusText(status), r.Body["error"], string(r.Raw))
	require.Equal(t, code, r.Body["code"], string(r.Raw))
	require.NotEmpty(t, r.Body["message"], string(r.Raw))
	require.Equal(t, r.Header.Get("x-request-id"), r.Body["requestId"], string(r.Raw))
}
