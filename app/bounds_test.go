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
