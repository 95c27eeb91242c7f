// Package webhookhttp implements the webhooks module's Transport port over HTTP, refusing
// targets that are not public: the check runs on the address actually dialled, after DNS, so a
// name that resolves (or re-resolves) to a private address cannot get in. Redirects are never
// followed. Plain http and non-public targets are allowed only with the two local-development
// switches.
package webhookhttp

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/rewardsco/rewards/core/webhooks"
)

// Options are the local-development switches, and the instrumentation of requests.
type Options struct {
	// AllowHTTP permits plain http URLs (REWARDS_WEBHOOK_ALLOW_HTTP).
	AllowHTTP bool
	// AllowPrivate permits loopback, private and other non-public addresses
	// (REWARDS_WEBHOOK_ALLOW_PRIVATE).
	AllowPrivate bool
	// WrapTransport, when set, wraps the checked transport (tracing); the address check still
	// runs on every dial beneath it.
	WrapTransport func(http.RoundTripper) http.RoundTripper
}

// Transport sends webhook requests.
type Transport struct {
	opts   Options
	client *http.Client
	// lookup, when set, stands in for DNS in tests: it maps a host name to the address to dial.
	// The address check still runs on what is dialled.
	lookup func(host string) string
	// publicForTest, when set, names test servers to treat as public, so that tests can stand
	// up a "public" first hop on loopback.
	publicForTest func(netip.AddrPort) bool
	tls           *http.Transport
}

var _ webhooks.Transport = (*Transport)(nil)

// ErrNotPublic means the target address is not a public one.
var ErrNotPublic = fmt.Errorf("%w (address not public)", webhooks.ErrTargetRefused)

// New returns a Transport.
func New(opts Options) *Transport {
	t := &Transport{opts: opts}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	if !opts.AllowPrivate {
		dialer.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrNotPublic, address)
			}
			if !IsPublic(ap.Addr()) && (t.publicForTest == nil || !t.publicForTest(ap)) {
				return fmt.Errorf("%w: %s", ErrNotPublic, ap.Addr())
			}
			return nil
		}
	}
	transport := &http.Transport{
		Proxy: nil, // a proxy would dial for us and bypass the address check
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			if t.lookup != nil {
				if host, port, err := net.SplitHostPort(addr); err == nil {
					if ip := t.lookup(host); ip != "" {
						addr = net.JoinHostPort(ip, port)
					}
				}
			}
			return dialer.DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          200,
		MaxIdleConnsPerHost:   50,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: webhooks.AttemptTimeout,
	}
	t.tls = transport
	var rt http.RoundTripper = transport
	if opts.WrapTransport != nil {
		rt = opts.WrapTransport(transport)
	}
	t.client = &http.Client{
		Transport: rt,
		Timeout:   webhooks.AttemptTimeout,
		// A redirect is an answer like any other non-2xx: a failure, and never followed.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return t
}

// CheckURL implements webhooks.Transport: the checks that need no DNS.
func (t *Transport) CheckURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errors.New("not an absolute URL")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && t.opts.AllowHTTP:
	default:
		return fmt.Errorf("%w (only https URLs are allowed)", webhooks.ErrTargetRefused)
	}
	if u.User != nil {
		return fmt.Errorf("%w (URLs with credentials are not allowed)", webhooks.ErrTargetRefused)
	}
	if t.opts.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if !IsPublic(addr) {
			return fmt.Errorf("%w: %s", ErrNotPublic, addr)
		}
		return nil
	}
	// Hosts that are numbers in disguise (2130706433, 0x7f.1, 0177.0.0.1) are refused outright:
	// some resolvers read them as IP addresses.
	if looksNumeric(host) {
		return fmt.Errorf("%w: %s is a numeric host", ErrNotPublic, host)
	}
	if !strings.Contains(host, ".") || strings.HasSuffix(host, ".localhost") || host == "localhost" {
		return fmt.Errorf("%w: %s is a local name", ErrNotPublic, host)
	}
	return nil
}

func looksNumeric(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, part := range strings.Split(h, ".") {
		if part == "" {
			return false
		}
		p := strings.TrimPrefix(part, "0x")
		for _, r := range p {
			if !(r >= '0' && r <= '9' || (strings.HasPrefix(part, "0x") && r >= 'a' && r <= 'f')) {
				return false
			}
		}
	}
	return true
}

// Send implements webhooks.Transport.
func (t *Transport) Send(ctx context.Context, r webhooks.Request) (int, error) {
	if err := t.CheckURL(r.URL); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return 0, err
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	res, err := t.client.Do(req)
	if err != nil {
		return 0, classify(err)
	}
	defer res.Body.Close()
	// Drain a little so the connection can be reused; the body itself is not used.
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	return res.StatusCode, nil
}

var nonPublic = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
		"203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4", "255.255.255.255/32",
		// ::/96 holds ::/128 and ::1/128 and the deprecated IPv4-compatible addresses (::a.b.c.d),
		// which some stacks carry to the IPv4 address inside; none is a public IPv6 address.
		"::/96", "::ffff:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "100::/64", "2001::/23",
		"2001:db8::/32", "2002::/16", "fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// IsPublic reports whether a is a globally routable unicast address. IPv4-mapped IPv6
// addresses are judged as the IPv4 address they carry; IPv4-compatible ones (::/96) are never
// public.
func IsPublic(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsMulticast() || a.IsUnspecified() || a.IsInterfaceLocalMulticast() {
		return false
	}
	for _, p := range nonPublic {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// classify turns a failed request into an error studios may see: the kind of failure, never an
// address or a resolver's answer, which could map the network behind the service.
func classify(err error) error {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var recordErr tls.RecordHeaderError
	var netErr net.Error
	switch {
	case errors.Is(err, webhooks.ErrTargetRefused):
		return webhooks.ErrTargetRefused
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return errors.New("no answer within the time limit")
	case errors.As(err, &dnsErr):
		return errors.New("the host name could not be resolved")
	case errors.As(err, &certErr) || errors.As(err, &recordErr) || strings.Contains(err.Error(), "tls:"):
		return errors.New("TLS handshake failed")
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("connection refused")
	default:
		return errors.New("connection failed")
	}
}
