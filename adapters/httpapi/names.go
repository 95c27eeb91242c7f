package httpapi

import (
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
)

// schemaName names the schemas of the OpenAPI documents, which generated clients turn into type
// names. Named types keep their Go name (GameBody), as Huma names them. What Huma would name
// after Go internals gets a name after its role instead:
//   - an operation's anonymous request or response body, which Huma names after the Go input or
//     output type (createStudioInput → CreateStudioInputBody), is CreateStudioRequest, and a
//     response body (rotateKeyOutput → RotateKeyOutputBody) RotateKeyResponse;
//   - an anonymous struct field (DeliveryBody.Event → DeliveryBodyEventStruct) is DeliveryEvent;
//   - a generic type is named after its arguments, the Body of their names left out:
//     Envelope[PartnerOrderBody] is PartnerOrderEnvelope, Page[RewardBody] RewardPage,
//     Envelope[[]WebhookConfigBody] WebhookConfigListEnvelope, Envelope[map[string]string]
//     StringMapEnvelope.
//
// Names stay unique: Huma's registry refuses (panics on) a second type under a name taken.
func schemaName(t reflect.Type, hint string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	name := t.Name()
	switch {
	case name == "" && t.Kind() == reflect.Struct:
		return hintName(hint)
	case strings.Contains(name, "["):
		return typeName(name)
	}
	return huma.DefaultSchemaNamer(t, hint)
}

// hintName names an anonymous struct from the hint Huma gives it.
func hintName(hint string) string {
	for _, r := range []struct{ suffix, role string }{
		{"InputBody", "Request"},
		{"OutputBody", "Response"},
		{"BodyBody", "Request"}, // an input type named …Body with its Body field
	} {
		if base, ok := strings.CutSuffix(hint, r.suffix); ok && base != "" {
			return upperFirst(base) + r.role
		}
	}
	if base, ok := strings.CutSuffix(hint, "Struct"); ok && base != "" {
		// Parent + field: the parent's Body says nothing.
		return upperFirst(strings.ReplaceAll(base, "Body", ""))
	}
	// An operation's unnamed input or output: Huma hints operationId + Request/Response.
	var b strings.Builder
	for part := range strings.FieldsFuncSeq(hint, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		b.WriteString(upperFirst(part))
	}
	return b.String()
}

// typeName names a Go type from its reflect name, which spells generic arguments with their
// package paths: github.com/…/httpapi.Envelope[github.com/…/partnerapi.PartnerOrderBody].
func typeName(s string) string {
	switch {
	case strings.HasPrefix(s, "*"):
		return typeName(s[1:])
	case strings.HasPrefix(s, "[]"):
		return typeName(s[2:]) + "List"
	case strings.HasPrefix(s, "map["):
		_, value := splitBracket(s[len("map"):])
		return typeName(value) + "Map"
	}
	if i := strings.IndexByte(s, '['); i >= 0 {
		args, _ := splitBracket(s[i:])
		var b strings.Builder
		for _, a := range splitArgs(args) {
			b.WriteString(typeName(a))
		}
		return b.String() + typeName(s[:i])
	}
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s = s[i+1:]
	}
	if base, ok := strings.CutSuffix(s, "Body"); ok && base != "" {
		s = base
	}
	return upperFirst(s)
}

// splitBracket splits "[inside]rest" at the bracket matching the first.
func splitBracket(s string) (inside, rest string) {
	depth := 0
	for i, r := range s {
		if depth += nesting(r); r == ']' && depth == 0 {
			return s[1:i], s[i+1:]
		}
	}
	return s, ""
}

// splitArgs splits a list of generic arguments at its top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		if depth += nesting(r); r == ',' && depth == 0 {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// nesting is how r changes the depth of brackets in a type name.
func nesting(r rune) int {
	switch r {
	case '[':
		return 1
	case ']':
		return -1
	}
	return 0
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
