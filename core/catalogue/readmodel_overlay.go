package catalogue

import (
	"github.com/google/uuid"
)

// snapshotSearch is what a snapshot searches. After a whole load it is one index of its rewards.
// After a change of some rewards (withChanges) it is the last snapshot's index as it stands, the
// base, whose entries of the changed and gone rewards are masked, plus an overlay: an index of
// the rewards changed since the base was made. A search asks both and merges their matches: a
// reward's rank depends on its own texts alone (textRank and wordSimilarity read nothing of
// the others), and the matches are sorted afterwards in a total order, so the answers are
// exactly a whole index's. A change thus indexes the changed rewards alone, and the new
// snapshot holds no second copy of the large index (about 45 MB at 100,000 rewards) while it
// is made; once the masked and overlaid rewards pass a share of the snapshot (stale) the next
// change makes one index of every reward again.
type snapshotSearch struct {
	base, overlay searchPart
	// stale is how many rewards the base holds masked or the overlay holds.
	stale int
}

// searchPart is an index whose reward r is the snapshot's reward to[r] (nil: r itself), or is
// masked (-1).
type searchPart struct {
	x  *searchIndex
	to []int32
}

// at is the snapshot's index of the part's reward r, or -1.
func (p *searchPart) at(r int32) int32 {
	if p.to == nil {
		return r
	}
	return p.to[r]
}

// rewards is how many rewards the part's index holds, masked ones included.
func (p *searchPart) rewards() int {
	if p.x == nil {
		return 0
	}
	return len(p.x.entOff) - 1
}

// parts are the indexes to ask, the base first.
func (s *snapshotSearch) parts() []*searchPart {
	if s.overlay.x == nil {
		return []*searchPart{&s.base}
	}
	return []*searchPart{&s.base, &s.overlay}
}

// maxStaleShare: a change whose snapshot would hold more than one in maxStaleShare of its
// rewards masked in the base or in the overlay makes one index of every reward again. The
// overlay's index is rebuilt at each change, so it stays small: at 100,000 rewards at most 6,250
// rewards (about 3 MB).
const maxStaleShare = 16

// wholeSearch is the search of a snapshot indexed whole.
func wholeSearch(x *searchIndex) *snapshotSearch { return &snapshotSearch{base: searchPart{x: x}} }

// with is the search of s, whose entry i was entry from[i] of the snapshot p searches, or is a
// changed reward (-1) whose texts are in texts; to is from turned around (inverse). The changed
// rewards and those the overlay held are indexed again in an overlay, from texts or from the
// overlay as they are; or every reward is, when they would be too many (maxStaleShare).
func (p *snapshotSearch) with(s *Snapshot, from, to []int32, texts map[uuid.UUID]SearchText) (*snapshotSearch, error) {
	n := len(to)
	// The base's entries move to their new places; the overlay's rewards, by s's index.
	out := &snapshotSearch{base: searchPart{x: p.base.x, to: make([]int32, p.base.rewards())}}
	for r := range out.base.to {
		out.base.to[r] = -1
		if j := p.base.at(int32(r)); j >= 0 {
			out.base.to[r] = to[j]
		}
	}
	overlaid := make([]int32, n) // p's snapshot's entry → its reward in p's overlay, plus one
	for r := range p.overlay.rewards() {
		if j := p.overlay.at(int32(r)); j >= 0 {
			overlaid[j] = int32(r) + 1
		}
	}
	var again []int32 // s's rewards the overlay holds, ascending
	for i, j := range from {
		if j < 0 || overlaid[j] > 0 {
			again = append(again, int32(i))
		}
	}
	out.stale = out.base.rewards() - (len(s.rewards) - len(again)) + len(again)
	id := func(i int) uuid.UUID { return s.rewards[i].reward.ID }
	base := p.base.x
	if out.stale*maxStaleShare > len(s.rewards) {
		// Every reward again, each from where it is indexed (no text is read again).
		t := NewSearchTexts(len(s.rewards))
		t.roomFor(base)
		inBase := make([]int32, len(s.rewards)) // s's entry → its reward in the base, plus one
		for r, i := range out.base.to {
			if i >= 0 {
				inBase[i] = int32(r) + 1
			}
		}
		fromBase, fromOverlay := copying(base), (*copied)(nil)
		if p.overlay.x != nil {
			fromOverlay = copying(p.overlay.x)
		}
		for i := range s.rewards {
			switch j := from[i]; {
			case inBase[i] > 0:
				t.copy(id(i), fromBase, inBase[i]-1)
			case j >= 0 && overlaid[j] > 0:
				t.copy(id(i), fromOverlay, overlaid[j]-1)
			default:
				t.Add(id(i), texts[id(i)])
			}
		}
		x, err := newSearchIndex(len(s.rewards), id, t, base.brandNames, base.categoryNames)
		if err != nil {
			return nil, err
		}
		return wholeSearch(x), nil
	}
	if len(again) == 0 {
		return out, nil
	}
	t := NewSearchTexts(len(again))
	var fromOverlay *copied
	if p.overlay.x != nil {
		fromOverlay = copying(p.overlay.x)
	}
	for _, i := range again {
		if j := from[i]; j >= 0 {
			t.copy(id(int(i)), fromOverlay, overlaid[j]-1)
		} else {
			t.Add(id(int(i)), texts[id(int(i))])
		}
	}
	x, err := newSearchIndex(len(again), func(r int) uuid.UUID { return id(int(again[r])) }, t, nil, nil)
	if err != nil {
		return nil, err
	}
	out.overlay = searchPart{x: x, to: again}
	return out, nil
}
