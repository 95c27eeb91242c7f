package catalogue

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math/bits"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/google/uuid"
	lru "github.com/hashicorp/golang-lru/v2"
)

// SearchText is what a reward is searched by, as the storage keeps it: Name (the reward's and
// brand's names and their translations, lower case), Vector (the words of the names, weight A,
// and of the descriptions and category names, weight B, with their places: scanTSVector) and
// LowerName (the reward's name, lower case).
type SearchText struct {
	Name, Vector, LowerName string
}

// Bounds of the search views a snapshot keeps: the sorted matches of a query, for its pages.
const (
	maxSearchViews   = 1024
	maxSearchViewIDs = 1 << 20 // reward indexes held by all of them (12 bytes each with relevance)
)

// searchIndex is the snapshot's search: an inverted index of the rewards' lexemes (full text,
// every word as a prefix) and of their names' trigrams (typos), with the places textRank and
// wordSimilarity rank a match by (textmatch.go).
type searchIndex struct {
	// lexemes are every lexeme of every reward, sorted: a prefix is a range of ids.
	lexemes []string
	// lexPost's list l are the rewards (indexes, ascending) with lexeme l, lexPostN[l] how many
	// rewards the lists before l hold.
	lexPost  uvarintLists
	lexPostN []int32
	// entLex[entOff[r]:entOff[r+1]] are reward r's lexemes (ids, ascending), and positions
	// their positions.
	entOff, entLex []int32
	positions      tsPositions

	// trigrams numbers every trigram of the rewards' names (and of the brand and category names).
	trigrams map[string]int32
	// nameTrg's list r are the trigrams of reward r's search name, in order.
	nameTrg uvarintLists
	// trgPost's list t are the rewards whose names have trigram t, each once, ascending.
	trgPost   uvarintLists
	lowerName []string

	// brandNames and categoryNames are every brand's and category's lower(name), by code,
	// active or not: the filters by name match them, and a filter naming none is ignored.
	brandNames, categoryNames map[string]string
	// names holds the trigrams of each brand and category name, by lower(name).
	names map[string]nameTrigrams
}

// searchViews are the sorted matches of the searches a snapshot answered, most recent kept.
type searchViews struct {
	once  sync.Once
	cache *lru.Cache[searchKey, *searchView]
	ids   atomic.Int64
	// names are the brands and categories searches found, by game and text.
	names *lru.Cache[nameKey, *nameMatches]
}

type nameKey struct {
	game uuid.UUID
	text string
}

// nameMatches are the brands and categories matching a search, valid as long as the game's
// counts (gameMeta) they come from.
type nameMatches struct {
	brands     []BrandMeta
	categories []CategoryMeta
	validUntil time.Time
}

func (v *searchViews) init() {
	v.once.Do(func() {
		v.cache, _ = lru.NewWithEvict(maxSearchViews, func(_ searchKey, sv *searchView) { v.ids.Add(-int64(len(sv.ids))) })
		v.names, _ = lru.New[nameKey, *nameMatches](maxSearchViews)
	})
}

// nameTrigrams are a short name's trigrams, in order and as a sorted set.
type nameTrigrams struct{ seq, set []string }

func trigramsOfName(s string) nameTrigrams {
	return nameTrigrams{seq: appendTrigrams(nil, s), set: uniqueTrigrams(s)}
}

// SearchTexts is the first pass of a snapshot's search index over its rewards' search texts,
// made reward by reward as a load reads them (Add), so that the texts are never all held at
// once: each vector's lexemes numbered as they come and its positions laid out, each search
// name's trigrams numbered. The snapshot finishes the index in the background (lexemes in
// sorted order, postings). Its rewards must be added in the snapshot's order (the load's, by
// id); a snapshot whose rewards differ does not search from memory.
type SearchTexts struct {
	ids    []uuid.UUID
	lexIDs map[string]int32 // first numbering, in order of appearance
	// entLex[entOff[r]:entOff[r+1]] are reward r's lexemes (first numbers, ascending in the
	// vector's order, which is the lexemes' sorted order), and positions their positions.
	entOff, entLex []int32
	positions      tsPositions
	trigrams       map[string]int32
	nameTrg        uvarintLists
	lowerName      []string
	err            error // the first text that could not be read: the rest are skipped
	expect         int   // rewards to come in all (NewSearchTexts)

	posBuf []tsPos
	trgBuf []byte
}

// NewSearchTexts returns an empty first pass with room for n rewards.
func NewSearchTexts(n int) *SearchTexts {
	return &SearchTexts{expect: n, ids: make([]uuid.UUID, 0, n), lexIDs: map[string]int32{}, trigrams: map[string]int32{},
		entOff: append(make([]int32, 0, n+1), 0), nameTrg: uvarintLists{at: append(make([]int32, 0, n+1), 0)},
		lowerName: make([]string, 0, n), posBuf: make([]tsPos, 0, 64), positions: tsPositions{at: make([]int32, 0, n+1)}}
}

// Add indexes the search texts of the next reward, id. After a text that cannot be read, Add
// does nothing: Err says why.
func (t *SearchTexts) Add(id uuid.UUID, text SearchText) {
	if t.err != nil {
		return
	}
	t.positions.at = append(t.positions.at, int32(len(t.positions.pos)))
	err := scanTSVector(text.Vector, t.posBuf, func(lex string, pos []tsPos) {
		n, ok := t.lexIDs[lex]
		if !ok {
			n = int32(len(t.lexIDs))
			t.lexIDs[strings.Clone(lex)] = n // not the vector's text it was cut from
		}
		t.positions.add(int32(len(t.entLex)), pos)
		t.entLex = append(t.entLex, n)
	})
	if err != nil {
		t.err = fmt.Errorf("reward %s: %w", id, err)
		return
	}
	t.trgBuf = eachTrigram(t.trgBuf, text.Name, func(g []byte) {
		n, ok := t.trigrams[string(g)] // no copy of g to look it up
		if !ok {
			n = int32(len(t.trigrams))
			t.trigrams[string(g)] = n
		}
		t.nameTrg.data = binary.AppendUvarint(t.nameTrg.data, uint64(n))
	})
	t.ids = append(t.ids, id)
	if len(t.ids) == sampleTexts && t.expect > 2*sampleTexts {
		t.makeRoom()
	}
	t.entOff = append(t.entOff, int32(len(t.entLex)))
	t.nameTrg.at = append(t.nameTrg.at, int32(len(t.nameTrg.data)))
	t.lowerName = append(t.lowerName, text.LowerName)
}

// sampleTexts is how many rewards' texts tell how much room the rest will take.
const sampleTexts = 2000

// makeRoom makes room at once for the texts of every reward to come, from what the first took
// (a few percent more), rather than growing the arrays as they fill: each growth copies the
// array and leaves the old one as garbage, and at the end the arrays hold up to a quarter more
// than they use (which newSearchIndex then copies away).
func (t *SearchTexts) makeRoom() {
	room := func(have int) int { return int(float64(have) / float64(len(t.ids)) * float64(t.expect) * 1.03) }
	t.entLex = slices.Grow(t.entLex, room(len(t.entLex))-len(t.entLex))
	t.positions.n = slices.Grow(t.positions.n, room(len(t.positions.n))-len(t.positions.n))
	t.positions.pos = slices.Grow(t.positions.pos, room(len(t.positions.pos))-len(t.positions.pos))
	t.nameTrg.data = slices.Grow(t.nameTrg.data, room(len(t.nameTrg.data))-len(t.nameTrg.data))
}

// Err is the first text Add could not read, if any.
func (t *SearchTexts) Err() error { return t.err }

// searchTextsOf is the first pass over texts (by id) in the order of s's rewards; a reward
// without texts matches nothing.
func searchTextsOf(s *Snapshot, texts map[uuid.UUID]SearchText) *SearchTexts {
	t := NewSearchTexts(len(s.rewards))
	entries, positions := 0, 0 // about: room for them at once
	for i := range s.rewards {
		v := texts[s.rewards[i].reward.ID].Vector
		n := strings.Count(v, "':")
		entries, positions = entries+n, positions+n+strings.Count(v, ",")
	}
	t.entLex, t.positions.n, t.positions.pos = make([]int32, 0, entries), make([]uint8, 0, entries), make([]tsPos, 0, positions)
	t.expect = 0 // room made for them all: none to guess
	for i := range s.rewards {
		t.Add(s.rewards[i].reward.ID, texts[s.rewards[i].reward.ID])
	}
	return t
}

// copied renumbers the lexemes and trigrams of an old index into a first pass that copies
// rewards from it (SearchTexts.copy): each old number's first number, plus one (0: none yet).
type copied struct {
	old          *searchIndex
	lexemes      []int32
	trigrams     []int32
	trigramNames []string // old number → trigram
}

func copying(old *searchIndex) *copied {
	c := &copied{old: old, lexemes: make([]int32, len(old.lexemes)), trigrams: make([]int32, len(old.trigrams)),
		trigramNames: make([]string, len(old.trigrams))}
	for g, n := range old.trigrams {
		c.trigramNames[n] = g
	}
	return c
}

// copy adds reward j of c's old index as the next reward, id: its lexemes, positions and name
// trigrams taken as they are, not read again.
func (t *SearchTexts) copy(id uuid.UUID, c *copied, j int32) {
	if t.err != nil {
		return
	}
	old := c.old
	t.positions.at = append(t.positions.at, int32(len(t.positions.pos)))
	at := old.positions.at[j]
	for e := old.entOff[j]; e < old.entOff[j+1]; e++ {
		n := old.positions.count(e)
		t.positions.add(int32(len(t.entLex)), old.positions.pos[at:at+n])
		at += n
		t.entLex = append(t.entLex, renumbered(c.lexemes, old.entLex[e], old.lexemes, t.lexIDs))
	}
	for g := range old.nameTrg.list(j, false) {
		t.nameTrg.data = binary.AppendUvarint(t.nameTrg.data, uint64(renumbered(c.trigrams, g, c.trigramNames, t.trigrams)))
	}
	t.ids = append(t.ids, id)
	t.entOff = append(t.entOff, int32(len(t.entLex)))
	t.nameTrg.at = append(t.nameTrg.at, int32(len(t.nameTrg.data)))
	t.lowerName = append(t.lowerName, old.lowerName[j])
}

// renumbered is the first number in numbers of the text names[n] numbered n in an old index,
// numbering it the first time (seen keeps it, plus one, by n).
func renumbered(seen []int32, n int32, names []string, numbers map[string]int32) int32 {
	if m := seen[n]; m > 0 {
		return m - 1
	}
	m, ok := numbers[names[n]]
	if !ok {
		m = int32(len(numbers))
		numbers[names[n]] = m
	}
	seen[n] = m + 1
	return m
}

// roomFor makes room in an empty first pass for about what the old indexes' rewards hold
// (a percent more).
func (t *SearchTexts) roomFor(olds ...*searchIndex) {
	var entries, positions, trigrams, lexemes, names int
	for _, old := range olds {
		entries += len(old.entLex)
		positions += len(old.positions.pos)
		trigrams += len(old.nameTrg.data)
		lexemes = max(lexemes, len(old.lexemes))
		names = max(names, len(old.trigrams))
	}
	t.expect = 0 // room made: none to guess
	t.entLex = make([]int32, 0, entries+entries/100)
	t.positions.n = make([]uint8, 0, cap(t.entLex))
	t.positions.pos = make([]tsPos, 0, positions+positions/100)
	t.nameTrg.data = make([]byte, 0, trigrams+trigrams/100)
	t.lexIDs = make(map[string]int32, lexemes)
	t.trigrams = make(map[string]int32, names)
}

// newSearchIndex finishes the index of n rewards, the ith id(i), from the first pass t (which it
// takes over: its arrays become the index's). Without brand names (nil) it matches no brand or
// category names (an overlay's: the snapshot's are its base's).
func newSearchIndex(n int, id func(i int) uuid.UUID, t *SearchTexts, brandNames, categoryNames map[string]string) (*searchIndex, error) {
	if t.err != nil {
		return nil, t.err
	}
	if len(t.ids) != n {
		return nil, fmt.Errorf("search texts of %d rewards for a snapshot of %d", len(t.ids), n)
	}
	for i := range n {
		if t.ids[i] != id(i) {
			return nil, fmt.Errorf("search texts out of the snapshot's order at reward %s", id(i))
		}
	}
	// Appends leave room beyond what they hold: the index keeps its arrays at their size.
	p := t.positions
	x := &searchIndex{entOff: t.entOff, entLex: exact(t.entLex),
		positions: tsPositions{pos: exact(p.pos), at: append(p.at, int32(len(p.pos))), n: exact(p.n), many: p.many}, trigrams: t.trigrams, nameTrg: uvarintLists{data: exact(t.nameTrg.data), at: t.nameTrg.at}, lowerName: t.lowerName,
		brandNames: brandNames, categoryNames: categoryNames, names: map[string]nameTrigrams{}}
	x.lexemes = make([]string, len(t.lexIDs))
	for l, id := range t.lexIDs {
		x.lexemes[id] = l
	}
	*t = SearchTexts{err: errors.New("taken by a snapshot's index")}
	order := make([]int32, len(x.lexemes)) // sorted place → first number
	for n := range order {
		order[n] = int32(n)
	}
	slices.SortFunc(order, func(a, b int32) int { return strings.Compare(x.lexemes[a], x.lexemes[b]) })
	renumber := make([]int32, len(order))
	sorted := make([]string, len(order))
	for n, id := range order {
		renumber[id] = int32(n)
		sorted[n] = x.lexemes[id]
	}
	x.lexemes = sorted
	for e, id := range x.entLex {
		x.entLex[e] = renumber[id]
	}
	x.lexPost, x.lexPostN = postings(len(x.lexemes), func(add func(key, r int32)) {
		for r := range n {
			for _, e := range x.entLex[x.entOff[r]:x.entOff[r+1]] {
				add(e, int32(r))
			}
		}
	})

	last := make([]int32, len(x.trigrams))
	x.trgPost, _ = postings(len(x.trigrams), func(add func(key, r int32)) {
		for i := range last {
			last[i] = -1
		}
		for r := range n {
			for t := range x.nameTrg.list(int32(r), false) {
				if last[t] != int32(r) {
					last[t] = int32(r)
					add(t, int32(r))
				}
			}
		}
	})
	for _, name := range brandNames {
		x.names[name] = trigramsOfName(name)
	}
	for _, name := range categoryNames {
		x.names[name] = trigramsOfName(name)
	}
	return x, nil
}

// tsPositions are the positions of every entry of every reward in one slice: reward r's from
// at[r], its entries' one after the other, entry e having n[e] of them. A vector holds at most
// 256 places of a word; the few counts a byte cannot hold (255 or more) are in many.
type tsPositions struct {
	pos  []tsPos
	at   []int32 // by reward
	n    []uint8 // by entry
	many map[int32]int32
}

const manyPositions = 255

// add appends entry e's positions; e is the next entry.
func (p *tsPositions) add(e int32, pos []tsPos) {
	n := uint8(min(len(pos), manyPositions))
	if n == manyPositions {
		if p.many == nil {
			p.many = map[int32]int32{}
		}
		p.many[e] = int32(len(pos))
	}
	p.n = append(p.n, n)
	p.pos = append(p.pos, pos...)
}

func (p *tsPositions) count(e int32) int32 {
	if n := p.n[e]; n != manyPositions {
		return int32(n)
	}
	return p.many[e]
}

// of appends to dst the positions of each entry from lo to hi of reward r, whose entries begin
// at first.
func (p *tsPositions) of(dst [][]tsPos, r, first, lo, hi int32) [][]tsPos {
	at := p.at[r]
	for e := first; e < lo; e++ {
		at += p.count(e)
	}
	for e := lo; e < hi; e++ {
		n := p.count(e)
		dst = append(dst, p.pos[at:at+n])
		at += n
	}
	return dst
}

// exact is s in an array of its length: s itself when it has no room beyond it.
func exact[E any](s []E) []E {
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	return slices.Clone(s)
}

// postings lays out the ascending lists of keys keys (uvarintLists of differences): each calls
// add for every (key, reward) in reward order, and is called twice. n[k] is how many rewards
// the lists before key k hold.
func postings(keys int, each func(add func(key, r int32))) (lists uvarintLists, n []int32) {
	at, n := make([]int32, keys+1), make([]int32, keys+1)
	last := make([]int32, keys) // each list's last reward (0 before its first)
	each(func(k, r int32) {
		at[k+1] += int32(uvarintLen(uint32(r - last[k])))
		n[k+1]++
		last[k] = r
	})
	for k := 1; k <= keys; k++ {
		at[k] += at[k-1]
		n[k] += n[k-1]
	}
	data := make([]byte, at[keys])
	next := slices.Clone(at[:keys])
	clear(last)
	each(func(k, r int32) {
		next[k] += int32(binary.PutUvarint(data[next[k]:], uint64(r-last[k])))
		last[k] = r
	})
	return uvarintLists{data: data, at: at}, n
}

// uvarintLists are lists of whole numbers laid out in one slice of bytes as uvarints (most of
// them one or two bytes, where an int32 is four): list i is data[at[i]:at[i+1]]. An ascending
// list holds each number's difference from the one before it (the first's from 0).
type uvarintLists struct {
	data []byte
	at   []int32
}

// list yields the numbers of list i; ascending: it holds differences.
func (l uvarintLists) list(i int32, ascending bool) iter.Seq[int32] {
	return func(yield func(int32) bool) {
		data, last := l.data[l.at[i]:l.at[i+1]], int32(0)
		for len(data) > 0 {
			var v int32
			if b := data[0]; b < 0x80 {
				v, data = int32(b), data[1:]
			} else {
				u, n := binary.Uvarint(data)
				v, data = int32(u), data[n:]
			}
			if ascending {
				last += v
				v = last
			}
			if !yield(v) {
				return
			}
		}
	}
}

func uvarintLen(v uint32) int { return (bits.Len32(v|1) + 6) / 7 }

// tsWords are the words of a search (runs of letters and digits, lower case), each a prefix to
// match: sorted, each once. many says there were two or more before duplicates went.
func tsWords(text string) (words []string, many bool) {
	words = strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	many = len(words) >= 2
	slices.Sort(words)
	return slices.Compact(words), many
}

// searchKey is what a search's sorted matches depend on: everything but its page and clock.
type searchKey struct {
	game, coin   uuid.UUID
	coinsPerUnit int64
	country      string
	order        Order
	text         string
	brands       string
	categories   string
}

// searchView is a query's matches, sorted, with their relevance, valid until the first end date
// among them.
type searchView struct {
	ids        []int32
	relevance  []float64
	validUntil time.Time
}

// searchBuild is a snapshot's search index, built in the background.
type searchBuild struct {
	done chan struct{}
	idx  *snapshotSearch
	err  error // a search text the index could not read: the snapshot does not search
}

// Searches reports whether the snapshot's search index is built, so Search answers at once; until
// then (a second or two after a load of 100,000 rewards) a search waits for it.
func (s *Snapshot) Searches() bool {
	if s.search == nil {
		return false
	}
	select {
	case <-s.search.done:
		return s.search.idx != nil
	default:
		return false
	}
}

// SearchIndexErr waits for the search index and returns why it could not be built, if it could
// not (nil too when the snapshot was loaded without search texts).
func (s *Snapshot) SearchIndexErr() error {
	if s.search == nil {
		return nil
	}
	<-s.search.done
	return s.search.err
}

// searchable waits for the snapshot's search index and says why there is none, if there is
// none: a search text could not be read (SearchIndexErr), or the snapshot was loaded without
// search texts. Search and its kin are called once it returns nil.
func (s *Snapshot) searchable() error {
	if s.search == nil {
		return errors.New("catalogue: a snapshot loaded without search texts does not search")
	}
	<-s.search.done
	if s.search.idx == nil {
		return fmt.Errorf("catalogue: the search index: %w", s.search.err)
	}
	return nil
}

// index waits for the search index (Search and its kin are called once searchable says so).
func (s *Snapshot) index() *snapshotSearch {
	<-s.search.done
	if s.search.idx == nil {
		panic(fmt.Sprintf("catalogue: a snapshot without a search index searched: %v", s.search.err))
	}
	return s.search.idx
}

// Search returns a page of the visible rewards matching q.Text, in q's order (Compare; by
// relevance, an exact reward or brand name first), and the total (Free left unset). Full text
// first, every word as a prefix of a word of the names, descriptions or categories; when that
// finds nothing, the closest names (word similarity), as a typo (textmatch.go).
func (s *Snapshot) Search(q SearchQuery) ([]Listed, int64) {
	text := strings.ToLower(strings.TrimSpace(q.Text))
	k := searchKey{game: q.GameID, coin: q.CoinID, coinsPerUnit: q.CoinsPerUnit, country: q.Country, order: q.Order, text: text,
		brands: strings.Join(q.Brands, "\x00"), categories: strings.Join(q.Categories, "\x00")}
	views := &s.searchViews
	views.init()
	v, ok := views.cache.Get(k)
	if !ok || !(v.validUntil.IsZero() || q.Now.Before(v.validUntil)) {
		v = s.searchView(q, text)
		if len(v.ids) <= maxSearchViewIDs/4 {
			views.ids.Add(int64(len(v.ids)))
			views.cache.Add(k, v)
			for views.ids.Load() > maxSearchViewIDs {
				if _, _, ok := views.cache.RemoveOldest(); !ok {
					break
				}
			}
		}
	}
	game := s.games[q.GameID]
	total := int64(len(v.ids))
	lo := min(max(q.Offset, 0), len(v.ids))
	hi := min(lo+max(q.Limit, 0), len(v.ids))
	out := make([]Listed, 0, hi-lo)
	for n := lo; n < hi; n++ {
		l := s.listed(game, v.ids[n], q.CoinID, q.CoinsPerUnit)
		l.Relevance = v.relevance[n]
		if q.Order != OrderMostOrdered {
			l.Orders30d = 0
		}
		l.Orders7d = 0
		out = append(out, l)
	}
	return out, total
}

// searchView finds and sorts the matches of q.
func (s *Snapshot) searchView(q SearchQuery, text string) *searchView {
	x := s.index()
	game := s.games[q.GameID]
	keep := s.searchFilter(q, game)
	brandNames := x.base.x.brandNames
	// exact is the bonus of the part's reward r, the snapshot's i, whose name is the search's.
	exact := func(p *searchPart, r, i int32) float64 {
		if p.x.lowerName[r] == text || brandNames[s.rewards[i].reward.BrandCode] == text {
			return 2
		}
		return 0
	}
	var keys []sortKey
	words, many := tsWords(text)
	for _, p := range x.parts() {
		keys = p.fullText(keys, words, many, keep, exact)
	}
	if len(keys) == 0 {
		for _, p := range x.parts() {
			keys = p.closestNames(keys, text, keep, exact)
		}
	}
	for n := range keys {
		i := keys[n].idx
		r := s.rewards[i].reward
		keys[n].price = r.CoinPrice(r.MinFace(), q.CoinsPerUnit, s.override(game, i, q.CoinID))
		keys[n].discount, keys[n].mode, keys[n].xscore = r.DiscountOnMRP(), modeRank(*r), r.XScore
		keys[n].created, keys[n].id, keys[n].end = r.CreatedAt.UnixMicro(), r.ID, r.EndDate
		keys[n].orders = s.orders[i].Last30d
	}
	perm := make([]int32, len(keys)) // sorted by place: the keys are large to move
	for n := range perm {
		perm[n] = int32(n)
	}
	slices.SortFunc(perm, func(a, b int32) int { return compareKeys(q.Order, &keys[a], &keys[b]) })
	v := &searchView{ids: make([]int32, len(keys)), relevance: make([]float64, len(keys))}
	for n, p := range perm {
		k := &keys[p]
		v.ids[n], v.relevance[n] = k.idx, k.relevance
		if end := k.end; end != nil && (v.validUntil.IsZero() || end.Before(v.validUntil)) {
			v.validUntil = *end
		}
	}
	return v
}

// searchFilter is which rewards a search may find: visible to the game's players (in the
// country, if any), of the brands and categories asked for by code or name, each filter ignored
// when it names nothing known.
func (s *Snapshot) searchFilter(q SearchQuery, game *gameView) func(i int32) bool {
	x := s.index().base.x
	matches := func(asked []string, names map[string]string) func(code string) bool {
		if len(asked) == 0 {
			return nil
		}
		codes, lower := map[string]bool{}, map[string]bool{}
		for _, a := range asked {
			codes[a], lower[strings.ToLower(a)] = true, true
		}
		is := func(code string) bool { return codes[code] || lower[names[code]] }
		for code := range names {
			if is(code) {
				return is
			}
		}
		return nil // none known: ignored
	}
	brand := matches(q.Brands, x.brandNames)
	category := matches(q.Categories, x.categoryNames)
	return func(i int32) bool {
		if !s.visible(game, i, q.Country, q.Now) {
			return false
		}
		e := &s.rewards[i]
		if brand != nil && !brand(e.brand.Code) {
			return false
		}
		if category != nil && !slices.ContainsFunc(s.brandCats[e.brand.Code], func(ci int) bool { return category(s.categories[ci].Code) }) {
			return false
		}
		return true
	}
}

// fullText appends to keys the part's rewards keep allows (by the snapshot's index) with every
// word (tsWords) as a prefix of one of their lexemes, each with its textRank, plus exact's bonus,
// as relevance.
func (p *searchPart) fullText(keys []sortKey, words []string, many bool, keep func(int32) bool, exact func(p *searchPart, r, i int32) float64) []sortKey {
	x := p.x
	if len(words) == 0 {
		return keys
	}
	type span struct{ lo, hi int32 }
	spans := make([]span, len(words))
	rarest := 0
	for n, w := range words {
		lo := sort.SearchStrings(x.lexemes, w)
		hi := lo
		for hi < len(x.lexemes) && strings.HasPrefix(x.lexemes[hi], w) {
			hi++
		}
		if lo == hi {
			return keys
		}
		spans[n] = span{int32(lo), int32(hi)}
		if x.lexPostN[hi]-x.lexPostN[lo] < x.lexPostN[spans[rarest].hi]-x.lexPostN[spans[rarest].lo] {
			rarest = n
		}
	}
	// entries of reward r whose lexemes are in sp
	entries := func(r int32, sp span) (int32, int32) {
		ent := x.entLex[x.entOff[r]:x.entOff[r+1]]
		lo, _ := slices.BinarySearch(ent, sp.lo)
		hi, _ := slices.BinarySearch(ent, sp.hi)
		return x.entOff[r] + int32(lo), x.entOff[r] + int32(hi)
	}
	// A reward is listed once for each of its lexemes in the span: seen keeps the first.
	var seen []uint64
	if spans[rarest].hi-spans[rarest].lo > 1 {
		seen = make([]uint64, (p.rewards()+63)/64)
	}
	keys = slices.Grow(keys, int(x.lexPostN[spans[rarest].hi]-x.lexPostN[spans[rarest].lo]))
	items := make([][][]tsPos, len(words))
	for l := spans[rarest].lo; l < spans[rarest].hi; l++ {
	rewards:
		for r := range x.lexPost.list(l, true) {
			if seen != nil {
				if seen[r/64]&(1<<(r%64)) != 0 {
					continue
				}
				seen[r/64] |= 1 << (r % 64)
			}
			i := p.at(r)
			if i < 0 {
				continue // masked: changed or gone since the part was made
			}
			for n, sp := range spans {
				lo, hi := entries(r, sp)
				if lo == hi {
					continue rewards
				}
				items[n] = x.positions.of(items[n][:0], r, x.entOff[r], lo, hi)
			}
			if keep(i) {
				keys = append(keys, sortKey{idx: i, relevance: float64(textRank(items, many)) + exact(p, r, i)})
			}
		}
	}
	return keys
}

// closestNames appends to keys the part's rewards keep allows (by the snapshot's index) whose
// search name has a stretch like text (wordSimilarityThreshold), each with its word similarity,
// plus exact's bonus, as relevance.
func (p *searchPart) closestNames(keys []sortKey, text string, keep func(int32) bool, exact func(p *searchPart, r, i int32) float64) []sortKey {
	x := p.x
	query := appendTrigrams(nil, text)
	identity := map[string]int32{}
	for _, t := range query {
		if _, ok := identity[t]; !ok {
			identity[t] = int32(len(identity))
		}
	}
	ulen1 := len(identity)
	if ulen1 == 0 {
		return keys
	}
	// A name can reach the threshold only with enough of the query's trigrams: similarity is at
	// most the share of them it has (float32 rounding aside, hence the margin).
	count := map[int32]int{}
	byGlobal := map[int32]int32{}
	for t, id := range identity {
		g, ok := x.trigrams[t]
		if !ok {
			continue
		}
		byGlobal[g] = id
		for r := range x.trgPost.list(g, true) {
			count[r]++
		}
	}
	var seq []int32
	var found []bool
	var lastpos []int32
	local := map[int32]int32{}
	for r, c := range count {
		i := p.at(r)
		if i < 0 || float64(c)/float64(ulen1) < wordSimilarityThreshold-1e-6 || !keep(i) {
			continue
		}
		clear(local)
		seq = seq[:0]
		for g := range x.nameTrg.list(r, false) {
			id, ok := byGlobal[g]
			if !ok {
				if id, ok = local[g]; !ok {
					id = int32(ulen1 + len(local))
					local[g] = id
				}
			}
			seq = append(seq, id)
		}
		n := ulen1 + len(local)
		found = slices.Grow(found[:0], n)[:n]
		for i := range found {
			found[i] = i < ulen1
		}
		lastpos = slices.Grow(lastpos[:0], n)[:n]
		if sim := iterateWordSimilarity(seq, found, ulen1, lastpos); float64(sim) >= wordSimilarityThreshold {
			keys = append(keys, sortKey{idx: i, relevance: float64(sim) + exact(p, r, i)})
		}
	}
	return keys
}

// nameMatch is how a brand's or category's name matches a search: the search begins it, is
// similar to it (similarityThreshold), or is like a stretch of it (wordSimilarityThreshold); and
// the similarity the matches sort by.
func (x *searchIndex) nameMatch(name, text string, q nameTrigrams) (bool, float32) {
	n, ok := x.names[name]
	if !ok {
		n = trigramsOfName(name)
	}
	sim := similarity(n.set, q.set)
	if strings.HasPrefix(name, text) || float64(sim) >= similarityThreshold {
		return true, sim
	}
	// Word similarity is at most the share of the query's trigrams the name has.
	common := commonTrigrams(n.set, q.set)
	if len(q.set) == 0 || float64(common)/float64(len(q.set)) < wordSimilarityThreshold-1e-6 {
		return false, sim
	}
	return float64(wordSimilarity(q.seq, n.seq)) >= wordSimilarityThreshold, sim
}

// names returns the brands and categories matching text (nameMatch), the most similar first,
// each list as its metadata orders ties; found once per snapshot, game and text.
func (s *Snapshot) names(gameID uuid.UUID, text string, now time.Time) *nameMatches {
	views := &s.searchViews
	views.init()
	text = strings.ToLower(text)
	k := nameKey{gameID, text}
	if m, ok := views.names.Get(k); ok && (m.validUntil.IsZero() || now.Before(m.validUntil)) {
		return m
	}
	meta := s.meta(gameID, now)
	x := s.index().base.x
	q := trigramsOfName(text)
	type scored[T any] struct {
		meta T
		sim  float32
	}
	var brands []scored[BrandMeta]
	for _, m := range meta.brands {
		if ok, sim := x.nameMatch(x.brandNames[m.Brand.Code], text, q); ok || text == "" {
			brands = append(brands, scored[BrandMeta]{m, sim})
		}
	}
	var cats []scored[CategoryMeta]
	for _, m := range meta.categories {
		if ok, sim := x.nameMatch(x.categoryNames[m.Category.Code], text, q); ok || text == "" {
			cats = append(cats, scored[CategoryMeta]{m, sim})
		}
	}
	if text == "" { // no similarity: the metadata's order alone
		brands, cats = nil, nil
		for _, m := range meta.brands {
			brands = append(brands, scored[BrandMeta]{meta: m})
		}
		for _, m := range meta.categories {
			cats = append(cats, scored[CategoryMeta]{meta: m})
		}
	}
	// Stable: ties keep the metadata's order (brands by name and code; categories by display
	// order, name and code).
	slices.SortStableFunc(brands, func(a, b scored[BrandMeta]) int { return cmp.Compare(b.sim, a.sim) })
	slices.SortStableFunc(cats, func(a, b scored[CategoryMeta]) int { return cmp.Compare(b.sim, a.sim) })
	out := &nameMatches{validUntil: meta.validUntil}
	for _, b := range brands {
		out.brands = append(out.brands, b.meta)
	}
	for _, c := range cats {
		out.categories = append(out.categories, c.meta)
	}
	views.names.Add(k, out)
	return out
}

// SearchBrands returns up to limit brands with rewards the game's players see whose names match
// text (nameMatch), most similar first.
func (s *Snapshot) SearchBrands(gameID uuid.UUID, text string, limit int, now time.Time) []BrandMeta {
	b := s.names(gameID, text, now).brands
	return append([]BrandMeta{}, b[:min(limit, len(b))]...)
}

// SearchCategories returns up to limit categories with rewards the game's players see whose
// names match text (nameMatch), most similar first.
func (s *Snapshot) SearchCategories(gameID uuid.UUID, text string, limit int, now time.Time) []CategoryMeta {
	c := s.names(gameID, text, now).categories
	return append([]CategoryMeta{}, c[:min(limit, len(c))]...)
}
