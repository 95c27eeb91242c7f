package webhooks

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
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
	ts := strconv.FormatInt(t.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(ts))
	m.Write([]byte("."))
	m.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(m.Sum(nil))
}

// secretBox seals signing secrets at rest with AES-256-GCM.
type secretBox struct {
	aead cipher.AEAD
}

func newSecretBox(key []byte) (secretBox, error) {
	if len(key) != 32 {
		return secretBox{}, errors.New("webhook secret key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return secretBox{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return secretBox{}, err
	}
	return secretBox{aead: aead}, nil
}

func (b secretBox) seal(plain string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, []byte(plain), nil)
}

func (b secretBox) open(sealed []byte) (string, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed secret too short")
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return "", fmt.Errorf("open signing secret: %w", err)
	}
	return string(plain), nil
}
