package members

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/studio"
)

// Password lengths, in characters.
const (
	MinPasswordLen = 12
	MaxPasswordLen = 128
)

// The argon2id parameters: OWASP's first recommendation (19 MiB, 2 passes, 1 thread).
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// deriveKey is argon2.IDKey; a test counts its calls through it.
var deriveKey = argon2.IDKey

// validPassword checks a new password's length.
func validPassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPasswordLen || n > MaxPasswordLen {
		return errs.Invalidf("password must be %d to %d characters", MinPasswordLen, MaxPasswordLen)
	}
	return nil
}

// hashPassword returns the argon2id hash of password in PHC form.
func hashPassword(password string) string {
	salt := make([]byte, argonSaltLen)
	_, _ = rand.Read(salt)
	key := deriveKey([]byte(password), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// verifyPassword reports whether password matches the PHC hash; a malformed hash matches
// nothing.
func verifyPassword(password, phc string) bool {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var version int
	var memory, passes uint32
	var threads uint8
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &memory, &passes, &threads); err != nil {
		return false
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false
	}
	got := deriveKey([]byte(password), salt, passes, memory, threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// dummyHash is what a sign-in with an unknown email verifies against, so that it takes as long
// as one with a known email.
var dummyHash = sync.OnceValue(func() string { return hashPassword(studio.RandomBase62(20)) })

// Token shapes: a prefix and base62 characters.
const (
	sessionPrefix = "rss_"
	sessionChars  = 43 // 256 random bits
	tokenPrefix   = "rst_"
	tokenChars    = 40
	linkChars     = 43
)

// newSecret returns a fresh secret of prefix and n base62 characters, and its hash.
func newSecret(prefix string, n int) (plain string, hash []byte) {
	plain = prefix + studio.RandomBase62(n)
	return plain, hashSecret(plain)
}

// hashSecret is the stored form of a session token, access token or link token: the studio
// module's key hash, for the same reason (they carry 230+ random bits).
var hashSecret = studio.HashKey

// wellFormed reports whether s is prefix and n base62 characters.
func wellFormed(s, prefix string, n int) bool {
	rest, ok := strings.CutPrefix(s, prefix)
	return ok && len(rest) == n && studio.IsBase62(rest)
}
