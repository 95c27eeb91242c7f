package studio

// KeyHintChars is how many last characters of a key or secret the console shows: enough to tell
// two keys apart, far too few to guess one (a key has 32 random base62 characters).
const KeyHintChars = 4

// KeyHint returns the last KeyHintChars characters of a plaintext key or secret, which may be
// stored and shown beside its hash.
func KeyHint(plaintext string) string {
	if len(plaintext) <= KeyHintChars {
		return ""
	}
	return plaintext[len(plaintext)-KeyHintChars:]
}

// MaskedKey is how reads show the API key of env whose hint is hint: rk_live_…a1b2, or rk_live_…
// alone when the hint is unknown (a key issued before hints were kept).
func MaskedKey(env Environment, hint string) string { return keyPrefix(env) + "…" + hint }
