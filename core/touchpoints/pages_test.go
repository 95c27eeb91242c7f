package touchpoints

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
)

// Pages take trees in order while they hold fewer than limit and serve at most MaxPageNodes
// together, and hold at least one tree; a page past the last is empty.
func TestPagesPackTreesWithinTheNodeBound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		served []int
		limit  int
		pages  [][2]int // the bounds of pages 1, 2, ...: the last one asked is past the end
	}{
		{"four trees of 2,000: two a page", []int{2000, 2000, 2000, 2000}, 20, [][2]int{{0, 2}, {2, 4}, {4, 4}}},
		{"the bound itself fits", []int{2000, 2000, 1000, 1}, 20, [][2]int{{0, 3}, {3, 4}, {4, 4}}},
		{"one past the bound ends the page", []int{1999, 2000, 1002, 1998, 2000, 1000, 1}, 20, [][2]int{{0, 2}, {2, 5}, {5, 7}, {7, 7}}},
		{"limit ends a page first", []int{1, 1, 1, 1, 1}, 2, [][2]int{{0, 2}, {2, 4}, {4, 5}, {5, 5}}},
		{"trees that serve nothing", []int{0, 0, 0, 0}, 3, [][2]int{{0, 3}, {3, 4}, {4, 4}}},
		{"a size past what the expander serves counts as its most", []int{9000, 3000, 1000, 1}, 20, [][2]int{{0, 3}, {3, 4}, {4, 4}}},
		{"no trees", nil, 20, [][2]int{{0, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for i, want := range tc.pages {
				lo, hi := pageOf(tc.served, i+1, tc.limit)
				require.Equal(t, want, [2]int{lo, hi}, "page %d", i+1)
			}
		})
	}
}

// On any trees, the pages list every tree once, in order, each within its limits, and each
// ends only where the next tree would pass one of them.
func TestPagesListEveryTreeOnce(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		served := make([]int, rng.IntN(60))
		for i := range served {
			served[i] = rng.IntN(MaxServedNodes + 1)
		}
		limit := 1 + rng.IntN(10)
		next := 0
		for page := 1; ; page++ {
			lo, hi := pageOf(served, page, limit)
			require.Equal(t, next, lo, "page %d starts where the last ended", page)
			if lo == len(served) {
				require.Equal(t, lo, hi, "past the last page")
				break
			}
			sum := 0
			for _, n := range served[lo:hi] {
				sum += n
			}
			require.Greater(t, hi, lo, "a page holds a tree")
			require.LessOrEqual(t, hi-lo, limit)
			require.True(t, sum <= MaxPageNodes || hi-lo == 1, "%d nodes on page %d", sum, page)
			if hi < len(served) {
				require.True(t, hi-lo == limit || sum+served[hi] > MaxPageNodes, "page %d ends early", page)
			}
			next = hi
		}
	}
}

// The list reads the sizes, then only the page's trees; a tree written again between the two
// reads so that it would pass the bound ends the page before it.
func TestTreesReadOnlyTheirPage(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	game := uuid.New()
	repo := &treeRepo{trees: map[string]Tree{}}
	s := NewService(repoOf{repo}, Config{Currency: "INR", Audit: testAudit()})
	// big serves MaxServedNodes: 20 copies of a DYNAMIC node with 99 children.
	big := func() []Node {
		return []Node{{DataType: DataDynamic, ActionPrefix: "store://r/", Query: &Query{Type: QueryRewards, Limit: 20}, Nodes: make([]Node, 99)}}
	}
	put := func(name string, nodes []Node) Tree {
		t.Helper()
		tr, _, err := s.PutTree(ctx, game, name, nodes)
		require.NoError(t, err)
		return tr
	}
	a, b := put("a", big()), put("b", big())
	c := put("c", []Node{{}})
	d := put("d", big())
	e := put("e", make([]Node, 10))
	require.Equal(t, []int{2000, 2000, 1, 2000, 10}, []int{a.Served, b.Served, c.Served, d.Served, e.Served})

	names := func(list TreeList) []string {
		var out []string
		for _, tr := range list.Trees {
			out = append(out, tr.Name)
		}
		return out
	}
	for _, tc := range []struct {
		page, limit int
		want        []string
		ids         []uuid.UUID
		more        bool
	}{
		{1, 20, []string{"a", "b", "c"}, []uuid.UUID{a.ID, b.ID, c.ID}, true},
		{2, 20, []string{"d", "e"}, []uuid.UUID{d.ID, e.ID}, false},
		{3, 20, nil, nil, false},
		{2, 2, []string{"c", "d"}, []uuid.UUID{c.ID, d.ID}, true},
	} {
		repo.askedByID = nil
		list, err := s.Trees(ctx, TreeRequest{GameID: game}, tc.page, tc.limit)
		require.NoError(t, err)
		require.Equal(t, tc.want, names(list), "page %d of %d", tc.page, tc.limit)
		require.Equal(t, []any{5, tc.more}, []any{list.Total, list.More}, "page %d of %d", tc.page, tc.limit)
		if tc.ids == nil {
			require.Empty(t, repo.askedByID, "nothing to read past the last page")
		} else {
			require.Equal(t, [][]uuid.UUID{tc.ids}, repo.askedByID, "only the page's trees are read")
		}
	}

	repo.beforeByID = func() { put("c", big()) }
	list, err := s.Trees(ctx, TreeRequest{GameID: game}, 1, 20)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, names(list), "c grew past the bound meanwhile")
	require.True(t, list.More)

	for _, bad := range [][2]int{{0, 20}, {1, 0}, {1, MaxListedTrees + 1}} {
		_, err := s.Trees(ctx, TreeRequest{GameID: game}, bad[0], bad[1])
		require.Equal(t, errs.Invalid, errs.KindOf(err), "page %d, limit %d", bad[0], bad[1])
	}
}
