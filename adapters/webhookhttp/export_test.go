package webhookhttp

// WithLookup makes t resolve host names through lookup instead of DNS.
func WithLookup(t *Transport, lookup func(string) string) *Transport {
	t.lookup = lookup
	return t
}
