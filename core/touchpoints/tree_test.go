package touchpoints

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
)

func TestValidateTree(t *testing.T) {
	t.Parallel()
	rid := uuid.New()
	id := uuid.New()
	dyn := func() Node {
		return Node{DataType: DataDynamic, Query: &Query{Type: QueryRewards}, ActionPrefix: "store://reward/"}
	}
	tests := []struct {
		name  string
		nodes []Node
		bad   string // "" when valid
	}{
		{name: "asset, static and dynamic", nodes: []Node{{}, {DataType: DataStatic, RewardID: &rid}, dyn()}},
		{name: "static through a child", nodes: []Node{{DataType: DataStatic, Nodes: []Node{{DataType: DataStatic, ProductID: "p1"}}}}},
		{name: "duplicate ids", nodes: []Node{{ID: id}, {Nodes: []Node{{ID: id}}}}, bad: "used by another node"},
		{name: "asset with a reward", nodes: []Node{{RewardID: &rid}}, bad: "ASSET"},
		{name: "static with nothing", nodes: []Node{{DataType: DataStatic}}, bad: "STATIC"},
		{name: "both reward and product", nodes: []Node{{DataType: DataStatic, RewardID: &rid, ProductID: "p"}}, bad: "not both"},
		{name: "dynamic without a query", nodes: []Node{{DataType: DataDynamic, ActionPrefix: "x"}}, bad: "query"},
		{name: "dynamic without actionPrefix", nodes: []Node{{DataType: DataDynamic, Query: &Query{Type: QueryProducts}}}, bad: "actionPrefix"},
		{name: "dynamic limit over 20", nodes: []Node{{DataType: DataDynamic, Query: &Query{Type: QueryRewards, Limit: 21}, ActionPrefix: "x"}}, bad: "limit"},
		{name: "dynamic popup", nodes: []Node{{Popup: &Node{DataType: DataDynamic, Query: &Query{Type: QueryRewards}, ActionPrefix: "x"}}}, bad: "popup"},
		{name: "unknown data type", nodes: []Node{{DataType: "LIVE"}}, bad: "dataType"},
		{name: "opacity over 1", nodes: []Node{{Background: &Fill{Opacity: ptr(1.5)}}}, bad: "opacity"},
		{name: "seven levels", nodes: deep(7), bad: "levels"},
		{name: "six levels", nodes: deep(6)},
		{name: "501 nodes", nodes: make([]Node, 501), bad: "at most 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := validateTree(tt.nodes)
			if tt.bad == "" {
				require.NoError(t, err)
				for _, n := range tt.nodes {
					require.NotEqual(t, uuid.Nil, n.ID, "every node gets an id")
				}
				return
			}
			require.Error(t, err)
			require.Equal(t, errs.Invalid, errs.KindOf(err))
			require.Contains(t, err.Error(), tt.bad)
		})
	}
}

func ptr[T any](v T) *T { return &v }

func deep(levels int) []Node {
	n := Node{}
	for range levels - 1 {
		n = Node{Nodes: []Node{n}}
	}
	return []Node{n}
}

// TestExpand: a DYNAMIC node becomes one sibling per item, in place, with a stable generated
// id and cta.action = actionPrefix + item id; data only with a coin.
func TestExpand(t *testing.T) {
	t.Parallel()
	dynID := uuid.New()
	p1, p2 := "sku-1", "sku-2"
	nodes := []Node{
		{DisplayOrder: 1},
		{ID: dynID, DisplayOrder: 2, DataType: DataDynamic, Query: &Query{Type: QueryProducts}, ActionPrefix: "shop://p/",
			CTA: &CTA{Text: "Buy"}, Nodes: []Node{{DisplayOrder: 1}}},
		{DisplayOrder: 3},
	}
	_, err := validateTree(nodes)
	require.NoError(t, err)
	e := &expander{left: MaxServedNodes, dynamic: map[uuid.UUID][]dynItem{dynID: {{product: &catalogueProduct1}, {product: &catalogueProduct2}}}}
	out := e.nodes(nodes)
	require.Len(t, out, 4)
	require.Equal(t, 1, out[0].DisplayOrder)
	require.Equal(t, 3, out[3].DisplayOrder)
	for i, want := range []string{p1, p2} {
		g := out[1+i]
		require.Equal(t, DataDynamic, g.DataType)
		require.Equal(t, want, g.ProductID)
		require.Equal(t, "shop://p/"+want, g.CTA.Action)
		require.Equal(t, "Buy", g.CTA.Text)
		require.Equal(t, uuid.NewSHA1(dynID, []byte(want)), g.ID)
		require.Nil(t, g.Query)
		require.Nil(t, g.Data, "no coin, no data")
		require.Len(t, g.Nodes, 1)
	}
	require.Equal(t, "", nodes[1].CTA.Action, "the stored node is not changed")
}

// ASSET nodes are served as stored: a list with only ASSET nodes below it (popups included) is
// the stored list itself when the budget holds all of it, and is cut at the budget, in order,
// when it does not; a list with a node of another type below is served node by node.
func TestExpanderServesAssetsAsStored(t *testing.T) {
	t.Parallel()
	asset := func(title string, kids ...Node) Node {
		return Node{ID: uuid.New(), DataType: DataAsset, Title: []TextItem{{Text: title}}, Nodes: kids}
	}
	popup := asset("popup", asset("in popup"))
	banner := asset("banner", asset("a"), asset("b", asset("c")))
	banner.Nodes[0].Popup = &popup
	rid := uuid.New()
	static := Node{ID: uuid.New(), DataType: DataStatic, RewardID: &rid, Nodes: []Node{asset("d")}}
	tree := []Node{banner, asset("footer", asset("e"), asset("f")), static}
	size := countNodes(tree)

	e := &expander{left: MaxServedNodes, coin: &Coin{ID: uuid.New(), CoinsPerUnit: 10},
		rewards: map[uuid.UUID]*RewardItem{rid: {Reward: catalogue.Reward{ID: rid}}}}
	served := e.nodes(tree)
	require.Equal(t, MaxServedNodes-size, e.left, "every node counted")
	require.Equal(t, size, countNodes(served))
	require.Same(t, &tree[0].Nodes[0], &served[0].Nodes[0], "an ASSET-only list is the stored one")
	require.Equal(t, tree[0], served[0])
	require.NotSame(t, &tree[0], &served[0], "a list with a STATIC node below is served node by node")
	require.NotNil(t, served[2].Data, "the STATIC node is hydrated")
	require.Nil(t, tree[2].Data, "the stored node is not")

	assets := countNodes(tree[:2])
	for left := range assets + 2 {
		e := &expander{left: left}
		served := e.nodes(tree[:2])
		require.Equal(t, min(left, assets), countNodes(served), "budget %d", left)
		require.Equal(t, max(left-assets, 0), e.left, "budget %d", left)
	}
	e = &expander{left: 3}
	served = e.nodes(tree[:1])
	require.Equal(t, []string{"banner", "a", "popup"}, []string{served[0].Title[0].Text, served[0].Nodes[0].Title[0].Text,
		served[0].Nodes[0].Popup.Title[0].Text}, "cut in order: a node, its children, then its popup")
	require.Len(t, served[0].Nodes, 1)
	require.Empty(t, served[0].Nodes[0].Popup.Nodes)
}
