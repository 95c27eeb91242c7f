package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"time"
)

// newSigningSecret returns whsec_ and 32 random bytes in base64.
func newSigningSecret() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return "whsec_" + base64.StdEncoding.EncodeToString(b[:])
}

// Sign returns the X-Service-Signature header for body signed at t: t=<unix>,v1=<hex>, the
// hex HMAC-SHA256 keyed with the whole signing secret over "<t>.<body>" — the scheme Stripe's
// webhook libraries verify.
func Sign(secret string, t time.Time, body []byte) string {
	return SignAll([]string{secret}, t, body)
}

// SignAll is Sign with one v1 per secret, in order: t=<unix>,v1=<hex>,v1=<hex>. During a
// rotation's grace a receiver holding either secret finds a v1 it verifies, as Stripe's
// libraries accept any v1 that matches.
func SignAll(secrets []string, t time.Time, body []byte) string {
	ts := strconv.FormatInt(t.Unix(), 10)
	out := "t=" + ts
	for _, secret := range secrets {
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(ts))
		m.Write([]byte("."))
		m.Write(body)
		out += ",v1=" + hex.EncodeToString(m.Sum(nil))
	}
	return out
}
