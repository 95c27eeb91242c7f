package touchpoints

import (
	"math/rand/v2"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
)

func dynNode(limit int, kids ...Node) Node {
	return Node{DataType: DataDynamic, Query: &Query{Type: QueryRewards, Limit: limit}, ActionPrefix: "store://r/", Nodes: kids}
}

// nested is a chain of n DYNAMIC nodes, each under the last: the 548-byte tree that expanded to
// ~20^n nodes.
func nested(n int) []Node {
	var cur []Node
	for range n {
		cur = []Node{dynNode(20, cur...)}
	}
	return cur
}

func TestTreeLimits(t *testing.T) {
	t.Parallel()
	_, err := validateTree(nested(2))
	require.ErrorContains(t, err, "cannot be under another DYNAMIC node")
	_, err = validateTree(nested(6))
	require.Error(t, err)

	// 20 copies of 100 nodes: 2,000 served, the bound; one more child is over it.
	kids := make([]Node, 99)
	refs, err := validateTree([]Node{dynNode(20, kids...)})
	require.NoError(t, err)
	require.Len(t, refs.dynamic, 1)
	_, err = validateTree([]Node{dynNode(20, append(kids, Node{})...)})
	require.Equal(t, ErrTreeTooLarge.Code, errs.CodeOf(err))
	require.ErrorContains(t, err, "2020")

	// The default limit (10) counts as 10.
	_, err = validateTree([]Node{dynNode(0, make([]Node, 199)...)})
	require.NoError(t, err)
	_, err = validateTree([]Node{dynNode(0, make([]Node, 200)...)})
	require.Equal(t, ErrTreeTooLarge.Code, errs.CodeOf(err))

	// At most 10 DYNAMIC nodes: each is a query on every read.
	many := make([]Node, 11)
	for i := range many {
		many[i] = dynNode(1)
	}
	_, err = validateTree(many[:10])
	require.NoError(t, err)
	_, err = validateTree(many)
	require.ErrorContains(t, err, "at most 10 DYNAMIC nodes")
}

// Whatever is stored (a tree from before the limits), the expander never serves more than
// MaxServedNodes nodes.
func TestExpanderBudget(t *testing.T) {
	t.Parallel()
	tree := nested(6)
	e := &expander{left: MaxServedNodes, dynamic: map[uuid.UUID][]dynItem{}}
	var ids func([]Node)
	ids = func(ns []Node) {
		for i := range ns {
			ns[i].ID = uuid.New()
			items := make([]dynItem, 20)
			for j := range items {
				items[j] = dynItem{product: &catalogueProduct1}
			}
			e.dynamic[ns[i].ID] = items
			ids(ns[i].Nodes)
		}
	}
	ids(tree)
	served := e.nodes(tree)
	require.LessOrEqual(t, countNodes(served), MaxServedNodes)
	require.Equal(t, MaxServedNodes, countNodes(served), "the budget is used, not more")
}

func countNodes(ns []Node) int {
	n := 0
	for _, k := range ns {
		n += 1 + countNodes(k.Nodes)
		if k.Popup != nil {
			n += countNodes([]Node{*k.Popup})
		}
	}
	return n
}

// randomTree builds a random tree from seed: nodes of every data type at random depths, with
// popups and queries of random limits.
func randomTree(r *rand.Rand, depth int) []Node {
	n := r.IntN(8)
	if depth > 7 {
		return nil
	}
	out := make([]Node, n)
	rid := uuid.New()
	for i := range out {
		switch r.IntN(4) {
		case 0:
			out[i] = dynNode(r.IntN(22))
		case 1:
			out[i] = Node{DataType: DataStatic, RewardID: &rid}
		default:
			out[i] = Node{}
		}
		if r.IntN(2) == 0 {
			out[i].Nodes = randomTree(r, depth+1)
		}
		if r.IntN(6) == 0 {
			p := Node{Nodes: randomTree(r, depth+2)}
			out[i].Popup = &p
		}
	}
	return out
}

// FuzzTreeValidator: no tree the validator accepts serves more than MaxServedNodes nodes, even
// when every DYNAMIC query finds as many items as its limit allows. `go test -fuzz
// FuzzTreeValidator ./core/touchpoints/` searches further than the seed corpus.
func FuzzTreeValidator(f *testing.F) {
	for _, seed := range []uint64{1, 2, 3, 42, 548, 2000, 65537, 1 << 40} {
		f.Add(seed, uint64(7))
	}
	f.Fuzz(func(t *testing.T, a, b uint64) {
		r := rand.New(rand.NewPCG(a, b))
		tree := randomTree(r, 1)
		if _, err := validateTree(tree); err != nil {
			return // refused: nothing is served
		}
		require.LessOrEqual(t, ServedSize(tree), MaxServedNodes)
		// Expand with every query full (its limit, 10 when unset), and no budget to lean on.
		e := &expander{left: 1 << 30, dynamic: map[uuid.UUID][]dynItem{}}
		var fill func([]Node)
		fill = func(ns []Node) {
			for _, n := range ns {
				if n.DataType == DataDynamic {
					limit := n.Query.Limit
					if limit == 0 {
						limit = 10
					}
					items := make([]dynItem, limit)
					for j := range items {
						items[j] = dynItem{product: &catalogueProduct1}
					}
					e.dynamic[n.ID] = items
				}
				fill(n.Nodes)
				if n.Popup != nil {
					fill([]Node{*n.Popup})
				}
			}
		}
		fill(tree)
		require.LessOrEqual(t, countNodes(e.nodes(tree)), MaxServedNodes)
	})
}
