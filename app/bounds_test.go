package app_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Money input is bounded so that no price can overflow: face values at most 10,000,000 units,
// a wallet credit at most 1,000,000,000 units.
func TestMoneyInputIsBounded(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	r := p.admin("PUT", "/admin/v1/catalogue/brands/HUGE", map[string]any{"name": "Huge", "websiteUrl": "https://huge.example.com", "categories": []string{}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	for name, body := range map[string]map[string]any{
		"coupon mrp":        {"type": "COUPON", "brandCode": "HUGE", "name": "x", "mrp": 184_000_000_000, "sellingPrice": 1},
		"gift card face":    {"type": "GIFT_CARD", "brandCode": "HUGE", "name": "x", "valueType": "FIXED", "denominations": []float64{500, 10_000_000.01}},
		"range maximum":     {"type": "DIGITAL_CREDIT", "brandCode": "HUGE", "name": "x", "valueType": "RANGE", "minValue": 1, "maxValue": 184_000_000_000},
		"goods at the edge": {"type": "PHYSICAL", "brandCode": "HUGE", "name": "x", "mrp": 10_000_000.01, "sellingPrice": 1},
	} {
		requireError(t, p.admin("POST", "/admin/v1/catalogue/rewards", body), 400, "VALIDATION_FAILED")
		_ = name
	}
	ok := p.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "HUGE", "name": "Edge", "mrp": 10_000_000, "sellingPrice": 1})
	require.Equal(t, 201, ok.Status, string(ok.Raw))

	g := p.game("WALLET", 0)
	requireError(t, p.credit(g, 1_000_000_000.01, "too-much"), 400, "VALIDATION_FAILED")
	require.Equal(t, 201, p.credit(g, 1_000_000_000, "max").Status)
}

// Every list caps its depth: page × limit ≤ 10,000; the operator's wallet ledger is paged.
func TestListDepthIsBounded(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Deep")
	bearer := "Bearer " + a.federatedToken(g, "p-deep")
	list := func(query string) response {
		return a.asGame(g, "GET", "/rewards?coinId="+g.coinID+"&"+query, "", "Authorization", bearer, "x-language", "en")
	}
	require.Equal(t, 200, list("page=1000&limit=10").Status)
	requireError(t, list("page=1001&limit=10"), 400, "VALIDATION_FAILED")
	requireError(t, list("page=101&limit=100"), 400, "VALIDATION_FAILED")
	requireError(t, list("page=1000000&limit=1"), 400, "VALIDATION_FAILED")

	p := setupPartner(t, "INR", time.Minute)
	pg := p.game("WALLET", 0)
	tok := p.token(pg.key, "")
	require.Equal(t, 200, p.as(tok, "GET", "/partner/v1/gift-cards/brands?page=500&limit=20", nil).Status)
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/brands?page=501&limit=20", nil), 400, "VALIDATION_FAILED")
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/orders?page=10001", nil), 400, "VALIDATION_FAILED")

	for i := range 3 {
		require.Equal(t, 201, p.credit(pg, float64(10*(i+1)), "c-"+string(rune('a'+i))).Status)
	}
	r := p.admin("GET", "/admin/v1/games/"+pg.id.String()+"/partner/test/wallet?limit=2&page=2", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, float64(60), r.Body["balance"], "the balance is the wallet's, not the page's")
	require.Equal(t, float64(3), r.Body["total"])
	entries := r.Body["entries"].([]any)
	require.Len(t, entries, 1)
	require.Equal(t, float64(30), entries[0].(map[string]any)["amount"])
	requireError(t, p.admin("GET", "/admin/v1/games/"+pg.id.String()+"/partner/test/wallet?limit=100&page=101", nil), 400, "VALIDATION_FAILED")
}
