package app_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
)

// %, _ and \ in search text match themselves: they are no LIKE wildcards.
func TestSearchTextWildcardsMatchThemselves(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := setupSaga(t, time.Hour)
	for _, text := range []string{"%", "_", "%%", "__", "\\"} {
		res, err := b.m.Catalogue.Search(ctx, catalogue.SearchQuery{ListQuery: catalogue.ListQuery{GameID: b.caller.GameID, CoinID: b.coin.ID, Limit: 10}, Text: text}, nil)
		require.NoError(t, err, text)
		require.Empty(t, res.Brands, "q=%q matched brands", text)
		require.Empty(t, res.Categories, "q=%q matched categories", text)
	}
	// An ordinary prefix still matches.
	res, err := b.m.Catalogue.Search(ctx, catalogue.SearchQuery{ListQuery: catalogue.ListQuery{GameID: b.caller.GameID, CoinID: b.coin.ID, Limit: 10}, Text: "amaz"}, nil)
	require.NoError(t, err)
	require.NotEmpty(t, res.Brands)

	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	tok := p.token(g.key, "")
	for _, text := range []string{"%", "\\", "%_"} {
		r := p.as(tok, "GET", "/partner/v1/gift-cards/brands?search="+url.QueryEscape(text), nil)
		require.Equal(t, 200, r.Status, string(r.Raw))
		require.Equal(t, float64(0), data(r)["total"], "search=%q listed brands", text)
	}
	// "_" is an underscore: it finds the codes that have one (GOOGLE_PLAY, SANDBOX_FAIL…), not
	// every brand.
	r := p.as(tok, "GET", "/partner/v1/gift-cards/brands?search=_&limit=100", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	items := data(r)["items"].([]any)
	require.NotEmpty(t, items)
	for _, it := range items {
		require.Contains(t, it.(map[string]any)["brandCode"], "_")
	}
	r = p.as(tok, "GET", "/partner/v1/gift-cards/brands?search=mazo", nil)
	require.Equal(t, float64(1), data(r)["total"])
}
