package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/studio"
)

// A request authenticated by the operator token or a game's API key carries its audit actor:
// the operator, or the key named by its prefix and last four characters, never the key, with
// the client's address and user agent.
func TestAuthenticatedRequestsCarryTheirAuditActor(t *testing.T) {
	t.Parallel()
	const key = "rk_test_0123456789abcdefghijklmnopqrWXYZ"
	s := New(Config{
		Hosts:      Hosts{Dev: []string{"example.com"}},
		Log:        slog.New(slog.DiscardHandler),
		AdminToken: "operator-token",
		AuthenticateKey: func(_ context.Context, k string, env studio.Environment) (studio.Caller, error) {
			if k != key {
				return studio.Caller{}, studio.ErrKeyUnknown
			}
			return studio.Caller{GameID: uuid.New(), Environment: env}, nil
		},
	})
	type out struct{ Body audit.Actor }
	whoami := func(ctx context.Context, _ *struct{}) (*out, error) { return &out{Body: audit.ActorOf(ctx)}, nil }
	huma.Register(s.API, s.APIKey(huma.Operation{OperationID: "key-actor", Method: http.MethodGet, Path: "/key-actor", Summary: "x"}), whoami)
	huma.Register(s.OperatorAPI, s.Operator(huma.Operation{OperationID: "operator-actor", Method: http.MethodGet, Path: "/admin/v1/actor", Summary: "x"}), whoami)

	actorOf := func(path string, header map[string]string) audit.Actor {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, "http://example.com"+path, nil)
		req.RemoteAddr = "203.0.113.7:51234"
		req.Header.Set("User-Agent", "studio-tool/2")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var a audit.Actor
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &a))
		return a
	}
	require.Equal(t, audit.Actor{Kind: audit.APIKey, Name: "api key rk_test_…WXYZ", IP: "203.0.113.7", UserAgent: "studio-tool/2"},
		actorOf("/key-actor", map[string]string{"x-api-key": key}))
	require.Equal(t, audit.Actor{Kind: audit.Operator, Name: "operator", IP: "203.0.113.7", UserAgent: "studio-tool/2"},
		actorOf("/admin/v1/actor", map[string]string{"Authorization": "Bearer operator-token"}))
	require.Equal(t, "api key rk_live_…", keyActorName("rk_live_short"))
}
