// Package weburl is the one rule for the web addresses the service stores and shows or
// redirects to (brand sites and logos, category, reward, product and touchpoint images, payment
// return addresses): an absolute https URL with a host, no user info, at most MaxLen
// characters; plain http only where the deployment allows it (outside production). Anything
// else (javascript:, data:, relative or credential-carrying addresses) is refused, so no stored
// address can run script in a page, smuggle content, or point a redirect somewhere else.
package weburl

import (
	"net/url"
	"strings"

	"github.com/rewardsco/rewards/core/errs"
)

// MaxLen bounds an address.
const MaxLen = 2048

// Valid reports whether raw is an address the service may keep: https (or http with
// allowHTTP), a host, no user info, at most MaxLen characters, no control characters, spaces,
// quotes or markup.
func Valid(raw string, allowHTTP bool) bool {
	if raw == "" || len(raw) > MaxLen || strings.ContainsFunc(raw, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune("<>\"'`\\{}|^", r) }) {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return false
	}
	switch u.Scheme { // url.Parse lowers it
	case "https":
		return true
	case "http":
		return allowHTTP
	}
	return false
}

// Check is Valid as a 400 VALIDATION_FAILED naming field; an empty value is allowed (the field
// is optional) unless required.
func Check(field, raw string, allowHTTP, required bool) error {
	if raw == "" && !required {
		return nil
	}
	if !Valid(raw, allowHTTP) {
		scheme := "https"
		if allowHTTP {
			scheme = "http(s)"
		}
		return errs.Invalidf("%s must be an absolute %s URL with a host and no user info, at most %d characters", field, scheme, MaxLen)
	}
	return nil
}
