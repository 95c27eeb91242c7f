package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/app"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// A touchpoint tree is bounded as served: DYNAMIC under DYNAMIC and trees that could serve more
// than 2,000 nodes are refused on write; a page of GET /touchpoints holds 20 trees unless asked
// for more, at most 100.
func TestTouchpointTreesAreBounded(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	dyn := func(limit int, kids ...map[string]any) map[string]any {
		return map[string]any{"displayOrder": 1, "dataType": "DYNAMIC", "actionPrefix": "store://r/",
			"query": map[string]any{"type": "rewards", "limit": limit}, "nodes": kids}
	}
	put := func(name string, nodes ...map[string]any) response {
		return p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/touchpoints/"+name, map[string]any{"nodes": nodes})
	}
	// The 548-byte tree of the report: 6 nested DYNAMIC nodes, ~20^6 nodes served.
	nested := dyn(20)
	for range 5 {
		nested = dyn(20, nested)
	}
	requireError(t, put("Nested", nested), 400, "VALIDATION_FAILED")
	wide := make([]map[string]any, 100)
	for i := range wide {
		wide[i] = map[string]any{"displayOrder": i}
	}
	requireError(t, put("Wide", dyn(20, wide...)), 400, "TREE_TOO_LARGE")
	r := put("Fits", dyn(20, wide[:99]...))
	require.Equal(t, 201, r.Status, string(r.Raw))

	ctx := context.Background()
	for i := range 101 {
		_, _, err := p.m.Touchpoints.PutTree(ctx, g.id, fmt.Sprintf("t%03d", i), []touchpoints.Node{{}})
		require.NoError(t, err)
	}
	for query, want := range map[string]int{"": 20, "?limit=100": 100} {
		list := p.call("GET", "/touchpoints"+query, "", map[string]string{"x-api-key": g.key}, nil)
		require.Equal(t, 200, list.Status, string(list.Raw))
		require.Equal(t, want, len(data(list)["touchpoints"].([]any)), query)
		require.Equal(t, []any{float64(102), true}, []any{data(list)["total"], data(list)["hasMore"]}, query)
	}
}

// The operator's touchpoint routes answer 404 with the code their descriptions name: a
// placement id that is not a UUID, a tree of an unknown or malformed game.
func TestTouchpointOperatorRoutesAnswerTheirCodes(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	placement := map[string]any{"screen": "home", "type": "coupon", "item": map[string]any{"rule": map[string]any{}},
		"asset": map[string]any{"source": "UPLOAD", "imageUrl": "https://cdn.example.com/f.png", "orientation": "PORTRAIT", "width": 1, "height": 1}}
	requireError(t, p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/placements/test/not-a-uuid", placement), 404, "PLACEMENT_NOT_FOUND")
	r := p.admin("PUT", "/admin/v1/games/"+g.id.String()+"/placements/test/"+uuid.NewString(), placement)
	require.Equal(t, 201, r.Status, string(r.Raw))

	_, _, err := p.m.Touchpoints.PutTree(context.Background(), g.id, "Home", []touchpoints.Node{{}})
	require.NoError(t, err)
	requireError(t, p.admin("DELETE", "/admin/v1/games/"+uuid.NewString()+"/touchpoints/Home", nil), 404, "GAME_NOT_FOUND")
	requireError(t, p.admin("DELETE", "/admin/v1/games/not-a-game/touchpoints/Home", nil), 404, "GAME_NOT_FOUND")
	requireError(t, p.admin("DELETE", "/admin/v1/games/"+g.id.String()+"/touchpoints/Away", nil), 404, "TOUCHPOINT_NOT_FOUND")
	require.Equal(t, 204, p.admin("DELETE", "/admin/v1/games/"+g.id.String()+"/touchpoints/Home", nil).Status)
}

// GET /touchpoints serves at most touchpoints.MaxPageNodes nodes in one answer, all its trees
// together: four trees that each serve 2,000 nodes come two to a page, every tree exactly once,
// and a page past the last is empty with the total.
func TestTouchpointListIsPagedWithinTheNodeBound(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	ctx := context.Background()
	// 20 copies of a DYNAMIC node with 99 children: 2,000 nodes served, the most a tree may.
	big := func() []touchpoints.Node {
		kids := make([]touchpoints.Node, 99)
		for i := range kids {
			kids[i] = touchpoints.Node{DisplayOrder: i}
		}
		return []touchpoints.Node{{DataType: touchpoints.DataDynamic, ActionPrefix: "store://r/",
			Query: &touchpoints.Query{Type: touchpoints.QueryRewards, Limit: 20}, Nodes: kids}}
	}
	names := []string{"a", "b", "c", "d"}
	for _, name := range names {
		_, _, err := p.m.Touchpoints.PutTree(ctx, g.id, name, big())
		require.NoError(t, err)
	}
	list := func(query string) response {
		r := p.call("GET", "/touchpoints?"+query, "", map[string]string{"x-api-key": g.key}, nil)
		require.Equal(t, 200, r.Status, string(r.Raw))
		return r
	}
	var seen []string
	for page, want := range [][]string{{"a", "b"}, {"c", "d"}} {
		r := list(fmt.Sprintf("page=%d", page+1))
		body := data(r)
		var got []string
		served := 0
		for _, tp := range body["touchpoints"].([]any) {
			tree := tp.(map[string]any)
			got = append(got, tree["name"].(string))
			served += servedNodes(tree["nodes"])
		}
		require.Equal(t, want, got, "page %d", page+1)
		require.LessOrEqual(t, served, touchpoints.MaxPageNodes, "page %d serves %d nodes", page+1, served)
		require.Greater(t, served, touchpoints.MaxServedNodes, "the trees are expanded (page %d)", page+1)
		require.Equal(t, []any{float64(4), float64(page + 1), float64(20), page == 0},
			[]any{body["total"], body["page"], body["limit"], body["hasMore"]}, "page %d", page+1)
		seen = append(seen, got...)
	}
	require.Equal(t, names, seen, "every tree once")
	past := data(list("page=3"))
	require.Empty(t, past["touchpoints"])
	require.Equal(t, []any{float64(4), false}, []any{past["total"], past["hasMore"]})
	requireError(t, p.call("GET", "/touchpoints?limit=101", "", map[string]string{"x-api-key": g.key}, nil), 400, "VALIDATION_FAILED")
	requireError(t, p.call("GET", "/touchpoints?page=101&limit=100", "", map[string]string{"x-api-key": g.key}, nil), 400, "VALIDATION_FAILED")
}

// servedNodes counts the nodes of a served list, their descendants and popups included.
func servedNodes(list any) int {
	nodes, _ := list.([]any)
	n := 0
	for _, it := range nodes {
		node := it.(map[string]any)
		n += 1 + servedNodes(node["nodes"])
		if popup, ok := node["popup"].(map[string]any); ok {
			n += servedNodes([]any{popup})
		}
	}
	return n
}

// A tree read without a player token is kept for authcache.TTL on each instance (its coin's
// value too), yet a change committed through an instance is served by it at its next read, and
// by the other instance once its read expires (the bound adds the polling's slack): a new
// version of the tree, a new coin value, a deletion. A new tree is served by every instance at
// once (a tree not found is not kept).
func TestTreeChangesReachEveryInstance(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setupCatalogueInstances(t)
	_, err := c.a.Catalogue.PutBrand(ctx, catalogue.Brand{Code: "HOUSE", Name: "House", IsActive: true})
	require.NoError(t, err)
	reward, err := c.a.Catalogue.CreateReward(ctx, catalogue.NewReward{Reward: catalogue.Reward{Type: catalogue.Coupon, BrandCode: "HOUSE",
		Name: "House coupon", IsActive: true, MRP: money.Amount(100_00), SellingPrice: money.Amount(50_00)}, SharedCode: "HOUSE"})
	require.NoError(t, err)
	put := func(title string) {
		t.Helper()
		_, _, err := c.a.Touchpoints.PutTree(ctx, c.q.GameID, "Home", []touchpoints.Node{{DataType: touchpoints.DataStatic,
			RewardID: &reward.ID, Title: []touchpoints.TextItem{{Text: title}}}})
		require.NoError(t, err)
	}
	q := touchpoints.TreeRequest{GameID: c.q.GameID, CoinID: &c.q.CoinID}
	// served is the tree's title and its reward's coin price, as m serves them ("" when m
	// finds no tree).
	served := func(m app.Modules) (string, int64) {
		t.Helper()
		tr, err := m.Touchpoints.TreeByName(ctx, q, "Home")
		if errs.CodeOf(err) == touchpoints.ErrTouchpointNotFound.Code {
			return "", 0
		}
		require.NoError(t, err)
		n := tr.Nodes[0]
		require.NotNil(t, n.Data, "the reward is hydrated")
		return n.Title[0].Text, n.Data.Reward.CoinPrice
	}
	seen := func(what, title string, price int64) {
		t.Helper()
		gotTitle, gotPrice := served(c.a)
		require.Equal(t, []any{title, price}, []any{gotTitle, gotPrice}, "%s: not served at once by the instance that made it", what)
		require.Eventually(t, func() bool {
			gotTitle, gotPrice := served(c.b)
			return gotTitle == title && gotPrice == price
		}, authcache.TTL+time.Second, 10*time.Millisecond, "%s: not served by the other instance once its read expired", what)
	}

	title, _ := served(c.b)
	require.Empty(t, title)
	put("One")
	title, price := served(c.b)
	require.Equal(t, []any{"One", int64(50)}, []any{title, price}, "a new tree is served by every instance at once")
	seen("first read", "One", 50)
	put("Two")
	seen("new version", "Two", 50)
	_, err = c.a.Coins.SetCoinsPerUnit(ctx, c.q.CoinID, 3)
	require.NoError(t, err)
	seen("coin value", "Two", 150)
	require.NoError(t, c.a.Touchpoints.DeleteTree(ctx, c.q.GameID, "Home"))
	seen("deletion", "", 0)
}
