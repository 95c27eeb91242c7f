package app_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A quote is single use, and a change of the partner's discount expires it.
func TestPartnerQuotesAreSingleUse(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 2)
	require.Equal(t, 201, p.credit(g, 100000, "fund").Status)
	tok := p.token(g.key, "")
	preview := func() string {
		pv := p.as(tok, "POST", "/partner/v1/gift-cards/orders/preview", map[string]any{"brandCode": "AMAZON", "denomination": 500, "quantity": 1})
		require.Equal(t, 200, pv.Status, string(pv.Raw))
		return data(pv)["quoteId"].(string)
	}
	withQuote := func(id, quote string) map[string]any {
		b := orderBody(id, "AMAZON", 500, 1)
		b["quoteId"] = quote
		return b
	}

	q := preview()
	require.Equal(t, 201, p.order(tok, withQuote("q-1", q)).Status)
	replay := p.order(tok, withQuote("q-1", q))
	require.Equal(t, 200, replay.Status, "a retry of the same order replays: %s", replay.Raw)
	requireError(t, p.order(tok, withQuote("q-2", q)), 400, "QUOTE_USED")

	// Ten orders racing with one quote: one wins.
	q = preview()
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes := map[int]int{}
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := p.order(tok, withQuote(fmt.Sprintf("race-%d", i), q))
			mu.Lock()
			codes[r.Status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	require.Equal(t, map[int]int{201: 1, 400: 9}, codes)

	// The operator changes the discount: quotes issued before are expired.
	q = preview()
	r := p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/partner", map[string]any{"enabled": true, "settlement": "WALLET", "discountPct": 3})
	require.Equal(t, 200, r.Status, string(r.Raw))
	requireError(t, p.order(tok, withQuote("q-3", q)), 400, "QUOTE_EXPIRED")
	require.Equal(t, 201, p.order(tok, withQuote("q-4", preview())).Status)
	requireLedgerAddsUp(t, p, g)
}
