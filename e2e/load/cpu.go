package main

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// processCPU is the user and system CPU time this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// heapAllocs is how many heap objects, and how many bytes, this process has allocated since it
// started.
func heapAllocs() allocCount {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || s[1].Value.Kind() != metrics.KindUint64 {
		return allocCount{}
	}
	return allocCount{objects: s[0].Value.Uint64(), bytes: s[1].Value.Uint64()}
}

// allocCount is heap objects and bytes allocated.
type allocCount struct{ objects, bytes uint64 }

func (a allocCount) sub(b allocCount) allocCount {
	return allocCount{objects: a.objects - b.objects, bytes: a.bytes - b.bytes}
}

// reportCPU prints the CPU this process spent per request of each HTTP run, and the heap it
// allocated (the garbage collector's work): the service's and the load generator's together
// (they share the process). On a machine shared with other work,
// throughput moves with the neighbours' load and CPU per request much less, so this is the
// figure to compare across runs; the ratio of two scenarios' CPU per request is what their
// throughputs' ratio would be on cores of their own (the idle background's CPU aside).
func reportCPU(w io.Writer, results []result) {
	var parts []string
	for _, r := range results {
		if n := r.ok + r.errors; r.cpu > 0 && n > 0 {
			parts = append(parts, fmt.Sprintf("%s@%d %d µs", r.scenario, r.clients, (r.cpu/time.Duration(n)).Microseconds()))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "\nCPU of this process per request (the service and the load generator): %s\n", strings.Join(parts, ", "))
	}
	parts = nil
	for _, r := range results {
		if n := uint64(r.ok + r.errors); r.allocs.objects > 0 && n > 0 {
			parts = append(parts, fmt.Sprintf("%s@%d %d objects, %.1f kB", r.scenario, r.clients, r.allocs.objects/n,
				float64(r.allocs.bytes)/float64(n)/1000))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "Heap allocations of this process per request (the service and the load generator): %s\n", strings.Join(parts, ", "))
	}
}

// writeAllocProfile writes the allocation profile of this process to path.
func writeAllocProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
