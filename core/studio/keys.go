package studio

import (
	"crypto/rand"
	"crypto/sha256"
	"strings"
)

const (
	base62         = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	keyRandomChars = 32
)

// RandomBase62 returns n characters drawn uniformly from [0-9A-Za-z] by crypto/rand.
func RandomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n*2)
	for len(out) < n {
		_, _ = rand.Read(buf) // crypto/rand.Read never fails on supported platforms.
		for _, b := range buf {
			// 248 = 4*62: rejecting bytes at or above it keeps every character equally likely.
			if b < 248 && len(out) < n {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// keyPrefix is the visible environment marker of a key.
func keyPrefix(env Environment) string { return "rk_" + string(env) + "_" }

// NewAPIKey returns a fresh plaintext key for env and the hash to store.
func NewAPIKey(env Environment) (plaintext string, hash []byte) {
	plaintext = keyPrefix(env) + RandomBase62(keyRandomChars)
	return plaintext, HashKey(plaintext)
}

// secretPrefix is the visible environment marker of a server secret.
func secretPrefix(env Environment) string { return "rks_" + string(env) + "_" }

// NewServerSecret returns a fresh plaintext server secret for env and the hash to store.
func NewServerSecret(env Environment) (plaintext string, hash []byte) {
	plaintext = secretPrefix(env) + RandomBase62(keyRandomChars)
	return plaintext, HashKey(plaintext)
}

// HashKey is the stored form of a key (and of a server secret). Keys carry about 190 random bits, so a fast hash is
// enough: there is nothing to brute-force.
func HashKey(plaintext string) []byte {
	sum := sha256.Sum256([]byte(plaintext))
	return sum[:]
}

// wellFormedKey reports whether s has the shape of a key this service issues.
func wellFormedKey(s string) bool { return wellFormed(s, keyPrefix) }

// wellFormedSecret reports whether s has the shape of a server secret this service issues.
func wellFormedSecret(s string) bool { return wellFormed(s, secretPrefix) }

// wellFormed reports whether s is one of the environments' prefixes and keyRandomChars base62
// characters.
func wellFormed(s string, prefix func(Environment) string) bool {
	rest, ok := strings.CutPrefix(s, prefix(Live))
	if !ok {
		rest, ok = strings.CutPrefix(s, prefix(Test))
	}
	return ok && len(rest) == keyRandomChars && IsBase62(rest)
}

// IsBase62 reports whether every byte of s is one of RandomBase62's characters.
func IsBase62(s string) bool {
	for i := 0; i < len(s); i++ {
		if !strings.ContainsRune(base62, rune(s[i])) {
			return false
		}
	}
	return true
}
