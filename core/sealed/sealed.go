// Package sealed keeps secrets at rest: webhook signing secrets, coupon codes and pins, voucher
// codes. A Box seals with AES-256-GCM under a key derived from the master secret, and gives a
// keyed fingerprint (HMAC-SHA256) for finding a sealed value again without opening it.
package sealed

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
)

// Box seals and opens values under one key.
type Box struct {
	aead cipher.AEAD
	key  []byte
}

// New returns a Box over a 32-byte key.
func New(key []byte) (Box, error) {
	if len(key) != 32 {
		return Box{}, errors.New("sealing key must be 32 bytes")
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return Box{}, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return Box{}, err
	}
	return Box{aead: aead, key: key}, nil
}

// Seal encrypts plain with a fresh random nonce, kept in front of the ciphertext.
func (b Box) Seal(plain string) []byte {
	nonce := make([]byte, b.aead.NonceSize())
	_, _ = rand.Read(nonce)
	return b.aead.Seal(nonce, nonce, []byte(plain), nil)
}

// Open decrypts what Seal sealed; it fails on anything altered.
func (b Box) Open(sealed []byte) (string, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return "", errors.New("sealed value too short")
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return "", fmt.Errorf("open sealed value: %w", err)
	}
	return string(plain), nil
}

// Fingerprint is a keyed hash of plain: equal values give equal fingerprints, and nobody
// without the key can tell what they are.
func (b Box) Fingerprint(plain string) []byte {
	m := hmac.New(sha256.New, b.key)
	m.Write([]byte(plain))
	return m.Sum(nil)
}
