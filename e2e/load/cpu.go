package main

import (
	"fmt"
	"io"
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

// reportCPU prints the CPU this process spent per request of each HTTP run: the service's and
// the load generator's together (they share the process). On a machine shared with other work,
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
}
