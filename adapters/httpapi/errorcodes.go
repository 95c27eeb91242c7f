package httpapi

import (
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// The codes the kit itself answers, by the credentials an operation takes: each is an error of
// the middleware that checks them (requireAPIKey, requirePlayer, requireServerSecret,
// requireOperator).
var schemeCodes = map[string][]*errs.Error{
	schemeAPIKey:       {studio.ErrKeyMissing, studio.ErrKeyUnknown, studio.ErrKeyRevoked, studio.ErrKeyWrongEnvironment},
	schemePlayer:       {players.ErrTokenMissing, players.ErrTokenInvalid, players.ErrTokenOtherGame, players.ErrPlayerDisabled, players.ErrPlayerMismatch},
	schemeServerSecret: {studio.ErrServerSecretRequired},
	schemeOperator: {
		errs.New(errs.Unauthorized, "OPERATOR_TOKEN_MISSING", "missing operator token"),
		errs.New(errs.Unauthorized, "OPERATOR_TOKEN_INVALID", "invalid operator token"),
	},
}

// statusCodes are the codes the kit answers with a status whatever the operation, when the
// operation declares that status: request validation, the body limit, an unknown host, a
// failure of ours and the database out of reach.
var statusCodes = map[int][]string{
	http.StatusBadRequest:            {"VALIDATION_FAILED"},
	http.StatusRequestEntityTooLarge: {"BODY_TOO_LARGE"},
	http.StatusUnsupportedMediaType:  {"UNSUPPORTED_MEDIA_TYPE"},
	http.StatusNotAcceptable:         {"NOT_ACCEPTABLE"},
	http.StatusMisdirectedRequest:    {"UNKNOWN_HOST"},
	http.StatusInternalServerError:   {"INTERNAL"},
	http.StatusServiceUnavailable:    {"SERVICE_UNAVAILABLE", "UNAVAILABLE"},
}

// codeWord finds the words of a text that may be error codes.
var codeWord = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b`)

// documentErrorCodes declares the codes op can answer: the `code` of its error responses is an
// enum of them, in a schema of its own (<OperationId>Error), and each error response lists its
// codes. The codes are those of the credentials it takes, those of the statuses it declares that
// the kit answers itself, and every code of the core modules (errs.Declared) that its
// description or its parameters' descriptions name: the description, which has to tell users
// the codes anyway, is the one list, and a code it names gets its status declared too. A
// status declared with no code named takes every code of its kind.
func documentErrorCodes(oapi *huma.OpenAPI, op *huma.Operation) {
	byStatus := errorCodesOf(op)
	if len(byStatus) == 0 {
		return
	}
	ref := registerErrorSchema(oapi, op, byStatus)
	pointErrorResponses(op, byStatus, ref)
}

// errorCodesOf is the codes op can answer, by status.
func errorCodesOf(op *huma.Operation) map[int]map[string]bool {
	known := errs.Declared()
	byStatus := map[int]map[string]bool{}
	add := func(status int, code string) {
		if byStatus[status] == nil {
			byStatus[status] = map[string]bool{}
		}
		byStatus[status][code] = true
	}
	for _, req := range op.Security {
		for scheme := range req {
			for _, e := range schemeCodes[scheme] {
				add(statusOf[e.Kind], e.Code)
			}
		}
	}
	for key, resp := range op.Responses {
		status, err := strconv.Atoi(key)
		if err != nil || status < 400 || !refersTo(resp, "APIError") {
			continue
		}
		for _, code := range statusCodes[status] {
			add(status, code)
		}
	}
	texts := []string{op.Description}
	for _, p := range op.Parameters {
		texts = append(texts, p.Description)
	}
	if op.RequestBody != nil {
		texts = append(texts, op.RequestBody.Description)
	}
	for _, text := range texts {
		for _, code := range codeWord.FindAllString(text, -1) {
			if status, ok := statusOf[known[code]]; ok {
				add(status, code)
			}
		}
	}
	// A status declared with no code named: any code of its kind may come (and the kit's
	// default code of the status), so a strict client decodes whatever the operation answers.
	for key, resp := range op.Responses {
		status, err := strconv.Atoi(key)
		if err != nil || status < 400 || len(byStatus[status]) > 0 || !refersTo(resp, "APIError") {
			continue
		}
		add(status, defaultCode(status))
		for code, kind := range known {
			if statusOf[kind] == status {
				add(status, code)
			}
		}
	}
	return byStatus
}

// registerErrorSchema registers the schema <OperationId>Error, an APIError whose `code` is an enum
// of the codes of byStatus, and is a reference to it.
func registerErrorSchema(oapi *huma.OpenAPI, op *huma.Operation, byStatus map[int]map[string]bool) *huma.Schema {
	registry := oapi.Components.Schemas
	base := registry.Schema(reflect.TypeFor[APIError](), false, "APIError")
	name := hintName(op.OperationID) + "Error"
	schema := *base
	schema.Description = "An error of " + op.OperationID + ": `code` is one of the codes it answers."
	schema.Properties = maps.Clone(base.Properties)
	code := *base.Properties["code"]
	var all []string
	for _, codes := range byStatus {
		all = append(all, slices.Collect(maps.Keys(codes))...)
	}
	// A code may come with two statuses (INTERNAL is the 500's and the default of any other
	// 5xx); an enum lists each value once.
	slices.Sort(all)
	all = slices.Compact(all)
	code.Enum = make([]any, len(all))
	for i, c := range all {
		code.Enum[i] = c
	}
	code.Examples = []any{all[0]}
	schema.Properties["code"] = &code
	registry.Map()[name] = &schema
	return &huma.Schema{Ref: "#/components/schemas/" + name}
}

// pointErrorResponses makes each error response of byStatus's statuses take the schema ref and
// list its codes, adding the responses op does not declare.
func pointErrorResponses(op *huma.Operation, byStatus map[int]map[string]bool, ref *huma.Schema) {
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	for status, codes := range byStatus {
		key := strconv.Itoa(status)
		resp := op.Responses[key]
		if resp == nil {
			resp = &huma.Response{Content: map[string]*huma.MediaType{"application/json": {}}}
			op.Responses[key] = resp
		} else if !refersTo(resp, "APIError") {
			continue
		}
		for _, mt := range resp.Content {
			mt.Schema = ref
		}
		resp.Description = http.StatusText(status) + ": " + strings.Join(slices.Sorted(maps.Keys(codes)), ", ")
	}
}

// refersTo reports whether every content of resp is the named schema.
func refersTo(resp *huma.Response, schema string) bool {
	if resp == nil || len(resp.Content) == 0 {
		return false
	}
	for _, mt := range resp.Content {
		if mt.Schema == nil || mt.Schema.Ref != "#/components/schemas/"+schema {
			return false
		}
	}
	return true
}
