package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMoneyWorlds: the deployment's voucher provider (the fake) is the live one and the test
// environment has no provider configured, as in production with REWARDS_TEST_VOUCHER_BASE_URL
// unset. A store purchase and a partner order made with the test key are fulfilled by the
// built-in sandbox and never reach the provider; a live purchase does.
func TestMoneyWorlds(t *testing.T) {
	t.Parallel()
	s := startStack(t, map[string]string{"REWARDS_VOUCHER_BASE_URL": "http://fakes:9090/vouchers", "REWARDS_VOUCHER_WAIT": "2s"})
	s.syncCatalogue(t)
	tn := s.newTenant("Worlds")
	providerOrders := func() []providerOrder {
		res, err := http.Get(s.fakes.BaseURL + "/vouchers/orders")
		require.NoError(t, err)
		defer res.Body.Close()
		var out []providerOrder
		require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
		return out
	}

	// A player of an environment with coins, buying the first gift card of a brand.
	buy := func(host, key, brand string) response {
		t.Helper()
		as := func(token, method, path string, body any) response {
			h := map[string]string{"x-api-key": key, "x-language": "en"}
			if token != "" {
				h["Authorization"] = "Bearer " + token
			}
			return s.call(request{method: method, path: path, host: host, headers: h, body: body})
		}
		require.Equal(t, 201, as("", "POST", "/player/create-with-uuid", map[string]any{"uuid": "buyer-" + brand}).Status)
		token := str(as("", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "buyer-" + brand}).Body["access_token"])
		require.NotEmpty(t, token)
		r := as(token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 10_000_000})
		require.Equal(t, 201, r.Status, string(r.Raw))
		list := as(token, "GET", "/rewards?coinId="+tn.CoinID+"&brand="+brand+"&limit=1", nil)
		require.Equal(t, 200, list.Status, string(list.Raw))
		reward := list.Body["items"].([]any)[0].(map[string]any)
		f := as(token, "GET", "/rewards/fetch/"+str(reward["id"])+"?coinId="+tn.CoinID, nil)
		require.Equal(t, 200, f.Status, string(f.Raw))
		value := f.Body["minValue"]
		if ds, ok := f.Body["denominations"].([]any); ok && len(ds) > 0 {
			value = ds[0].(map[string]any)["value"]
		}
		require.NotNil(t, value, string(f.Raw))
		return as(token, "POST", "/rewards/purchase", map[string]any{"rewardId": reward["id"], "coinId": tn.CoinID, "denomination": value})
	}

	// Test: the store.
	r := buy("", tn.TestKey, "AMAZON")
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, "SUCCESS", r.Body["status"], string(r.Raw))
	code := str(r.Body["codes"].([]any)[0].(map[string]any)["code"])
	require.True(t, strings.HasPrefix(code, "SANDBOX-"), code)

	// Test: the partner API, with the test key alone (the test environment may stay secret-less).
	put := s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/partner", map[string]any{"enabled": true, "settlement": "WALLET"})
	require.Equal(t, 200, put.Status, string(put.Raw))
	liveSecret := str(put.Body["liveClientSecret"])
	require.True(t, strings.HasPrefix(liveSecret, "rcs_"), string(put.Raw))
	credit := s.admin("POST", "/admin/v1/games/"+tn.GameID+"/partner/test/wallet/credits", map[string]any{"amount": 100000, "reference": "fund"})
	require.Equal(t, 201, credit.Status, string(credit.Raw))
	tok := s.call(request{method: "POST", path: "/partner/v1/token", body: map[string]any{"client_id": tn.TestKey}})
	require.Equal(t, 200, tok.Status, string(tok.Raw))
	bearer := "Bearer " + str(tok.Body["data"].(map[string]any)["access_token"])
	order := s.call(request{method: "POST", path: "/partner/v1/gift-cards/orders", headers: map[string]string{"Authorization": bearer},
		body: map[string]any{"clientOrderId": "w-1", "brandCode": "AMAZON", "denomination": 500, "quantity": 1,
			"customer": map[string]any{"ref": "user-1", "email": "asha@example.com", "phone": "+919876543210"}}})
	require.Equal(t, 201, order.Status, string(order.Raw))
	o := order.Body["data"].(map[string]any)
	require.Equal(t, "SUCCESS", o["status"], string(order.Raw))
	require.True(t, strings.HasPrefix(str(o["codes"].([]any)[0].(map[string]any)["code"]), "SANDBOX-"))
	require.Empty(t, providerOrders(), "a test-environment order reached the live voucher provider")

	// Live: the key alone never authenticates a partner; the store's purchase reaches the provider.
	requireError(t, s.call(request{method: "POST", path: "/partner/v1/token", host: "live.localhost", body: map[string]any{"client_id": tn.LiveKey}}), 401, "INVALID_CLIENT")
	r = buy("live.localhost", tn.LiveKey, "AMAZON")
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, "SUCCESS", r.Body["status"], string(r.Raw))
	require.False(t, strings.HasPrefix(str(r.Body["codes"].([]any)[0].(map[string]any)["code"]), "SANDBOX-"))
	placed := providerOrders()
	require.Len(t, placed, 1, "the live purchase is the provider's one order")
	require.Equal(t, str(r.Body["orderId"]), placed[0].ExternalRefID)

	// The live purchase budget: spent, a purchase answers 429 with Retry-After, takes nothing and
	// never reaches the provider.
	patch := s.admin("PATCH", "/admin/v1/games/"+tn.GameID, map[string]any{"purchaseBudgetPerDay": map[string]any{"live": 0}})
	require.Equal(t, 200, patch.Status, string(patch.Raw))
	r = buy("live.localhost", tn.LiveKey, "AJIO")
	requireError(t, r, 429, "PURCHASE_BUDGET_EXCEEDED")
	require.NotEmpty(t, r.Header.Get("Retry-After"), "429 without Retry-After")
	require.Len(t, providerOrders(), 1, "a refused purchase reached the provider")
}
