package app

import (
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestGCPercentKeepsTheHeadroom(t *testing.T) {
	require.Equal(t, 100, gcPercentFor(0))
	require.Equal(t, 100, gcPercentFor(10<<20), "a small heap: Go's default")
	require.Equal(t, 100, gcPercentFor(gcHeadroom))
	require.Equal(t, 20, gcPercentFor(120<<20), "the read model of 100,000 rewards")
	require.Equal(t, 10, gcPercentFor(4<<30), "never below a tenth")
}

// currentGCPercent reads the collector's percent (setting it back as it was).
func currentGCPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// The tuner follows the live heap from one collection to the next, leaves the runtime alone
// when the operator set it, and gives the percent back when stopped.
func TestTuneGCFollowsTheLiveHeap(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	waitFor := func(want func(int) bool) int {
		var p int
		require.Eventually(t, func() bool {
			runtime.GC()
			p = currentGCPercent()
			return want(p)
		}, 10*time.Second, 10*time.Millisecond)
		return p
	}

	stop := tuneGC(func(string) string { return "" }, log)
	live := make([]byte, 160<<20) // a large live heap: a catalogue's read model
	for i := range live {
		live[i] = byte(i)
	}
	p := waitFor(func(p int) bool { return p < 20 })
	require.GreaterOrEqual(t, p, minGCPercent)
	runtime.KeepAlive(live)
	live = nil
	waitFor(func(p int) bool { return p == 100 })
	stop()

	debug.SetGCPercent(100)
	stop = tuneGC(func(k string) string { return map[string]string{"GOGC": "50"}[k] }, log)
	big := make([]byte, 160<<20)
	for range 3 {
		runtime.GC()
	}
	require.Equal(t, 100, currentGCPercent(), "GOGC is the operator's")
	runtime.KeepAlive(big)
	stop()
}
