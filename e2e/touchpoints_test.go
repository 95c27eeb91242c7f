package e2e

import (
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// envelope checks the success envelope and returns its data.
func envelope(t *testing.T, r response) map[string]any {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, float64(200), r.Body["statusCode"], string(r.Raw))
	require.NotEmpty(t, r.Body["requestId"])
	require.NotEmpty(t, r.Body["timestamp"])
	data, _ := r.Body["data"].(map[string]any)
	require.NotNil(t, data, string(r.Raw))
	return data
}

func obj(v any) map[string]any { m, _ := v.(map[string]any); return m }

func list(v any) []map[string]any {
	raw, _ := v.([]any)
	out := make([]map[string]any, len(raw))
	for i, x := range raw {
		out[i] = obj(x)
	}
	return out
}

// The operator configures placements of each type and a tree; the game serves its home screen
// with and without a player token, before and after go-live, and reads the tree by name, by id
// and in the list, with and without coinId.
func TestTouchpoints(t *testing.T) {
	t.Parallel()
	s := startStack(t, nil)
	tn := s.newTenant("Touch Studio")
	require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "tapper"}).Status)
	token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "tapper"}).Body["access_token"])
	require.NotEmpty(t, token)
	r := s.asPlayer(tn, token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 250})
	require.Equal(t, 201, r.Status, string(r.Raw))
	serve := func(query, token string) response {
		t.Helper()
		return s.asPlayer(tn, token, "GET", "/v2/touchpoints/serve?"+query, nil)
	}

	// Nothing configured: a normal 200 with nulls. An unknown screen names the valid one.
	data := envelope(t, serve("screen=home", ""))
	require.Equal(t, "home", data["screen"])
	require.Nil(t, data["placementId"])
	require.Nil(t, data["asset"])
	require.Nil(t, data["item"])
	require.NotEmpty(t, data["servedAt"])
	r = serve("screen=shop", "")
	requireError(t, r, 400, "UNKNOWN_SCREEN")
	require.Contains(t, r.Body["message"], "home")

	// The catalogue: a gift card, a coupon with a pool, a product.
	require.Equal(t, 201, s.admin("PUT", "/admin/v1/catalogue/categories/SHOP", map[string]any{"name": "Shopping"}).Status)
	r = s.admin("PUT", "/admin/v1/catalogue/brands/ACME", map[string]any{"name": "Acme", "categories": []string{"SHOP"},
		"websiteUrl": "https://acme.example.com", "logoUrl": "https://cdn.example.com/acme.png"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "GIFT_CARD", "brandCode": "ACME", "name": "Acme Gift Card",
		"valueType": "FIXED", "denominations": []float64{100, 500}, "discountPct": 10, "coverImage": "https://cdn.example.com/gc.png",
		"campaignTitle": "Acme card", "termsAndConditions": "Valid a year"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	giftCard := str(r.Body["id"])
	// An operator-made gift card is a pool reward: served while its pool has codes.
	require.Equal(t, 201, s.admin("POST", "/admin/v1/catalogue/rewards/"+giftCard+"/codes", map[string]any{"codes": []map[string]any{{"code": "ACME-1"}, {"code": "ACME-2"}}}).Status)
	r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "ACME", "name": "Half off shoes",
		"campaignTitle": "50% off all shoes", "mrp": 200, "sellingPrice": 100})
	require.Equal(t, 201, r.Status, string(r.Raw))
	coupon := str(r.Body["id"])
	require.Equal(t, 201, s.admin("POST", "/admin/v1/catalogue/rewards/"+coupon+"/codes", map[string]any{"codes": []map[string]any{{"code": "SHOE-1"}, {"code": "SHOE-2"}}}).Status)
	r = s.admin("PUT", "/admin/v1/catalogue/products/sku-1", map[string]any{"name": "Headphones", "brandName": "Sony", "category": "Audio",
		"imageUrl": "https://cdn.example.com/hp.png", "heroImageUrl": "https://cdn.example.com/hp-hero.png", "rating": 4.5, "mrp": 1000,
		"listingPrice": 900, "discountedListingPrice": 800, "maxCoinDiscountPct": 50, "priceUpdatedAt": time.Now().UTC().Format(time.RFC3339), "isActive": true})
	require.Equal(t, 201, r.Status, string(r.Raw))

	// The asset library and three placements in test, one per type.
	r = s.admin("PUT", "/admin/v1/touchpoint-assets/gold-frame", map[string]any{"name": "Gold", "imageUrl": "https://cdn.example.com/gold.png",
		"orientation": "LANDSCAPE", "width": 640, "height": 360})
	require.Equal(t, 201, r.Status, string(r.Raw))
	upload := map[string]any{"source": "UPLOAD", "imageUrl": "https://studio.example.com/frame.png", "orientation": "PORTRAIT", "width": 300, "height": 500}
	placements := "/admin/v1/games/" + tn.GameID + "/placements/"
	productPlacement := "0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f01"
	r = s.admin("PUT", placements+"test/"+productPlacement, map[string]any{"screen": "home", "type": "product", "asset": upload, "item": map[string]any{"productId": "sku-1"}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("PUT", placements+"test/0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f02", map[string]any{"screen": "home", "type": "coupon",
		"asset": map[string]any{"source": "PRESET", "presetId": "gold-frame"}, "item": map[string]any{"rewardId": coupon}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("PUT", placements+"test/0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f03", map[string]any{"screen": "home", "type": "gift-card",
		"asset": upload, "item": map[string]any{"rule": map[string]any{"brand": "ACME", "sortBy": "DEFAULT"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	// Bad placements change nothing: a gift card in a coupon placement, an unknown frame, another screen.
	requireError(t, s.admin("PUT", placements+"test/0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f04", map[string]any{"screen": "home", "type": "coupon",
		"asset": upload, "item": map[string]any{"rewardId": giftCard}}), 400, "VALIDATION_FAILED")
	requireError(t, s.admin("PUT", placements+"test/0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f04", map[string]any{"screen": "home", "type": "coupon",
		"asset": map[string]any{"source": "PRESET", "presetId": "nope"}, "item": map[string]any{"rewardId": coupon}}), 400, "VALIDATION_FAILED")
	requireError(t, s.admin("PUT", placements+"test/0b3f8a7e-1c52-4d8e-9a0f-5b7c2d1e6f04", map[string]any{"screen": "shop", "type": "coupon",
		"asset": upload, "item": map[string]any{"rewardId": coupon}}), 400, "UNKNOWN_SCREEN")
	r = s.admin("GET", placements+"test", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Len(t, list(r.Body["placements"]), 3)

	// Several placements and no type: 400.
	requireError(t, serve("screen=home", ""), 400, "PLACEMENT_TYPE_REQUIRED")

	// The product, without a player: coins may pay 50% of 800.00, uncapped.
	data = envelope(t, serve("screen=home&type=product&utm_source=game&utm_medium=banner&utm_campaign=diwali", ""))
	require.Equal(t, productPlacement, data["placementId"])
	require.Equal(t, map[string]any{"source": "UPLOAD", "imageUrl": "https://studio.example.com/frame.png", "orientation": "PORTRAIT",
		"width": float64(300), "height": float64(500)}, data["asset"])
	item := obj(data["item"])
	require.Equal(t, "PRODUCT", item["type"])
	require.Equal(t, "sku-1", item["id"])
	require.Equal(t, "Headphones", item["title"])
	require.Equal(t, "Sony", item["brandName"])
	require.Equal(t, map[string]any{"currency": "INR", "mrp": float64(1000), "price": float64(800), "discountPct": float64(20),
		"priceAfterCoins": float64(400)}, item["pricing"])
	require.Equal(t, map[string]any{"coinId": tn.CoinID, "coinName": "Gems", "coinImageUrl": "https://cdn.example.com/gem.png",
		"coinsRequired": float64(4000), "coinDiscount": float64(400)}, item["coins"])
	cta, err := url.Parse(str(obj(item["cta"])["url"]))
	require.NoError(t, err)
	require.Equal(t, "https://store.example.com/rewards/sku-1", cta.Scheme+"://"+cta.Host+cta.Path)
	require.Equal(t, url.Values{"utm_source": {"game"}, "utm_medium": {"banner"}, "utm_campaign": {"diwali"}}, cta.Query())

	// With the player's token: 250 coins are worth 25.00.
	item = obj(envelope(t, serve("screen=home&type=product", token))["item"])
	require.Equal(t, float64(775), obj(item["pricing"])["priceAfterCoins"])
	require.Equal(t, float64(250), obj(item["coins"])["coinsRequired"])
	require.Equal(t, float64(25), obj(item["coins"])["coinDiscount"])
	require.Equal(t, "https://store.example.com/rewards/sku-1", str(obj(item["cta"])["url"]), "no utm sent, none appended")
	requireError(t, serve("screen=home&type=product", "not-a-token"), 401, "TOKEN_INVALID")

	// The coupon: offerText, no pricing, the library's frame.
	data = envelope(t, serve("screen=home&type=coupon", token))
	require.Equal(t, "https://cdn.example.com/gold.png", obj(data["asset"])["imageUrl"])
	require.Equal(t, "PRESET", obj(data["asset"])["source"])
	item = obj(data["item"])
	require.Equal(t, "COUPON", item["type"])
	require.Equal(t, coupon, item["id"])
	require.Equal(t, "50% off all shoes", item["offerText"])
	require.Contains(t, item, "pricing")
	require.Nil(t, item["pricing"])

	// The gift card, picked by the rule: the smallest face value, 100.00 at 90.00.
	item = obj(envelope(t, serve("screen=home&type=gift-card", ""))["item"])
	require.Equal(t, giftCard, item["id"])
	require.Equal(t, "GIFT_CARD", item["type"])
	require.Equal(t, float64(90), obj(item["pricing"])["price"])
	require.Equal(t, float64(900), obj(item["coins"])["coinsRequired"])

	// Live has nothing until go-live; a test key on the live host is 401.
	live := func(key string) response {
		return s.call(request{method: "GET", path: "/v2/touchpoints/serve?screen=home&type=product", host: "live.localhost", headers: map[string]string{"x-api-key": key}})
	}
	require.Nil(t, envelope(t, live(tn.LiveKey))["item"])
	requireError(t, live(tn.TestKey), 401, "API_KEY_WRONG_ENVIRONMENT")
	r = s.admin("POST", placements+"promote", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Len(t, list(r.Body["placements"]), 3)
	data = envelope(t, live(tn.LiveKey))
	require.Equal(t, productPlacement, data["placementId"])
	require.Equal(t, "sku-1", obj(data["item"])["id"])

	// A 1.0 tree: an ASSET root with a STATIC reward (with a popup), a STATIC product and a
	// DYNAMIC child; a DYNAMIC root.
	trees := "/admin/v1/games/" + tn.GameID + "/touchpoints/"
	staticReward := "7d1c9e0a-0000-4000-8000-000000000001"
	tree := map[string]any{"nodes": []map[string]any{
		{"id": "7d1c9e0a-0000-4000-8000-000000000000", "displayOrder": 1, "dataType": "ASSET", "layoutHint": "carousel",
			"background": map[string]any{"color": "#101020", "opacity": 0.8},
			"title":      []map[string]any{{"text": "Rewards", "fontSize": 18, "fontWeight": "bold"}},
			"nodes": []map[string]any{
				{"id": staticReward, "displayOrder": 1, "dataType": "STATIC", "rewardId": giftCard,
					"cta":   map[string]any{"text": "Open", "action": "store://reward/" + giftCard},
					"popup": map[string]any{"id": "7d1c9e0a-0000-4000-8000-000000000002", "title": []map[string]any{{"text": "Details"}}}},
				{"id": "7d1c9e0a-0000-4000-8000-000000000003", "displayOrder": 2, "dataType": "STATIC", "productId": "sku-1"},
				{"id": "7d1c9e0a-0000-4000-8000-000000000004", "displayOrder": 3, "dataType": "DYNAMIC", "actionPrefix": "game://product/",
					"query": map[string]any{"type": "products", "limit": 5}, "cta": map[string]any{"text": "Buy"}},
			}},
		{"id": "7d1c9e0a-0000-4000-8000-000000000005", "displayOrder": 2, "dataType": "DYNAMIC", "actionPrefix": "store://reward/",
			"query": map[string]any{"type": "rewards", "brand": "ACME", "sortBy": "NEWEST", "limit": 10}},
	}}
	r = s.admin("PUT", trees+"Touchpoint", tree)
	require.Equal(t, 201, r.Status, string(r.Raw))
	treeID := str(r.Body["id"])
	require.Equal(t, 200, s.admin("PUT", trees+"Touchpoint", tree).Status, "a second PUT replaces")
	requireError(t, s.admin("PUT", trees+"Broken", map[string]any{"nodes": []map[string]any{{"dataType": "STATIC", "rewardId": "7d1c9e0a-0000-4000-8000-0000000000ff"}}}), 400, "VALIDATION_FAILED")
	requireError(t, s.admin("PUT", trees+"Broken", map[string]any{"nodes": []map[string]any{{"dataType": "DYNAMIC", "query": map[string]any{"type": "rewards"}}}}), 400, "VALIDATION_FAILED")

	get := func(path, token string) map[string]any {
		t.Helper()
		return envelope(t, s.asPlayer(tn, token, "GET", path, nil))
	}
	requireTree := func(tp map[string]any, hydrated bool) {
		t.Helper()
		require.Equal(t, treeID, tp["id"])
		require.Equal(t, tn.GameID, tp["gameId"])
		require.Equal(t, "Touchpoint", tp["name"])
		roots := list(tp["nodes"])
		require.Len(t, roots, 3, "the ASSET root and the DYNAMIC root's two rewards")
		for _, gen := range roots[1:] {
			require.Equal(t, "DYNAMIC", gen["dataType"])
			require.Equal(t, "store://reward/"+str(gen["rewardId"]), obj(gen["cta"])["action"])
			require.NotContains(t, gen, "query")
			require.Equal(t, hydrated, gen["data"] != nil)
		}
		require.Equal(t, coupon, roots[1]["rewardId"], "NEWEST first")
		require.Equal(t, giftCard, roots[2]["rewardId"])
		kids := list(roots[0]["nodes"])
		require.Len(t, kids, 3, "two STATIC nodes and one product from the nested DYNAMIC node")
		require.Equal(t, "Details", list(obj(kids[0]["popup"])["title"])[0]["text"])
		require.Equal(t, "game://product/sku-1", obj(kids[2]["cta"])["action"])
		require.Equal(t, "Buy", obj(kids[2]["cta"])["text"])
		require.Equal(t, "sku-1", kids[2]["productId"])
		if !hydrated {
			for _, k := range kids {
				require.NotContains(t, k, "data")
			}
			return
		}
		rd := obj(kids[0]["data"])
		require.Equal(t, giftCard, rd["id"])
		require.Equal(t, "ACME", rd["brandId"])
		require.Equal(t, "Acme", rd["brandName"])
		require.Equal(t, "ACME", rd["organizationId"])
		require.Equal(t, true, rd["isActive"])
		require.Equal(t, "https://acme.example.com", rd["brandRedirectionLink"])
		require.Equal(t, []any{map[string]any{"amount": float64(900), "coinId": tn.CoinID}}, rd["price"])
		require.Equal(t, map[string]any{"availableQuantity": float64(2), "type": "LIMITED"}, rd["inventory"], "an operator-made gift card is a pool")
		require.Equal(t, map[string]any{"brandName": "Acme", "brandLogoImage": "https://cdn.example.com/acme.png", "campaignTitle": "Acme card",
			"campaignSubTitle": "", "campaignCoverImage": "https://cdn.example.com/gc.png", "campaignDetails": "", "termsAndConditions": "Valid a year",
			"howToRedeem": "", "brandRedirectionLink": "https://acme.example.com", "couponExpiryDate": "", "type": "GIFT_CARD",
			"brandCategory": []any{"SHOP"}, "couponExpiryDateExists": false}, rd["metadata"])
		pd := obj(kids[1]["data"])
		require.Equal(t, "sku-1", pd["id"])
		require.Equal(t, "PRODUCT", pd["type"])
		require.Equal(t, "sku-1", pd["productId"])
		require.Equal(t, float64(900), pd["listingPrice"])
		require.Equal(t, float64(800), pd["discountedListingPrice"])
		require.Equal(t, float64(1000), pd["mrp"])
		require.Equal(t, float64(20), pd["discountPercent"])
		require.Equal(t, float64(50), pd["coinSpread"])
		require.Equal(t, float64(4000), pd["coinsRequiredForMaxDiscount"])
		require.Equal(t, obj(kids[2]["data"])["productId"], "sku-1")
	}

	requireTree(get("/touchpoints/name/Touchpoint", ""), false)
	tp := get("/touchpoints/name/Touchpoint?coinId="+tn.CoinID, token)
	requireTree(tp, true)
	require.Equal(t, float64(250), obj(list(list(tp["nodes"])[0]["nodes"])[1]["data"])["coinRequiredForDiscount"], "the player's balance")
	tp = get("/touchpoints/"+treeID+"?coinId="+tn.CoinID, "")
	requireTree(tp, true)
	require.Equal(t, float64(4000), obj(list(list(tp["nodes"])[0]["nodes"])[1]["data"])["coinRequiredForDiscount"], "no player: the whole share")
	requireTree(get("/touchpoints/"+treeID, ""), false)
	all := get("/touchpoints?coinId="+tn.CoinID, "")
	require.Equal(t, float64(1), all["total"])
	requireTree(list(all["touchpoints"])[0], true)

	// Names are case sensitive; unknown ids and coins are 404.
	requireError(t, s.asPlayer(tn, "", "GET", "/touchpoints/name/touchpoint", nil), 404, "TOUCHPOINT_NOT_FOUND")
	requireError(t, s.asPlayer(tn, "", "GET", "/touchpoints/7d1c9e0a-0000-4000-8000-000000000009", nil), 404, "TOUCHPOINT_NOT_FOUND")
	requireError(t, s.asPlayer(tn, "", "GET", "/touchpoints/name/Touchpoint?coinId=7d1c9e0a-0000-4000-8000-000000000009", nil), 404, "COIN_NOT_FOUND")
	other := s.newTenant("Other Studio")
	requireError(t, s.asPlayer(other, "", "GET", "/touchpoints/"+treeID, nil), 404, "TOUCHPOINT_NOT_FOUND")
	require.Equal(t, 204, s.admin("DELETE", trees+"Touchpoint", nil).Status)
	requireError(t, s.asPlayer(tn, "", "GET", "/touchpoints/name/Touchpoint", nil), 404, "TOUCHPOINT_NOT_FOUND")
}
