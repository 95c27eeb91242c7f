package e2e

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// items returns the items of a {items, page, limit, total} page.
func items(t *testing.T, r response) []map[string]any {
	t.Helper()
	require.Equal(t, 200, r.Status, string(r.Raw))
	list, ok := r.Body["items"].([]any)
	require.True(t, ok, string(r.Raw))
	out := make([]map[string]any, len(list))
	for i, v := range list {
		out[i] = v.(map[string]any)
	}
	return out
}

func findByID(list []map[string]any, id string) map[string]any {
	for _, m := range list {
		if m["id"] == id {
			return m
		}
	}
	return nil
}

// The operator builds a catalogue and syncs the fake provider's (in its container); a player
// lists it in both shapes and two languages, filters, searches, fetches one reward and follows
// a short link.
func TestCatalogue(t *testing.T) {
	t.Parallel()
	s := startStack(t, map[string]string{"REWARDS_VOUCHER_BASE_URL": "http://fakes:9090/vouchers"})
	tn := s.newTenant("Catalogue Studio")
	require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "shopper"}).Status)
	token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "shopper"}).Body["access_token"])
	get := func(path string, headers ...string) response {
		t.Helper()
		return s.asPlayer(tn, token, "GET", path, nil, append([]string{"x-language", "en"}, headers...)...)
	}

	// The operator's own catalogue.
	r := s.admin("PUT", "/admin/v1/catalogue/categories/FOOD", map[string]any{"name": "Food",
		"translations": map[string]any{"hi": map[string]any{"name": "भोजन"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, 200, s.admin("PUT", "/admin/v1/catalogue/categories/FOOD", map[string]any{"name": "Food & Drinks",
		"translations": map[string]any{"hi": map[string]any{"name": "भोजन"}}}).Status, "a second PUT replaces")
	requireError(t, s.admin("PUT", "/admin/v1/catalogue/brands/PIZZA_PALACE", map[string]any{"name": "Pizza Palace",
		"categories": []string{"NO_SUCH"}}), 400, "VALIDATION_FAILED")
	r = s.admin("PUT", "/admin/v1/catalogue/brands/PIZZA_PALACE", map[string]any{"name": "Pizza Palace",
		"description": "Wood-fired pizza", "websiteUrl": "https://pizza.example.com/menu", "categories": []string{"FOOD"},
		"countries": []string{"IN"}, "translations": map[string]any{"hi": map[string]any{"name": "पिज़्ज़ा पैलेस"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "PIZZA_PALACE",
		"name": "Large pizza at half price", "description": "Any large pizza", "mrp": 600, "sellingPrice": 299.5,
		"translations": map[string]any{"hi": map[string]any{"name": "आधी कीमत पर बड़ा पिज़्ज़ा"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	coupon := str(r.Body["id"])
	r = s.admin("POST", "/admin/v1/catalogue/rewards/"+coupon+"/codes", map[string]any{"codes": []map[string]any{
		{"code": "PIZZA-1"}, {"code": "PIZZA-2", "pin": "1234"}, {"code": "PIZZA-1"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, float64(2), r.Body["added"])
	requireError(t, s.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "NOPE",
		"name": "x", "mrp": 1, "sellingPrice": 1}), 400, "VALIDATION_FAILED")

	// The fake provider's catalogue, twice: the second sync creates nothing.
	r = s.admin("POST", "/admin/v1/catalogue/sync", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.GreaterOrEqual(t, r.Body["created"].(float64), float64(30))
	r = s.admin("POST", "/admin/v1/catalogue/sync", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, float64(0), r.Body["created"])

	// Shape A: the coin price is ceil(299.50 × 10); the pool holds 2 codes.
	list := items(t, get("/rewards?coinId="+tn.CoinID+"&limit=100"))
	require.Greater(t, len(list), 30)
	mine := findByID(list, coupon)
	require.NotNil(t, mine, "the operator's coupon is listed")
	require.Equal(t, float64(2995), mine["price"])
	require.Equal(t, float64(2995), mine["minPrice"])
	require.Equal(t, float64(2), mine["availableQuantity"])
	require.Equal(t, "PIZZA_PALACE", mine["brandId"])
	require.Equal(t, "Large pizza at half price", mine["name"])

	// Shape B, in Hindi.
	listB := items(t, get("/rewards?coinId="+tn.CoinID+"&limit=100&api-version=2", "x-language", "hi"))
	mineB := findByID(listB, coupon)
	require.NotNil(t, mineB)
	require.Equal(t, map[string]any{"amount": float64(2995), "coinId": tn.CoinID}, mineB["price"])
	require.Equal(t, "पिज़्ज़ा पैलेस", mineB["brandName"])
	require.NotContains(t, mineB, "name", "shape B has no top-level name")
	require.Equal(t, float64(2), mineB["inventory"].(map[string]any)["availableQuantity"])

	// Filters.
	food := items(t, get("/rewards?coinId="+tn.CoinID+"&category=FOOD"))
	require.Len(t, food, 1)
	require.Equal(t, coupon, food[0]["id"])
	for _, m := range items(t, get("/rewards?coinId="+tn.CoinID+"&giftCard=true&limit=100")) {
		require.Equal(t, "GIFT_CARD", m["type"])
	}
	byBrand := items(t, get("/rewards?coinId="+tn.CoinID+"&brand=PIZZA_PALACE"))
	require.Len(t, byBrand, 1)
	require.Empty(t, items(t, get("/rewards?coinId="+tn.CoinID+"&brand=PIZZA_PALACE&country=US")))
	requireError(t, get("/rewards?coinId=not-a-coin"), 404, "COIN_NOT_FOUND")
	other := s.newTenant("Other Studio")
	requireError(t, get("/rewards?coinId="+other.CoinID), 404, "COIN_NOT_FOUND")

	// A game hides a reward: its players no longer see it; another game's do.
	r = s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/rewards/"+coupon, map[string]any{"hidden": true})
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Empty(t, items(t, get("/rewards?coinId="+tn.CoinID+"&category=FOOD")))
	require.Equal(t, 200, s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/rewards/"+coupon, map[string]any{"hidden": false}).Status)

	// Metadata.
	brands := get("/rewards/metadata/brands?category=FOOD")
	require.Equal(t, 200, brands.Status, string(brands.Raw))
	require.Contains(t, string(brands.Raw), `"code":"PIZZA_PALACE"`)
	cats := get("/rewards/categories", "x-language", "hi")
	require.Equal(t, 200, cats.Status, string(cats.Raw))
	require.Contains(t, string(cats.Raw), `"name":"भोजन"`)

	// Search: typos, prefixes, the three groups.
	search := func(q string, extra string) response {
		t.Helper()
		r := get("/rewards/search?coinId=" + tn.CoinID + "&q=" + url.QueryEscape(q) + extra)
		require.Equal(t, 200, r.Status, string(r.Raw))
		return r
	}
	found := search("amazn", "")
	rewards := found.Body["rewards"].(map[string]any)["items"].([]any)
	require.NotEmpty(t, rewards, "a typo finds Amazon")
	require.Contains(t, strings.ToLower(str(rewards[0].(map[string]any)["brandName"])), "amazon")
	found = search("pizz", "&type=rewards")
	var names []string
	for _, m := range found.Body["rewards"].(map[string]any)["items"].([]any) {
		names = append(names, str(m.(map[string]any)["brandId"]))
	}
	require.Contains(t, names, "PIZZA_PALACE", "a prefix finds the operator's coupon")
	require.Less(t, slices.Index(names, "PIZZA_PALACE"), slices.Index(names, "DOMINOS"), "names rank above descriptions")
	require.Empty(t, found.Body["brands"], "type=rewards fills only the rewards")
	found = search("food", "&type=categories")
	require.Contains(t, string(found.Raw), `"code":"FOOD"`)

	// Fetch: shape B plus the face values with their coin prices.
	f := get("/rewards/fetch/" + coupon + "?coinId=" + tn.CoinID)
	require.Equal(t, 200, f.Status, string(f.Raw))
	require.Equal(t, "COUPON", f.Body["type"])
	require.Equal(t, []any{map[string]any{"value": float64(600), "price": float64(2995), "available": true}}, f.Body["denominations"])
	require.Nil(t, f.Body["nextPurchaseAt"])
	requireError(t, get("/rewards/fetch/not-a-reward?coinId="+tn.CoinID), 404, "REWARD_NOT_FOUND")

	// A short link: one per player and reward; following it redirects and is counted.
	l := get("/rewards/" + coupon + "/get-redirection-link")
	require.Equal(t, 200, l.Status, string(l.Raw))
	link := str(l.Body["url"])
	require.Equal(t, link, str(get("/rewards/" + coupon + "/get-redirection-link").Body["url"]))
	u, err := url.Parse(link)
	require.NoError(t, err)
	noFollow := s.httpClient()
	for range 2 {
		res, err := noFollow.Get(s.svc.BaseURL + u.Path)
		require.NoError(t, err)
		res.Body.Close()
		require.Equal(t, http.StatusFound, res.StatusCode)
		require.Equal(t, "https://pizza.example.com/menu?utm_source=rewards", res.Header.Get("Location"))
	}
	res, err := noFollow.Get(s.svc.BaseURL + "/r/nosuchcode")
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNotFound, res.StatusCode)
	require.Equal(t, int64(2), s.clicks(t, u.Path[len("/r/"):]))
}

// clicks reads a short link's click count from the database.
func (s *stack) clicks(t *testing.T, code string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int64
	require.NoError(t, s.pg.DB(ctx).QueryRowContext(ctx, `SELECT clicks FROM catalogue_short_links WHERE code = $1`, code).Scan(&n), code)
	return n
}
