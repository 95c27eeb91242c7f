package webhooksapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// acceptingTransport takes every URL and answers 200 without sending anything.
type acceptingTransport struct{}

func (acceptingTransport) CheckURL(string) error { return nil }

func (acceptingTransport) Send(context.Context, webhooks.Request) (int, error) {
	return http.StatusOK, nil
}

// server serves the webhook operations over the in-memory fake. The API key is the studio id,
// so that each test works in a studio of its own. It is built once: httpapi.New installs
// Huma's error model, a package-wide setting.
var server = sync.OnceValue(func() *httpapi.Server {
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, webhooksfake.New()),
		webhooks.Options{SecretKey: make([]byte, 32), Transport: acceptingTransport{}, Audit: testAudit()})
	if err != nil {
		panic(err)
	}
	s := httpapi.New(httpapi.Config{
		Hosts: httpapi.Hosts{Dev: []string{"example.com"}},
		Log:   slog.New(slog.DiscardHandler),
		AuthenticateKey: func(_ context.Context, key string, env studio.Environment) (studio.Caller, error) {
			return studio.Caller{GameID: uuid.New(), StudioID: uuid.MustParse(key), Environment: env}, nil
		},
	})
	Register(s, svc)
	return s
})

type answer struct {
	status int
	body   map[string]any
}

func send(t *testing.T, studioID uuid.UUID, method, path string, body any) answer {
	t.Helper()
	var raw string
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		raw = string(b)
	}
	req := httptest.NewRequest(method, "http://example.com"+path, strings.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", studioID.String())
	rec := httptest.NewRecorder()
	server().Handler().ServeHTTP(rec, req)
	var out map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return answer{status: rec.Code, body: out}
}

func configure(t *testing.T, studioID uuid.UUID, url string) answer {
	t.Helper()
	return send(t, studioID, http.MethodPost, "/studio-webhooks/configure", map[string]any{
		"webhookUrl": url, "subscribedEvents": []string{"COINS_CREDITED"}, "environment": "DEVELOPMENT",
	})
}

func TestConfigurationsAreCappedPerStudioAndEnvironment(t *testing.T) {
	t.Parallel()
	studioID := uuid.New()
	url := func(i int) string { return fmt.Sprintf("https://hooks.example.com/%d", i) }
	var first string
	for i := range 10 {
		a := configure(t, studioID, url(i))
		require.Equal(t, http.StatusCreated, a.status, a.body)
		if i == 0 {
			first = a.body["data"].(map[string]any)["id"].(string)
		}
	}

	a := configure(t, studioID, url(10))
	require.Equal(t, http.StatusBadRequest, a.status, a.body)
	require.Equal(t, "WEBHOOK_CONFIG_LIMIT", a.body["code"], a.body)
	list := send(t, studioID, http.MethodGet, "/studio-webhooks/config", nil)
	require.Equal(t, http.StatusOK, list.status)
	require.Len(t, list.body["data"], 10, "the refused configure created nothing")

	require.Equal(t, http.StatusOK, configure(t, studioID, url(3)).status, "an existing URL is still updated at the cap")
	require.Equal(t, http.StatusOK, send(t, studioID, http.MethodDelete, "/studio-webhooks/config/"+first, nil).status)
	require.Equal(t, http.StatusCreated, configure(t, studioID, url(10)).status, "a deletion frees a place")
	require.Equal(t, http.StatusCreated, configure(t, uuid.New(), url(11)).status, "the cap is per studio")
}

func TestSchemaLimitsAreTheCores(t *testing.T) {
	t.Parallel()
	f, ok := reflect.TypeFor[deliveriesInput]().FieldByName("Skip")
	require.True(t, ok)
	require.Equal(t, strconv.Itoa(webhooks.MaxSkip), f.Tag.Get("maximum"))
	paths := server().API.OpenAPI().Paths
	configure := paths["/studio-webhooks/configure"].Post.Description
	require.Contains(t, configure, fmt.Sprintf("at most %d configurations per environment", webhooks.MaxConfigs))
	require.Contains(t, configure, "WEBHOOK_CONFIG_LIMIT")
	require.Contains(t, configure, fmt.Sprintf("At most %d deliveries to one configuration", webhooks.MaxInFlight))
	require.Contains(t, paths["/studio-webhooks/deliveries"].Get.Description, "at most 10,000")
}

func TestDeliveriesSkipIsCapped(t *testing.T) {
	t.Parallel()
	studioID := uuid.New()
	ok := send(t, studioID, http.MethodGet, "/studio-webhooks/deliveries?skip=10000", nil)
	require.Equal(t, http.StatusOK, ok.status, ok.body)
	for _, skip := range []string{"10001", "100000000"} {
		a := send(t, studioID, http.MethodGet, "/studio-webhooks/deliveries?skip="+skip, nil)
		require.Equal(t, http.StatusBadRequest, a.status, "skip=%s: %v", skip, a.body)
		require.Equal(t, "VALIDATION_FAILED", a.body["code"], a.body)
	}
}
