package catalogue

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/stretchr/testify/require"
)

// Trigrams of a word (as a set, sorted) and of several (in order), and the likeness of the
// examples PostgreSQL's pg_trgm documentation gives (F.35.2), which the reference SQL agrees with.
func TestTrigrams(t *testing.T) {
	require.Equal(t, []string{"  c", " ca", "at ", "cat"}, uniqueTrigrams("cat"))
	require.Equal(t, []string{"  c", " ca", "cat", "at ", "  d", " do", "dog", "og "}, appendTrigrams(nil, "cat, dog!"))
	require.Equal(t, []string{"  é", " éa", "éa "}, appendTrigrams(nil, "éa"), "characters, not bytes")
	require.Equal(t, float32(0.36363637), similarity(uniqueTrigrams("word"), uniqueTrigrams("two words")))
	require.Equal(t, float32(0.8), wordSimilarity(appendTrigrams(nil, "word"), appendTrigrams(nil, "two words")))
	require.Equal(t, float32(0), wordSimilarity(appendTrigrams(nil, "!!"), appendTrigrams(nil, "two words")))
}

// tsLexeme is one word of a search vector with its places, as the test collects them.
type tsLexeme struct {
	text string
	pos  []tsPos
}

// parseTSVector collects what scanTSVector reads of s.
func parseTSVector(s string) ([]tsLexeme, error) {
	var out []tsLexeme
	err := scanTSVector(s, nil, func(lex string, pos []tsPos) {
		l := tsLexeme{text: strings.Clone(lex)}
		if len(pos) > 0 {
			l.pos = slices.Clone(pos)
		}
		out = append(out, l)
	})
	return out, err
}

// A search vector: quotes and backslashes escaped, weights A to D.
func TestParseTSVector(t *testing.T) {
	lex, err := parseTSVector(`'a''b':1A,3 'back\\slash':2B 'c':4C,16383 'nopos'`)
	require.NoError(t, err)
	require.Equal(t, []tsLexeme{
		{text: "a'b", pos: []tsPos{1 | 3<<14, 3}},
		{text: `back\slash`, pos: []tsPos{2 | 2<<14}},
		{text: "c", pos: []tsPos{4 | 1<<14, 16383}},
		{text: "nopos"},
	}, lex)
	require.Equal(t, float32(1.0), lex[0].pos[0].weight())
	require.Equal(t, int32(16383), lex[2].pos[1].at())
	_, err = parseTSVector(`'open`)
	require.Error(t, err)
	_, err = parseTSVector(`bare`)
	require.Error(t, err)
}

// The ranks of one word and of two, as the reference SQL gives them
// (SELECT ts_rank('a:1A b:3B'::tsvector, q) for each q below).
func TestTextRank(t *testing.T) {
	a := [][]tsPos{{1 | 3<<14}}
	b := [][]tsPos{{3 | 2<<14}}
	require.Equal(t, float32(0.6079271), textRank([][][]tsPos{a}, false))
	require.Equal(t, float32(0.6229741), textRank([][][]tsPos{a, b}, true))
	require.Equal(t, float32(0.30396354), textRank([][][]tsPos{a, nil}, false), "an OR divides by the words asked (a:* | c:*)")
	require.Equal(t, float32(1e-20), textRank([][][]tsPos{a, nil}, true), "an AND with one word found (a:* & c:*)")
}

// A snapshot whose search texts cannot be read serves everything but search (Searches false),
// and says why.
func TestSnapshotWithUnreadableSearchTexts(t *testing.T) {
	d := syntheticSearchCatalogue(10)
	good := newSnapshot(d, time.Now())
	require.NoError(t, good.SearchIndexErr())
	require.True(t, good.Searches())
	d.Search[d.Rewards[3].ID] = SearchText{Vector: "'unclosed"}
	bad := newSnapshot(d, time.Now())
	require.ErrorContains(t, bad.SearchIndexErr(), "unclosed")
	require.False(t, bad.Searches())
	list, total := bad.List(ListQuery{Order: OrderDefault, Limit: 20, Now: time.Now()})
	require.Len(t, list, 10)
	require.Equal(t, int64(10), total)
}

// Search texts streamed into the index's first pass (as the storage's load does) index exactly
// as the same texts by id; texts added out of the snapshot's order, or too few, leave the
// snapshot without its index (a search says why) rather than matching wrong rewards.
func TestSnapshotWithStreamedSearchTexts(t *testing.T) {
	d := syntheticSearchCatalogue(2*sampleTexts + 500) // room made from the first sampleTexts
	byID := newSnapshot(d, time.Now())
	require.NoError(t, byID.SearchIndexErr())

	stream := func(ids []uuid.UUID) SnapshotData {
		s := d
		s.Search, s.SearchTexts = nil, NewSearchTexts(len(ids))
		for _, id := range ids {
			s.SearchTexts.Add(id, d.Search[id])
		}
		return s
	}
	ids := make([]uuid.UUID, len(d.Rewards))
	for i, r := range d.Rewards {
		ids[i] = r.ID
	}
	streamed := newSnapshot(stream(ids), time.Now())
	require.NoError(t, streamed.SearchIndexErr())
	require.True(t, streamed.Searches())
	for _, text := range []string{"gift", d.Rewards[7].Name, d.Brands[0].Name, d.Rewards[9].Name[:3], d.Rewards[13].Name + "x"} {
		q := SearchQuery{ListQuery: ListQuery{Order: OrderRelevance, Limit: 100, Now: time.Now(), CoinsPerUnit: 10}, Text: text}
		want, wantTotal := byID.Search(q)
		got, gotTotal := streamed.Search(q)
		require.Equal(t, wantTotal, gotTotal, text)
		require.Equal(t, want, got, text)
	}

	swapped := slices.Clone(ids)
	swapped[3], swapped[4] = swapped[4], swapped[3]
	for name, ids := range map[string][]uuid.UUID{"out of order": swapped, "too few": ids[:len(ids)-1]} {
		s := newSnapshot(stream(ids), time.Now())
		require.Error(t, s.SearchIndexErr(), name)
		require.False(t, s.Searches(), name)
	}
}

// A lexeme's positions are found by their counts, one byte each, and counts a byte cannot hold
// (PostgreSQL keeps up to 256 positions of a lexeme) are found too.
func TestSearchTextPositions(t *testing.T) {
	many := make([]string, 256)
	for i := range many {
		many[i] = strconv.Itoa(i+1) + "A"
	}
	texts := NewSearchTexts(2)
	texts.Add(uuid.New(), SearchText{Vector: "'a':3B 'b':" + strings.Join(many, ",") + " 'c':9,10"})
	texts.Add(uuid.New(), SearchText{Vector: "'a' 'c':" + strings.Join(many[:255], ",") + " 'd':7C"})
	require.NoError(t, texts.Err())
	p := texts.positions
	at := func(pos []tsPos) (out []int32) {
		for _, q := range pos {
			out = append(out, q.at())
		}
		return out
	}
	got := p.of(nil, 0, 0, 0, 3)
	require.Equal(t, []int32{3}, at(got[0]))
	require.Len(t, got[1], 256)
	require.Equal(t, int32(256), got[1][255].at())
	require.Equal(t, []int32{9, 10}, at(got[2]))
	got = p.of(nil, 1, 3, 0+3, 3+3)
	require.Empty(t, got[0], "a lexeme without positions")
	require.Len(t, got[1], 255)
	require.Equal(t, []int32{7}, at(got[2]))
	require.Equal(t, []int32{7}, at(p.of(nil, 1, 3, 5, 6)[0]), "an entry after others of its reward")
}

// Posting lists read back what was added, whatever the gaps (one to five bytes a number).
func TestPostingLists(t *testing.T) {
	want := [][]int32{{0, 1, 2, 127, 128, 16383, 16384, 2097151, 2097152, 1 << 30}, {}, {5}, {0}, {1<<31 - 1}}
	type pair struct{ key, r int32 }
	var pairs []pair
	for k, l := range want {
		for _, r := range l {
			pairs = append(pairs, pair{int32(k), r})
		}
	}
	slices.SortFunc(pairs, func(a, b pair) int { return cmp.Compare(a.r, b.r) }) // in reward order, as an index adds them
	lists, n := postings(len(want), func(add func(key, r int32)) {
		for _, p := range pairs {
			add(p.key, p.r)
		}
	})
	for k, l := range want {
		got := slices.Collect(lists.list(int32(k), true))
		require.Equal(t, len(l), len(got), "list %d", k)
		if len(l) > 0 {
			require.Equal(t, l, got, "list %d", k)
		}
		require.Equal(t, int32(len(l)), n[k+1]-n[k])
	}
}

// changesSource is a snapshot source whose changes can be taken alone (changes, when set).
type changesSource struct {
	data    SnapshotData
	changes *Changes
	loads   int
}

func (c *changesSource) Version(context.Context) (int64, error) { return c.data.Version, nil }
func (c *changesSource) Load(context.Context, time.Time) (SnapshotData, error) {
	c.loads++
	return c.data, nil
}
func (c *changesSource) LoadChanges(context.Context, int64, int) (Changes, bool, error) {
	if c.changes == nil {
		return Changes{}, false, nil
	}
	return *c.changes, true, nil
}
func (c *changesSource) OrderCounts(context.Context, time.Time) (map[uuid.UUID]OrderCount, error) {
	return nil, nil
}
func (c *changesSource) Watch(context.Context, func()) error { return nil }

// A change of the games' rewards alone makes a snapshot of the same rewards and search index
// with the games' new hiding; any other change loads the whole catalogue.
func TestReadModelTakesTheGamesAlone(t *testing.T) {
	src := &changesSource{data: syntheticSearchCatalogue(30)}
	m := NewReadModel(src, nil)
	ctx := context.Background()
	first, err := m.Current(ctx)
	require.NoError(t, err)
	require.NoError(t, first.SearchIndexErr())
	game := uuid.New()
	q := ListQuery{GameID: game, Order: OrderDefault, Limit: 100, Now: time.Now(), CoinsPerUnit: 10}
	_, total := first.List(q)

	src.data.Version++
	src.data.Games = []GameReward{{GameID: game, RewardID: src.data.Rewards[0].ID, Hidden: true}}
	src.changes = &Changes{Version: src.data.Version, Games: src.data.Games, AllGames: true}
	second, err := m.Current(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, src.loads, "no whole load")
	require.Equal(t, src.data.Version, second.Version())
	require.Same(t, first.search, second.search, "the search index stands")
	require.Same(t, &first.rewards[0], &second.rewards[0], "the rewards stand")
	_, hiddenTotal := second.List(q)
	require.Equal(t, total-1, hiddenTotal)
	found, _ := second.Search(SearchQuery{ListQuery: q, Text: src.data.Rewards[0].Name})
	require.False(t, slices.ContainsFunc(found, func(l Listed) bool { return l.Reward.ID == src.data.Rewards[0].ID }),
		"search hides it too")

	src.data.Version++
	src.changes = nil
	third, err := m.Current(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, src.loads, "a whole load")
	require.NotSame(t, first.search, third.search)
}

// A snapshot that takes a change of some rewards alone (renamed, gone, new, moved to another
// brand, hidden or priced by a game) lists and searches exactly as a whole load of the changed
// catalogue does, round after round, its search index made from the last one's: the last base
// with the changed rewards in an overlay, or, once those are too many, one index again.
func TestReadModelTakesChangedRewardsAlone(t *testing.T) {
	const n, spare = 300, 300
	all := syntheticSearchCatalogue(n + spare)
	data := all
	data.Rewards = slices.Clone(all.Rewards[:n])
	data.Orders = map[uuid.UUID]OrderCount{}
	for i, r := range all.Rewards[:n] {
		data.Orders[r.ID] = OrderCount{Last7d: int64(i % 7), Last30d: int64(i % 11)}
	}
	src := &changesSource{data: data}
	m := NewReadModel(src, nil)
	ctx := context.Background()
	snap, err := m.Current(ctx)
	require.NoError(t, err)
	require.NoError(t, snap.SearchIndexErr())
	game, coin := uuid.New(), uuid.New()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	t.Logf("seed in the rng's stream: %d", rng.Uint64())
	next := n // the next spare reward
	overlaid, whole := 0, 0
	for round := range 10 {
		ch := Changes{Version: src.data.Version + 1, Search: map[uuid.UUID]SearchText{}}
		rewards := slices.Clone(src.data.Rewards)
		changed := map[uuid.UUID]bool{}
		gamesOnly := round%3 == 2 // the games' hiding and coin prices alone (AllGames)
		for range rng.IntN(6) {
			if !gamesOnly {
				break
			}
			r := rewards[rng.IntN(len(rewards))]
			g := GameReward{GameID: game, RewardID: r.ID, Hidden: rng.IntN(2) == 0}
			if !g.Hidden {
				g.CoinPrices = map[uuid.UUID]int64{coin: 1 + rng.Int64N(1000)}
			}
			src.data.Games = append(slices.DeleteFunc(slices.Clone(src.data.Games), func(o GameReward) bool { return o.RewardID == r.ID }), g)
		}
		for range 1 + rng.IntN(12) {
			if gamesOnly {
				break
			}
			i := rng.IntN(len(rewards))
			r := &rewards[i]
			changed[r.ID] = true
			switch rng.IntN(4) {
			case 0: // renamed: another reward's texts
				other := all.Rewards[rng.IntN(len(all.Rewards))]
				r.Name = other.Name
				all.Search[r.ID] = all.Search[other.ID]
			case 1: // gone
				rewards = slices.Delete(rewards, i, i+1)
			case 2: // another brand, another price
				r.BrandCode = all.Brands[rng.IntN(len(all.Brands))].Code
				r.XScore = rng.Float64()
			case 3: // hidden or priced by the game
				g := GameReward{GameID: game, RewardID: r.ID, Hidden: rng.IntN(2) == 0}
				if !g.Hidden {
					g.CoinPrices = map[uuid.UUID]int64{coin: 1 + rng.Int64N(1000)}
				}
				src.data.Games = append(slices.DeleteFunc(slices.Clone(src.data.Games), func(o GameReward) bool { return o.RewardID == r.ID }), g)
			}
		}
		for range rng.IntN(5) { // new rewards
			if gamesOnly {
				break
			}
			r := all.Rewards[next]
			next++
			rewards = append(rewards, r)
			changed[r.ID] = true
		}
		for id := range changed {
			ch.Rewards = append(ch.Rewards, id)
		}
		for _, r := range rewards {
			if changed[r.ID] {
				ch.Current = append(ch.Current, r)
				ch.Search[r.ID] = all.Search[r.ID]
			}
		}
		for _, g := range src.data.Games {
			if changed[g.RewardID] {
				ch.Games = append(ch.Games, g)
			}
		}
		if gamesOnly {
			ch.AllGames, ch.Games = true, slices.Clone(src.data.Games)
		}
		src.data.Rewards, src.data.Version = rewards, ch.Version
		src.changes = &ch

		got, err := m.Current(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, src.loads, "round %d: no whole load", round)
		require.Equal(t, ch.Version, got.Version())
		require.NoError(t, got.SearchIndexErr(), "round %d", round)
		if x := got.search.idx; x.base.x == snap.search.idx.base.x { // the last base stands
			overlaid++
			require.LessOrEqual(t, x.stale*maxStaleShare, got.Rewards(), "round %d", round)
		} else {
			whole++
			require.Nil(t, x.overlay.x, "round %d", round)
			require.Zero(t, x.stale, "round %d", round)
		}
		want := newSnapshot(src.data, time.Now())
		require.NoError(t, want.SearchIndexErr())
		require.Equal(t, want.Rewards(), got.Rewards())
		now := time.Now()
		for _, order := range []Order{OrderDefault, OrderNewest, OrderPriceLowHigh, OrderDiscount, OrderTrending} {
			for _, brand := range []string{"", rewards[0].BrandCode} {
				q := ListQuery{GameID: game, CoinID: coin, CoinsPerUnit: 10, Brand: brand, Order: order, Limit: 1000, Now: now}
				wantList, wantTotal := want.List(q)
				gotList, gotTotal := got.List(q)
				require.Equal(t, wantTotal, gotTotal, "round %d, %s %q", round, order, brand)
				require.Equal(t, wantList, gotList, "round %d, %s %q", round, order, brand)
			}
		}
		for _, r := range append(slices.Clone(ch.Current), rewards[rng.IntN(len(rewards))]) {
			for _, text := range []string{r.Name, strings.Fields(r.Name)[0][:3], "gift", "xq" + strings.Fields(r.Name)[1]} {
				for _, order := range []Order{OrderRelevance, OrderPriceHighLow} {
					q := SearchQuery{ListQuery: ListQuery{GameID: game, CoinID: coin, CoinsPerUnit: 10, Order: order, Limit: 50, Now: now}, Text: text}
					wantList, wantTotal := want.Search(q)
					gotList, gotTotal := got.Search(q)
					require.Equal(t, wantTotal, gotTotal, "round %d, %q %s", round, text, order)
					require.Equal(t, wantList, gotList, "round %d, %q %s", round, text, order)
				}
			}
		}
		snap = got
	}
	require.Less(t, n, next, "new rewards came")
	require.NotZero(t, overlaid, "rounds searched through an overlay")
	require.NotZero(t, whole, "rounds indexed whole again")
}
