package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/studio"
)

// Every stored web address is an absolute https URL with a host (this deployment, like
// production, allows no plain http), and GET /r/{code} redirects only to such an address.
func TestURLFieldsAreWebAddresses(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	bad := []string{"javascript:alert(document.domain)//https://x", "data:image/png;base64,AAAA", "http://169.254.169.254/latest/meta-data",
		"https://x.example/<script>", "https://user:pw@x.example/", "/relative.png", "https://x.example/" + strings.Repeat("a", 2048)}
	for _, u := range bad {
		requireError(t, p.admin("PUT", "/admin/v1/catalogue/brands/EVIL", map[string]any{"name": "Evil", "categories": []string{}, "websiteUrl": u}), 400, "VALIDATION_FAILED")
		requireError(t, p.admin("PUT", "/admin/v1/catalogue/brands/EVIL", map[string]any{"name": "Evil", "categories": []string{}, "logoUrl": u}), 400, "VALIDATION_FAILED")
		requireError(t, p.admin("PUT", "/admin/v1/catalogue/categories/EVIL", map[string]any{"name": "Evil", "imageUrl": u}), 400, "VALIDATION_FAILED")
		requireError(t, p.admin("PUT", "/admin/v1/catalogue/products/evil", map[string]any{"name": "Evil", "mrp": 10, "listingPrice": 10,
			"discountedListingPrice": 10, "imageUrl": u}), 400, "VALIDATION_FAILED")
	}
	r := p.admin("PUT", "/admin/v1/catalogue/brands/GOOD", map[string]any{"name": "Good", "categories": []string{}, "websiteUrl": "https://good.example.com/shop"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	for _, u := range bad[:2] {
		requireError(t, p.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "GOOD", "name": "x",
			"mrp": 10, "sellingPrice": 5, "coverImage": u}), 400, "VALIDATION_FAILED")
	}

	// A partner's returnUrl: markup, metadata addresses and plain http are refused.
	g := p.game("CASH", 0)
	tok := p.token(g.key, "")
	for _, u := range []string{"http://169.254.169.254/", "https://partner.example.com/\"><script>", "javascript:alert(1)"} {
		body := orderBody("ret-"+u[:5], "AMAZON", 500, 1)
		body["returnUrl"] = u
		requireError(t, p.order(tok, body), 400, "VALIDATION_FAILED")
	}

	// A touchpoint tree's images.
	requireError(t, p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/touchpoints/Home", map[string]any{"nodes": []map[string]any{
		{"displayOrder": 1, "dataType": "ASSET", "images": []string{"data:image/svg+xml,<svg onload=alert(1)>"}}}}), 400, "VALIDATION_FAILED")

	// /r/{code} never redirects to a stored address that is not a web address (one stored before
	// these rules, here written straight into the database).
	ctx := context.Background()
	s, err := p.m.Studios.CreateStudio(ctx, "Links")
	require.NoError(t, err)
	lg, err := p.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Links"})
	require.NoError(t, err)
	created, err := p.m.Players.CreateWithUUID(ctx, studio.Caller{GameID: lg.ID, StudioID: s.ID, Environment: studio.Test}, "clicker")
	require.NoError(t, err)
	var rewardID string
	require.NoError(t, p.pool.QueryRow(ctx, `SELECT id::text FROM catalogue_rewards WHERE brand_code = 'AMAZON' LIMIT 1`).Scan(&rewardID))
	_, err = p.pool.Exec(ctx, `UPDATE catalogue_brands SET website_url = 'javascript:alert(document.domain)//' WHERE code = 'AMAZON'`)
	require.NoError(t, err)
	var code string
	require.NoError(t, p.pool.QueryRow(ctx, `INSERT INTO catalogue_short_links (code, player_id, reward_id) VALUES ('evil1', $1, $2) RETURNING code`,
		created.Player.ID, rewardID).Scan(&code))
	follow := p.call("GET", "/r/"+code, "", nil, nil)
	require.NotEqual(t, 302, follow.Status, "redirected to %s", follow.Header.Get("Location"))
	require.Equal(t, 404, follow.Status, string(follow.Raw))
}
