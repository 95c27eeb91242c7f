package e2e

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestFoundation(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, nil)

	t.Run("operator onboards a studio, game and coin", func(t *testing.T) {
		tn := s.newTenant("Pixel Forge")
		require.Regexp(t, `^rk_live_[0-9A-Za-z]{32}$`, tn.LiveKey)
		require.Regexp(t, `^rk_test_[0-9A-Za-z]{32}$`, tn.TestKey)

		r := s.admin("GET", "/admin/v1/studios/"+tn.StudioID, nil)
		require.Equal(t, 200, r.Status)
		require.Equal(t, "Pixel Forge", r.Body["name"])

		r = s.call(request{method: "GET", path: "/coins", headers: map[string]string{"x-api-key": tn.TestKey}})
		require.Equal(t, 200, r.Status, string(r.Raw))
		require.JSONEq(t, `[{"id":"`+tn.CoinID+`","name":"Gems","url":"https://cdn.example.com/gem.png"}]`, string(r.Raw))
	})

	t.Run("keys work only on the host of their environment", func(t *testing.T) {
		tn := s.newTenant("Envs")
		live := request{method: "GET", path: "/coins", host: "live.localhost", headers: map[string]string{"x-api-key": tn.LiveKey}}
		require.Equal(t, 200, s.call(live).Status)
		test := request{method: "GET", path: "/coins", host: "dev.localhost:8080", headers: map[string]string{"x-api-key": tn.TestKey}}
		require.Equal(t, 200, s.call(test).Status)

		live.host = "localhost"
		r := s.call(live)
		requireError(t, r, 401, "API_KEY_WRONG_ENVIRONMENT")
		require.Contains(t, r.Body["message"], "live environment")
		test.host = "live.localhost"
		r = s.call(test)
		requireError(t, r, 401, "API_KEY_WRONG_ENVIRONMENT")
		require.Contains(t, r.Body["message"], "test environment")
	})

	t.Run("each kind of bad key gets its own 401", func(t *testing.T) {
		tn := s.newTenant("Keys")
		coins := func(key string) response {
			h := map[string]string{}
			if key != "" {
				h["x-api-key"] = key
			}
			return s.call(request{method: "GET", path: "/coins", headers: h})
		}
		messages := map[string]bool{}
		for _, c := range []struct{ key, code string }{
			{"", "API_KEY_MISSING"},
			{"rk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "API_KEY_UNKNOWN"},
			{tn.LiveKey, "API_KEY_WRONG_ENVIRONMENT"},
		} {
			r := coins(c.key)
			requireError(t, r, 401, c.code)
			messages[str(r.Body["message"])] = true
		}
		rot := s.admin("POST", "/admin/v1/games/"+tn.GameID+"/api-keys/test/rotate", nil)
		require.Equal(t, 201, rot.Status, string(rot.Raw))
		r := coins(tn.TestKey)
		requireError(t, r, 401, "API_KEY_REVOKED")
		messages[str(r.Body["message"])] = true
		require.Len(t, messages, 4, "four different messages")
		require.Equal(t, 200, coins(str(rot.Body["apiKey"])).Status)
	})

	t.Run("unknown host gets 421", func(t *testing.T) {
		tn := s.newTenant("Hosts")
		r := s.call(request{method: "GET", path: "/coins", host: "api.evil.example", headers: map[string]string{"x-api-key": tn.TestKey}})
		requireError(t, r, 421, "UNKNOWN_HOST")
		require.Contains(t, r.Body["message"], "live.localhost")
	})

	t.Run("validation errors are 400 with details and change nothing", func(t *testing.T) {
		before := s.admin("GET", "/admin/v1/studios", nil)
		r := s.admin("POST", "/admin/v1/studios", map[string]any{"name": ""})
		requireError(t, r, 400, "VALIDATION_FAILED")
		d := r.Body["details"].([]any)[0].(map[string]any)
		require.Equal(t, "body.name", d["location"])
		require.NotEmpty(t, d["message"])

		r = s.admin("POST", "/admin/v1/studios", map[string]any{"name": "Sneaky", "id": "00000000-0000-4000-8000-000000000000"})
		requireError(t, r, 400, "VALIDATION_FAILED")
		require.Equal(t, "body.id", r.Body["details"].([]any)[0].(map[string]any)["location"])

		// Ids in paths are opaque to clients: a malformed one is as unknown as any other.
		r = s.admin("POST", "/admin/v1/games/not-a-uuid/coins", map[string]any{"name": "x", "imageUrl": "https://x.example/a.png"})
		requireError(t, r, 404, "GAME_NOT_FOUND")
		requireError(t, s.admin("POST", "/admin/v1/games/00000000-0000-4000-8000-000000000000/coins",
			map[string]any{"name": "x", "imageUrl": "https://x.example/a.png"}), 404, "GAME_NOT_FOUND")

		after := s.admin("GET", "/admin/v1/studios", nil)
		require.JSONEq(t, string(before.Raw), string(after.Raw), "bad requests created nothing")
	})

	t.Run("operator API needs the operator token", func(t *testing.T) {
		requireError(t, s.call(request{method: "GET", path: "/admin/v1/studios"}), 401, "OPERATOR_TOKEN_MISSING")
		requireError(t, s.call(request{method: "GET", path: "/admin/v1/studios",
			headers: map[string]string{"Authorization": "Bearer wrong"}}), 401, "OPERATOR_TOKEN_INVALID")
	})

	t.Run("docs and OpenAPI are served", func(t *testing.T) {
		r := s.call(request{method: "GET", path: "/openapi.json"})
		require.Equal(t, 200, r.Status)
		require.Contains(t, string(r.Raw), `"coins-distribute"`)
		require.NotContains(t, string(r.Raw), `"admin-create-studio"`, "the operator API has its own document")
		r = s.call(request{method: "GET", path: "/openapi.yaml"})
		require.Equal(t, 200, r.Status)
		r = s.call(request{method: "GET", path: "/docs/"})
		require.Equal(t, 200, r.Status)
		require.Contains(t, string(r.Raw), "swagger")

		requireError(t, s.call(request{method: "GET", path: "/admin/v1/openapi.json"}), 401, "OPERATOR_TOKEN_MISSING")
		r = s.call(request{method: "GET", path: "/admin/v1/openapi.json", headers: map[string]string{"Authorization": "Bearer " + adminToken}})
		require.Equal(t, 200, r.Status)
		require.Contains(t, string(r.Raw), `"admin-create-studio"`)
		requireError(t, s.call(request{method: "GET", path: "/admin/docs/"}), 401, "OPERATOR_TOKEN_MISSING")
	})
}

func TestReadinessFollowsPostgres(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, nil)
	ready := func() int { return s.call(request{method: "GET", path: "/readyz"}).Status }
	require.Equal(t, 200, ready())

	s.pg.Stop(s.ctx)
	require.Eventually(t, func() bool { return ready() == 503 }, 30*time.Second, 200*time.Millisecond)
	requireError(t, s.call(request{method: "GET", path: "/readyz"}), 503, "UNAVAILABLE")
	require.Equal(t, 200, s.call(request{method: "GET", path: "/healthz"}).Status, "liveness does not depend on the database")

	s.pg.Start(s.ctx)
	require.Eventually(t, func() bool { return ready() == 200 }, 60*time.Second, 200*time.Millisecond)
	// And the service serves real traffic again.
	tn := s.newTenant("Back")
	require.Equal(t, 200, s.call(request{method: "GET", path: "/coins", headers: map[string]string{"x-api-key": tn.TestKey}}).Status)
}
