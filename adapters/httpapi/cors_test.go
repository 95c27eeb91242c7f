package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/studio"
)

// A browser's request with an API key has its key checked once: the CORS headers and the
// route's authentication share the lookup. A key that fails is checked again by the route, which
// answers its error; a request without an Origin is checked by the route alone.
func TestCORSAndAuthShareOneKeyLookup(t *testing.T) {
	t.Parallel()
	var lookups atomic.Int32
	game := uuid.New()
	s := New(Config{
		Hosts: Hosts{Dev: []string{"example.com"}},
		Log:   slog.New(slog.DiscardHandler),
		AuthenticateKey: func(_ context.Context, key string, env studio.Environment) (studio.Caller, error) {
			lookups.Add(1)
			if key != "good" {
				return studio.Caller{}, studio.ErrKeyUnknown
			}
			return studio.Caller{GameID: game, Environment: env, AllowedOrigins: []string{"https://game.example"}}, nil
		},
	})
	type out struct {
		Body struct {
			Game string `json:"game"`
		}
	}
	huma.Register(s.API, s.APIKey(huma.Operation{OperationID: "whoami", Method: http.MethodGet, Path: "/whoami", Summary: "x"}),
		func(ctx context.Context, _ *struct{}) (*out, error) {
			o := &out{}
			o.Body.Game = CallerFrom(ctx).GameID.String()
			return o, nil
		})
	for _, c := range []struct {
		name, origin, key string
		status            int
		lookups           int32
		allowed           bool
	}{
		{"browser, good key", "https://game.example", "good", http.StatusOK, 1, true},
		{"browser, other origin", "https://other.example", "good", http.StatusOK, 1, false},
		{"browser, bad key", "https://game.example", "bad", http.StatusUnauthorized, 2, false},
		{"server, good key", "", "good", http.StatusOK, 1, false},
	} {
		lookups.Store(0)
		req := httptest.NewRequest(http.MethodGet, "http://example.com/whoami", nil)
		req.Header.Set("x-api-key", c.key)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, req)
		require.Equal(t, c.status, w.Code, c.name+": "+w.Body.String())
		require.Equal(t, c.lookups, lookups.Load(), c.name)
		want := ""
		if c.allowed {
			want = c.origin
		}
		require.Equal(t, want, w.Header().Get("Access-Control-Allow-Origin"), c.name)
		if c.status == http.StatusOK {
			require.Contains(t, w.Body.String(), game.String(), c.name)
		}
	}
}
