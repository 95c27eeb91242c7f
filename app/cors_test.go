package app_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// Browser games call the API from the origins their game allows, per environment: a preflight
// from an allowed origin is answered with what the API accepts, a request with the game's key
// from it may be read, and every other origin, and the operator, metrics and provider webhook
// routes, get no CORS headers at all.
func TestCORSFollowsEachGamesAllowedOrigins(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Browser Game")
	const allowed, other = "https://play.example.com", "https://evil.example.net"

	// Origins are exact: scheme, host, optional port; at most 20; checked on write.
	for _, bad := range []string{`["https://play.example.com/path"]`, `["javascript:alert(1)"]`, `["play.example.com"]`,
		`["https://user@play.example.com"]`, `["ftp://play.example.com"]`} {
		r := a.admin("PATCH", "/admin/v1/games/"+g.id, `{"allowedOrigins":{"test":`+bad+`}}`)
		require.Equal(t, 400, r.Status, "%s: %s", bad, r.Raw)
	}
	many := `["https://a0.example.com"`
	for i := 1; i <= 20; i++ {
		many += `,"https://a` + string(rune('a'+i)) + `.example.com"`
	}
	many += "]"
	require.Equal(t, 400, a.admin("PATCH", "/admin/v1/games/"+g.id, `{"allowedOrigins":{"test":`+many+`}}`).Status)

	r := a.admin("PATCH", "/admin/v1/games/"+g.id, `{"allowedOrigins":{"test":["HTTPS://Play.Example.com"]}}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, map[string]any{"live": []any{}, "test": []any{allowed}}, r.Body["allowedOrigins"], "stored as browsers send it")

	preflight := func(path, host, origin string) *http.Response {
		req, err := http.NewRequest(http.MethodOptions, a.srv.URL+path, nil)
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "x-api-key, authorization, content-type")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		return resp
	}
	p := preflight("/coins/"+g.coinID+"/distribute", "localhost", allowed)
	require.Equal(t, 204, p.StatusCode)
	require.Equal(t, allowed, p.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, p.Header.Get("Access-Control-Allow-Methods"), "POST")
	require.Contains(t, p.Header.Get("Access-Control-Allow-Headers"), "x-api-key")
	require.Contains(t, p.Header.Get("Access-Control-Allow-Headers"), "x-idempotency-key")
	require.NotContains(t, p.Header.Get("Access-Control-Allow-Headers"), "x-api-secret", "server secrets never come from a browser")
	require.Contains(t, p.Header.Values("Vary"), "Origin")

	// Another origin, or the allowed one on the live hosts where the game allows none.
	require.Empty(t, preflight("/coins", "localhost", other).Header.Get("Access-Control-Allow-Origin"))
	require.Empty(t, preflight("/coins", "live.localhost", allowed).Header.Get("Access-Control-Allow-Origin"))

	// A request with the game's key from the allowed origin may be read; from another may not.
	get := func(origin string, headers map[string]string) response {
		h := map[string]string{"x-api-key": g.testKey, "Origin": origin}
		for k, v := range headers {
			h[k] = v
		}
		return a.do("GET", "/coins", "localhost", h, "")
	}
	ok := get(allowed, nil)
	require.Equal(t, 200, ok.Status)
	require.Equal(t, allowed, ok.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, ok.Header.Get("Access-Control-Expose-Headers"), "x-request-id")
	require.Contains(t, ok.Header.Get("Access-Control-Expose-Headers"), "Retry-After")
	require.Empty(t, get(other, nil).Header.Get("Access-Control-Allow-Origin"))
	// Another game's key from this origin: not this game's origin, no CORS.
	g2 := a.newGame("Other Game")
	r2 := a.do("GET", "/coins", "localhost", map[string]string{"x-api-key": g2.testKey, "Origin": allowed}, "")
	require.Equal(t, 200, r2.Status)
	require.Empty(t, r2.Header.Get("Access-Control-Allow-Origin"))

	// The operator API, the metrics and the provider webhooks never answer CORS.
	for _, path := range []string{"/admin/v1/studios", "/metrics", "/webhooks/stripe"} {
		p := preflight(path, "localhost", allowed)
		require.Empty(t, p.Header.Get("Access-Control-Allow-Origin"), path)
		r := a.do("GET", path, "localhost", map[string]string{"Origin": allowed, "x-api-key": g.testKey,
			"Authorization": "Bearer " + adminToken}, "")
		require.Empty(t, r.Header.Get("Access-Control-Allow-Origin"), path)
	}

	// Clearing the origins takes effect at once on this instance.
	require.Equal(t, 200, a.admin("PATCH", "/admin/v1/games/"+g.id, `{"allowedOrigins":{"test":[]}}`).Status)
	require.Empty(t, preflight("/coins", "localhost", allowed).Header.Get("Access-Control-Allow-Origin"))
	require.Empty(t, get(allowed, nil).Header.Get("Access-Control-Allow-Origin"))
}
