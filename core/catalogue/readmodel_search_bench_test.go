package catalogue

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// syntheticSearchCatalogue is n rewards of 500 brands whose search texts look like the bench's
// seeded ones: a name of 3 words and brand, a description, the brand's description and category
// (about 40 lexemes).
func syntheticSearchCatalogue(n int) SnapshotData {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := make([]string, 5000)
	for i := range vocab {
		var b strings.Builder
		for range 4 + rng.IntN(6) {
			b.WriteByte(byte('a' + rng.IntN(26)))
		}
		vocab[i] = b.String()
	}
	d := SnapshotData{Version: 1, Search: map[uuid.UUID]SearchText{}, BrandNames: map[string]string{}, CategoryNames: map[string]string{}}
	brandWords := make([][]string, 500)
	for i := range brandWords {
		code := fmt.Sprintf("B%d", i)
		brandWords[i] = []string{vocab[rng.IntN(len(vocab))]}
		for range 15 {
			brandWords[i] = append(brandWords[i], vocab[rng.IntN(len(vocab))])
		}
		d.Brands = append(d.Brands, Brand{Code: code, Name: brandWords[i][0], IsActive: true})
		d.BrandNames[code] = brandWords[i][0]
	}
	now := time.Now()
	for range n {
		b := rng.IntN(len(brandWords))
		name := []string{vocab[rng.IntN(len(vocab))], vocab[rng.IntN(len(vocab))], "gift", brandWords[b][0]}
		body := slices.Clone(brandWords[b][1:])
		for range 15 {
			body = append(body, vocab[rng.IntN(len(vocab))])
		}
		pos := map[string][]string{}
		for p, w := range name {
			pos[w] = append(pos[w], fmt.Sprintf("%dA", p+1))
		}
		for p, w := range body {
			pos[w] = append(pos[w], fmt.Sprintf("%dB", p+len(name)+1))
		}
		lex := make([]string, 0, len(pos))
		for w := range pos {
			lex = append(lex, w)
		}
		slices.Sort(lex)
		var v strings.Builder
		for k, w := range lex {
			if k > 0 {
				v.WriteByte(' ')
			}
			fmt.Fprintf(&v, "'%s':%s", w, strings.Join(pos[w], ","))
		}
		id := uuid.New()
		d.Rewards = append(d.Rewards, Reward{ID: id, BrandCode: fmt.Sprintf("B%d", b), Name: strings.Join(name, " "), IsActive: true,
			Type: GiftCard, CreatedAt: now})
		d.Search[id] = SearchText{Name: strings.Join(name, " "), Vector: v.String(), LowerName: strings.Join(name, " ")}
	}
	return d
}

// How long building a 100,000-reward snapshot with its search index takes, and how much heap it
// holds: go test ./core/catalogue -run '^$' -bench SnapshotSearchIndex -benchtime 3x
func BenchmarkSnapshotSearchIndex(b *testing.B) {
	d := syntheticSearchCatalogue(100_000)
	var before, after runtime.MemStats
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&before)
		b.StartTimer()
		s := newSnapshot(d, time.Now())
		if err := s.SearchIndexErr(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.StartTimer()
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "MiB")
		runtime.KeepAlive(s)
	}
}

// An uncached search (a query no one asked before on this snapshot) of 100,000 rewards.
func BenchmarkSnapshotSearchUncached(b *testing.B) {
	d := syntheticSearchCatalogue(100_000)
	s := newSnapshot(d, time.Now())
	if err := s.SearchIndexErr(); err != nil {
		b.Fatal(err)
	}
	words := []string{"gift", s.rewards[7].reward.Name, s.rewards[9].brand.Name, s.rewards[11].brand.Name[:3]}
	typo := s.rewards[13].brand.Name + "x"
	for _, text := range append(words, typo) {
		b.Run(text, func(b *testing.B) {
			for b.Loop() {
				s.searchViews = searchViews{} // nothing cached
				list, _ := s.Search(SearchQuery{ListQuery: ListQuery{Order: OrderRelevance, Limit: 20, Now: time.Now(), CoinsPerUnit: 10}, Text: text})
				if len(list) == 0 {
					b.Fatalf("%q found nothing", text)
				}
			}
		})
	}
}

// A reward of 100,000 renamed: the snapshot that takes the change alone (withChanges) and its
// first list ("served", the last snapshot's view of the list carried over with the renamed reward
// placed in it), then its search index (an overlay of the renamed reward on the last one's,
// "indexed"): go test ./core/catalogue -run '^$' -bench SnapshotWithChangedReward
func BenchmarkSnapshotWithChangedReward(b *testing.B) {
	d := syntheticSearchCatalogue(100_000)
	s := newSnapshot(d, time.Now())
	if err := s.SearchIndexErr(); err != nil {
		b.Fatal(err)
	}
	renamed := d.Rewards[7]
	renamed.Name += " renamed"
	text := d.Search[renamed.ID]
	text.Name += " renamed"
	ch := Changes{Version: 2, Rewards: []uuid.UUID{renamed.ID}, Current: []Reward{renamed}, Search: map[uuid.UUID]SearchText{renamed.ID: text}}
	q := ListQuery{Order: OrderDefault, Limit: 20, Now: time.Now(), CoinsPerUnit: 10}
	s.List(q) // the view a served list has
	var served, indexed time.Duration
	for b.Loop() {
		start := time.Now()
		next := s.withChanges(ch, time.Now())
		next.List(q)
		served += time.Since(start)
		if err := next.SearchIndexErr(); err != nil {
			b.Fatal(err)
		}
		indexed += time.Since(start)
	}
	b.ReportMetric(float64(served.Milliseconds())/float64(b.N), "ms-served")
	b.ReportMetric(float64(indexed.Milliseconds())/float64(b.N), "ms-indexed")
}
