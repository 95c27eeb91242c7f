package app

import (
	"log/slog"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The collector's headroom. Go's default (GOGC=100) lets the heap grow by as much as is live
// before a collection, so the service's memory is twice its live heap. Most of that live heap is
// the catalogue's read model (about 120 MB at 100,000 rewards), which makes no garbage between
// loads: the garbage is the requests', a few MB a second at thousands of requests, whatever the
// catalogue's size. So the service keeps the heap's growth between collections near gcHeadroom
// instead: GOGC = 100 × gcHeadroom / live heap, from minGCPercent to Go's default, set again after
// each collection. With a small catalogue that is Go's default; at 100,000 rewards about 20.
const (
	gcHeadroom   = 24 << 20
	minGCPercent = 10  // a collection at least every 10% of growth, however large the heap
	maxGCPercent = 100 // never more headroom than Go's default
)

// gcTuner sets the collector's percent after each collection (tuneGC).
type gcTuner struct {
	mu      sync.Mutex
	stopped bool
	percent int
	sample  []metrics.Sample
}

// tuneGC keeps the collector's headroom near gcHeadroom until the returned stop is called, which
// gives the runtime back its percent. An operator who set GOGC or GOMEMLIMIT keeps the runtime as
// they set it.
func tuneGC(getenv func(string) string, log *slog.Logger) (stop func()) {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		log.Info("the garbage collector runs as GOGC and GOMEMLIMIT set it (the service's headroom tuning is off)")
		return func() {}
	}
	t := &gcTuner{percent: debug.SetGCPercent(maxGCPercent), sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	before := t.percent
	t.percent = maxGCPercent
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(before)
	}
}

// gcSentinel is an object nothing keeps: its cleanup runs after the collection that finds it.
type gcSentinel struct{ _ [32]byte }

func (t *gcTuner) arm() {
	runtime.AddCleanup(new(gcSentinel), func(t *gcTuner) { t.collected() }, t)
}

// collected sets the percent for the live heap the last collection found, and waits for the next.
func (t *gcTuner) collected() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	metrics.Read(t.sample)
	if p := gcPercentFor(t.sample[0].Value.Uint64()); p != t.percent {
		debug.SetGCPercent(p)
		t.percent = p
	}
	t.arm()
}

// gcPercentFor is the percent that gives a live heap of live bytes gcHeadroom to grow.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return maxGCPercent
	}
	return int(min(max(100*gcHeadroom/live, minGCPercent), maxGCPercent))
}
