package webhookhttp_test

import (
	"context"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/core/webhooks"
)

// TestRefusesNonPublicTargets: with both switches off, none of these targets is ever contacted.
func TestRefusesNonPublicTargets(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits.Add(1) }))
	defer srv.Close()
	port := netip.MustParseAddrPort(srv.Listener.Addr().String()).Port()
	// DNS stand-in: these names "resolve" to the loopback test server, as a rebinding attacker's
	// name would.
	tr := webhookhttp.WithLookup(webhookhttp.New(webhookhttp.Options{}), func(host string) string {
		switch host {
		case "rebind.attacker.example", "loopback.example.com", "metadata.example.net":
			return "127.0.0.1"
		case "mapped.example.org":
			return "::ffff:127.0.0.1"
		case "compat.example.org":
			// IPv4-compatible IPv6 (::/96, deprecated by RFC 4291): ::127.0.0.1.
			return "::7f00:1"
		}
		return ""
	})
	p := func(s string) string { return s + ":" + itoa(port) }
	targets := []string{
		"https://" + p("127.0.0.1") + "/hook",
		"https://127.1.2.3/",
		"https://10.0.0.1/",
		"https://172.16.5.4/",
		"https://172.31.255.255/",
		"https://192.168.1.1/",
		"https://169.254.169.254/latest/meta-data/",
		"https://100.64.0.1/",
		"https://100.127.255.254/",
		"https://0.0.0.0/",
		"https://[::1]:" + itoa(port) + "/",
		"https://[::]/",
		"https://[fc00::1]/",
		"https://[fd12:3456:789a::1]/",
		"https://[fe80::1]/",
		"https://[::ffff:127.0.0.1]:" + itoa(port) + "/",
		"https://[::ffff:10.0.0.1]/",
		"https://[::ffff:169.254.169.254]/",
		"https://[::127.0.0.1]:" + itoa(port) + "/",
		"https://[::10.0.0.1]/",
		"https://[::169.254.169.254]/",
		"https://[::8.8.8.8]/",
		"https://[64:ff9b::7f00:1]/",
		"https://[2002:7f00:1::1]/",
		"https://2130706433/",
		"https://0177.0.0.1/",
		"https://0x7f.0.0.1/",
		"https://0x7f000001/",
		"https://017700000001/",
		"https://localhost:" + itoa(port) + "/",
		"https://api.localhost/",
		"https://" + p("rebind.attacker.example") + "/",
		"https://" + p("loopback.example.com") + "/",
		"https://" + p("mapped.example.org") + "/",
		"https://" + p("compat.example.org") + "/",
		"https://metadata.example.net/",
		"https://224.0.0.1/",
		"https://255.255.255.255/",
		"https://198.18.0.1/",
		"https://192.0.0.1/",
		"http://example.com/",
		"ftp://example.com/",
		"https://user:pass@example.com/",
	}
	require.GreaterOrEqual(t, len(targets), 30)
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			status, err := tr.Send(ctx, webhooks.Request{URL: target, Body: []byte("{}")})
			// Refused as a target, not merely failed: a connection error would also be an error.
			require.ErrorIs(t, err, webhooks.ErrTargetRefused, "status %d", status)
			require.Zero(t, status)
		})
	}
	require.Zero(t, hits.Load(), "no refused target was ever reached")
}

// TestRedirectToPrivateIsRefused: switches off, a public receiver (a test server the transport
// is told to treat as public) that redirects to a private address gets no further.
func TestRedirectToPrivateIsRefused(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	private := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached.Add(1) }))
	defer private.Close()
	public := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/internal", http.StatusTemporaryRedirect)
	}))
	defer public.Close()
	addr := netip.MustParseAddrPort(public.Listener.Addr().String())
	roots := x509.NewCertPool()
	roots.AddCert(public.Certificate())
	roots.AddCert(private.Certificate())
	tr := webhookhttp.WithLookup(webhookhttp.New(webhookhttp.Options{}), func(host string) string {
		if host == "example.com" {
			return "127.0.0.1"
		}
		return ""
	})
	tr = webhookhttp.WithPublicTestServer(tr, addr, roots)
	status, err := tr.Send(context.Background(), webhooks.Request{URL: "https://example.com:" + itoa(addr.Port()) + "/hook", Body: []byte("{}")})
	require.NoError(t, err, "the public first hop answers")
	require.Equal(t, http.StatusTemporaryRedirect, status, "the redirect is the answer: a failure, not followed")
	require.Zero(t, reached.Load(), "the private target was never contacted")
	// And sent straight at the private address, it is refused before any connection.
	_, err = tr.Send(context.Background(), webhooks.Request{URL: private.URL, Body: []byte("{}")})
	require.ErrorIs(t, err, webhooks.ErrTargetRefused)
	require.Zero(t, reached.Load())
}

func TestRedirectsAreNeverFollowed(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	private := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { reached.Add(1) }))
	defer private.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, private.URL+"/internal", http.StatusFound)
	}))
	defer redirector.Close()
	// The switches are on only so the redirector itself is reachable on loopback.
	tr := webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true})
	status, err := tr.Send(context.Background(), webhooks.Request{URL: redirector.URL, Body: []byte("{}")})
	require.NoError(t, err)
	require.Equal(t, http.StatusFound, status, "the redirect is the answer, and not a 2xx")
	require.Zero(t, reached.Load(), "the redirect target was never contacted")
}

func TestSwitchesAllowLocalTargets(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, "application/json", r.Header.Get("Content-Type"))
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	off := webhookhttp.New(webhookhttp.Options{})
	_, err := off.Send(context.Background(), webhooks.Request{URL: srv.URL, Headers: map[string]string{"Content-Type": "application/json"}})
	require.Error(t, err)
	on := webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true})
	status, err := on.Send(context.Background(), webhooks.Request{URL: srv.URL, Headers: map[string]string{"Content-Type": "application/json"}})
	require.NoError(t, err)
	require.Equal(t, http.StatusAccepted, status)
}

func TestIsPublic(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"} {
		require.True(t, webhookhttp.IsPublic(netip.MustParseAddr(s)), s)
	}
	// IPv4-compatible IPv6 (::/96) is no route to anything public; some stacks carry it to the
	// IPv4 address inside, so it is refused whatever that address is.
	for _, s := range []string{"::7f00:1", "::a00:1", "::a9fe:a9fe", "::808:808", "::ffff:ffff", "::2"} {
		require.False(t, webhookhttp.IsPublic(netip.MustParseAddr(s)), s)
	}
}

func itoa(n uint16) string { return strconv.Itoa(int(n)) }
