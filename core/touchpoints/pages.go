package touchpoints

import "github.com/google/uuid"

// MaxPageNodes bounds the nodes one page of a game's trees serves, all its trees together: a
// game may hold any number of trees of up to MaxServedNodes each, and an answer must stay
// small whatever it holds.
const MaxPageNodes = 5000

// TreeSize is what paging reads of a stored tree: its place in the list and the most nodes it
// serves (Tree.Served).
type TreeSize struct {
	ID     uuid.UUID
	Name   string
	Served int
}

// TreeList is one page of a game's trees, served.
type TreeList struct {
	Trees []Tree
	// Total is how many trees the game has.
	Total int
	// More reports whether trees follow the page.
	More bool
}

// pageOf packs trees that serve at most served[i] nodes each, in list order, into pages and
// returns the bounds [lo, hi) of the page-th (from 1): a page takes trees while it holds fewer
// than limit and the nodes they serve together stay within MaxPageNodes, and it holds at least
// one tree. Packing from the first tree every time makes the pages the same on every read of
// the same trees, so walking them lists each tree once. A page past the last is empty, at the
// end. Page k needs only the first k × limit trees.
func pageOf(served []int, page, limit int) (lo, hi int) {
	for k := 1; lo < len(served); k++ {
		hi, sum := lo, 0
		for hi < len(served) && hi-lo < limit {
			// The expander serves no tree more than MaxServedNodes, whatever is stored.
			n := min(max(served[hi], 0), MaxServedNodes)
			if hi > lo && sum+n > MaxPageNodes {
				break
			}
			sum += n
			hi++
		}
		if k == page {
			return lo, hi
		}
		lo = hi
	}
	return len(served), len(served)
}
