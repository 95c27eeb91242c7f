package httpapi

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// An error answer is small whatever the request ("Bounded answers, whatever comes in" in the
// API decisions): at most maxDetails details, each of bounded parts, so that a 4xx body stays
// under 16 KiB. The parts are measured as JSON writes them (clip), so that escaping cannot grow
// them past the bound: 20 × (128 + 256 + 256 + the keys) plus a message of 1,024 is about 15 kB.
const (
	maxDetails       = 20
	maxLocationBytes = 128
	maxDetailBytes   = 256
	maxValueBytes    = 256
	maxMessageBytes  = 1024
	// maxNamedFields is how many unknown fields one detail names.
	maxNamedFields = 20
)

// credentialWords mark a field whose value is a credential, which no answer repeats: a
// detail about it says where and what is wrong, never the value.
var credentialWords = []string{"secret", "password", "token", "key", "authorization", "otp", "pin", "cookie"}

// boundedDetail is a validation failure as answered: its location and message clipped, and its
// value only when it is a short scalar that is not a credential. An object or array (Huma gives
// the whole body as the value of some failures) is never repeated.
func boundedDetail(location, message string, value any) ErrorDetail {
	return ErrorDetail{
		Location: clip(location, maxLocationBytes),
		Message:  clip(message, maxDetailBytes),
		Value:    boundedValue(location, value),
	}
}

func boundedValue(location string, value any) any {
	if location == "body" || isCredential(location) {
		return nil
	}
	switch v := value.(type) {
	case string:
		if strings.ContainsFunc(v, unicode.IsControl) {
			return nil // not text a person reads back, and JSON encoders escape it differently
		}
		return clip(v, maxValueBytes)
	case bool, float64, float32, int, int64, int32, uint, uint64, uint32:
		return v
	}
	return nil
}

// isCredential reports whether the last part of a location (body.client_secret,
// header.X-Api-Key) names a credential.
func isCredential(location string) bool {
	name := strings.ToLower(location[strings.LastIndexAny(location, ".[")+1:])
	return slices.ContainsFunc(credentialWords, func(w string) bool { return strings.Contains(name, w) })
}

// unknownFields gathers the unknown fields of a body into one detail.
type unknownFields struct {
	at     int // the index of its detail
	parent string
	names  []string
	count  int
}

func (u *unknownFields) add(name string) {
	u.count++
	if len(u.names) < maxNamedFields && fieldName.MatchString(name) {
		u.names = append(u.names, name)
	}
}

// fieldName is a name an answer repeats: what a client's field names look like. Others (a
// whole body read as a form's one field name, say) are counted, not shown.
var fieldName = regexp.MustCompile(`^[A-Za-z0-9_$@-]{1,32}$`)

func (u *unknownFields) detail() ErrorDetail {
	slices.Sort(u.names)
	msg := "unknown field"
	if u.count == 1 && len(u.names) == 1 {
		// One unknown field is located as any other failure is: at the field itself.
		return ErrorDetail{Location: clip(u.parent+"."+u.names[0], maxLocationBytes), Message: msg}
	} else if u.count > 1 {
		msg = fmt.Sprintf("%d unknown fields", u.count)
		for i, name := range u.names {
			next := ": " + name
			if i > 0 {
				next = ", " + name
			}
			if jsonRestWidth(msg+next) > maxDetailBytes-len(" …") {
				msg += " …"
				break
			}
			msg += next
		}
	}
	return ErrorDetail{Location: clip(u.parent, maxLocationBytes), Message: clip(msg, maxDetailBytes)}
}

// splitField splits the location of an unknown field (Huma's parent.name) into its parent and
// its name, given the object that holds it. A name with a dot of its own cannot be told from a
// nested location: the field is then named as a whole, under the body.
func splitField(location string, object any) (parent, name string) {
	if i := strings.LastIndexByte(location, '.'); i > 0 {
		parent, name = location[:i], location[i+1:]
		if m, ok := object.(map[string]any); ok {
			if _, found := m[name]; found {
				return parent, name
			}
		}
	}
	return "body", strings.TrimPrefix(location, "body.")
}

// clip cuts s to at most max bytes as JSON writes it (a control character takes 6, as do <, >
// and & when escaped, and a rune that is not valid UTF-8 becomes U+FFFD's 3), on a character
// boundary, and marks the cut with an ellipsis.
func clip(s string, max int) string {
	const ellipsis = "…"
	width := 0
	for i, r := range s {
		w := jsonWidth(r)
		if width+w > max-len(ellipsis) {
			if width+jsonRestWidth(s[i:]) <= max {
				return s
			}
			return s[:i] + ellipsis
		}
		width += w
	}
	return s
}

// jsonRestWidth is the JSON width of s.
func jsonRestWidth(s string) int {
	n := 0
	for _, r := range s {
		n += jsonWidth(r)
	}
	return n
}

func jsonWidth(r rune) int {
	switch {
	case r == utf8.RuneError:
		return 3
	case r < 0x20 || r == '<' || r == '>' || r == '&' || r == '\u2028' || r == '\u2029':
		return 6
	case r == '"' || r == '\\':
		return 2
	}
	return utf8.RuneLen(r)
}
