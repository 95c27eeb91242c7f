package app

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A provider's transport keeps its connections for the next calls: two rounds of 8 concurrent
// calls open 8 connections, not 8 and then 6 more as Go's default transport (2 idle connections
// per host) does.
func TestProviderTransportKeepsItsConnections(t *testing.T) {
	t.Parallel()
	const concurrent = 8
	var opened atomic.Int64
	var arrived sync.WaitGroup
	var mu sync.Mutex
	var release chan struct{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		// Every call of a round waits for the others, so that each needs a connection of its own.
		mu.Lock()
		wait := release
		mu.Unlock()
		arrived.Done()
		<-wait
		_, _ = w.Write([]byte("ok"))
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			opened.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)

	transport := providerTransport()
	t.Cleanup(transport.CloseIdleConnections)
	client := &http.Client{Transport: transport}
	for range 2 {
		mu.Lock()
		release = make(chan struct{})
		mu.Unlock()
		arrived.Add(concurrent)
		var calls sync.WaitGroup
		for range concurrent {
			calls.Go(func() {
				resp, err := client.Get(srv.URL)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			})
		}
		all := make(chan struct{})
		go func() { arrived.Wait(); close(all) }()
		select {
		case <-all:
		case <-time.After(10 * time.Second):
			mu.Lock()
			close(release) // the calls that arrived end, so that the server can close
			mu.Unlock()
			t.Fatalf("only some of the %d calls reached the server", concurrent)
		}
		mu.Lock()
		close(release)
		mu.Unlock()
		calls.Wait()
	}
	require.EqualValues(t, concurrent, opened.Load(), "connections opened by two rounds of %d concurrent calls", concurrent)
}
