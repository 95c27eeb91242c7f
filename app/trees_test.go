package app_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/touchpoints"
)

// A touchpoint tree is bounded as served: DYNAMIC under DYNAMIC and trees that could serve more
// than 2,000 nodes are refused on write; GET /touchpoints lists at most 100 trees.
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
	list := p.call("GET", "/touchpoints", "", map[string]string{"x-api-key": g.key}, nil)
	require.Equal(t, 200, list.Status, string(list.Raw))
	require.Len(t, data(list)["touchpoints"], 100)
}
