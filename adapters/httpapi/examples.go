package httpapi

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// documentExamples gives op an example of its JSON request body and of each JSON success body
// that has none: a whole body built from its schema, from the `example` (then `default`, then
// first `enum`) value of each field, and for fields with none a value that the field's rules
// accept. An operation that sets its own example keeps it.
func documentExamples(oapi *huma.OpenAPI, op *huma.Operation) {
	registry := oapi.Components.Schemas
	if op.RequestBody != nil {
		for ct, mt := range op.RequestBody.Content {
			if isJSON(ct) && mt.Schema != nil && mt.Example == nil && mt.Examples == nil {
				mt.Example = exampleOf(registry, mt.Schema, "", 0)
			}
		}
	}
	for key, resp := range op.Responses {
		status, err := strconv.Atoi(key)
		if err != nil || status < 200 || status >= 300 {
			continue
		}
		for ct, mt := range resp.Content {
			if isJSON(ct) && mt.Schema != nil && mt.Example == nil && mt.Examples == nil {
				mt.Example = exampleOf(registry, mt.Schema, "", 0)
			}
		}
	}
}

func isJSON(contentType string) bool {
	return contentType == "application/json" || strings.HasSuffix(contentType, "+json")
}

// exampleUUID is the id of every example.
const exampleUUID = "3f2c9a7e-8b41-4d2a-9c1e-5a6b7c8d9e0f"

// patternExamples are values for the patterns fields carry without an example of their own.
var patternExamples = []string{"+919876543210", "LEVEL_COMPLETE", "GIFT_CARDS", "order-1001", "560001", "user-8812", "https://play.example.com", "IN"}

// exampleOf builds a value of schema s (the field named name), at most a few levels deep:
// recursive shapes (a tree node's children) stop at their optional fields.
func exampleOf(r huma.Registry, s *huma.Schema, name string, depth int) any {
	if s == nil {
		return nil
	}
	if s.Ref != "" {
		target := r.SchemaFromRef(s.Ref)
		if target == nil {
			return nil
		}
		return exampleOf(r, target, name, depth)
	}
	switch {
	case len(s.Examples) > 0:
		return s.Examples[0]
	case s.Default != nil:
		return s.Default
	case len(s.Enum) > 0:
		return s.Enum[0]
	case len(s.OneOf) > 0:
		return exampleOf(r, s.OneOf[0], name, depth)
	case len(s.AnyOf) > 0:
		return exampleOf(r, s.AnyOf[0], name, depth)
	}
	switch s.Type {
	case huma.TypeObject:
		out := map[string]any{}
		for _, prop := range slices.Sorted(func(yield func(string) bool) {
			for k := range s.Properties {
				if !yield(k) {
					return
				}
			}
		}) {
			ps := s.Properties[prop]
			required := slices.Contains(s.Required, prop)
			if !required && (depth >= 3 || !hasOwnExample(r, ps)) {
				continue
			}
			out[prop] = exampleOf(r, ps, prop, depth+1)
		}
		return out
	case huma.TypeArray:
		item := exampleOf(r, s.Items, strings.TrimSuffix(name, "s"), depth+1)
		n := 1
		if s.MinItems != nil && *s.MinItems > n {
			n = *s.MinItems
		}
		if s.MaxItems != nil && *s.MaxItems < n {
			n = *s.MaxItems
		}
		out := make([]any, n)
		for i := range out {
			out[i] = item
		}
		return out
	case huma.TypeInteger, huma.TypeNumber:
		v := 1.0
		if s.Minimum != nil && *s.Minimum > v {
			v = *s.Minimum
		}
		if s.ExclusiveMinimum != nil && *s.ExclusiveMinimum >= v {
			v = *s.ExclusiveMinimum + 1
		}
		if s.Maximum != nil && *s.Maximum < v {
			v = *s.Maximum
		}
		if s.Type == huma.TypeInteger {
			return int64(v)
		}
		return v
	case huma.TypeBoolean:
		return true
	case huma.TypeString:
		return exampleString(s, name)
	}
	return nil
}

// hasOwnExample reports whether an optional field is worth showing: it has an example of its
// own, or is an object or list (whose fields may).
func hasOwnExample(r huma.Registry, s *huma.Schema) bool {
	if s.Ref != "" {
		s = r.SchemaFromRef(s.Ref)
	}
	return s != nil && (len(s.Examples) > 0 || s.Type == huma.TypeObject && len(s.Properties) > 0 || s.Type == huma.TypeArray && s.Items != nil && hasOwnExample(r, s.Items))
}

// exampleString is a string that the rules of s accept, fitting the field's name.
func exampleString(s *huma.Schema, name string) string {
	lower := strings.ToLower(name)
	var candidates []string
	switch s.Format {
	case "date-time":
		candidates = append(candidates, "2026-01-15T10:30:00Z")
	case "date":
		candidates = append(candidates, "2026-01-15")
	case "email":
		candidates = append(candidates, "player@example.com")
	case "uri", "url":
		candidates = append(candidates, "https://cdn.example.com/image.png")
	case "uuid":
		candidates = append(candidates, exampleUUID)
	}
	switch {
	case lower == "id" || strings.HasSuffix(lower, "id"):
		candidates = append(candidates, exampleUUID)
	case strings.HasSuffix(lower, "url") || strings.HasSuffix(lower, "image") || strings.HasSuffix(lower, "link"):
		candidates = append(candidates, "https://cdn.example.com/image.png")
	case strings.HasSuffix(lower, "at") || strings.HasSuffix(lower, "date") || strings.Contains(lower, "expir"):
		candidates = append(candidates, "2026-01-15T10:30:00Z")
	}
	if s.Pattern != "" {
		candidates = append(candidates, patternExamples...)
	}
	candidates = append(candidates, "example")
	var re *regexp.Regexp
	if s.Pattern != "" {
		re, _ = regexp.Compile(s.Pattern)
	}
	for _, c := range candidates {
		if re != nil && !re.MatchString(c) {
			continue
		}
		if s.MinLength != nil && len([]rune(c)) < *s.MinLength {
			c += strings.Repeat("x", *s.MinLength-len([]rune(c)))
		}
		if s.MaxLength != nil && len([]rune(c)) > *s.MaxLength {
			c = string([]rune(c)[:*s.MaxLength])
		}
		return c
	}
	return "example"
}
