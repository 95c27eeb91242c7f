package webhookhttp

import (
	"crypto/tls"
	"crypto/x509"
	"net/netip"
)

// WithLookup makes t resolve host names through lookup instead of DNS.
func WithLookup(t *Transport, lookup func(string) string) *Transport {
	t.lookup = lookup
	return t
}

// WithPublicTestServer makes t treat the test server at addr as a public address and trust its
// certificate, switches off.
func WithPublicTestServer(t *Transport, addr netip.AddrPort, roots *x509.CertPool) *Transport {
	t.publicForTest = func(ap netip.AddrPort) bool { return ap == addr }
	t.tls.TLSClientConfig = &tls.Config{RootCAs: roots}
	return t
}
