package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
)

// An operator operation registered on the public API (or another on the operator API) stops
// the server from being built, so no operation can end up in the wrong document.
func TestOperationsJoinTheDocumentOfTheirAudience(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	op := func(path string) huma.Operation {
		return huma.Operation{OperationID: "x", Method: http.MethodGet, Path: path, Summary: "x"}
	}
	require.Panics(t, func() {
		s := New(Config{})
		huma.Register(s.API, s.Operator(op("/admin/v1/x")), noop)
	})
	require.Panics(t, func() {
		s := New(Config{})
		huma.Register(s.OperatorAPI, op("/x"), noop)
	})
	s := New(Config{})
	huma.Register(s.OperatorAPI, s.Operator(op("/admin/v1/x")), noop)
	huma.Register(s.API, op("/x"), noop)
	require.NotNil(t, s.PathItem("/admin/v1/x"))
	require.NotNil(t, s.PathItem("/x"))
	require.Nil(t, s.API.OpenAPI().Paths["/admin/v1/x"])
}

func TestServersAreTheConfiguredHosts(t *testing.T) {
	t.Parallel()
	urls := func(servers []*huma.Server) []string {
		var out []string
		for _, s := range servers {
			out = append(out, s.URL)
		}
		return out
	}
	hosts := Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "::1"}}
	require.Equal(t, []string{"http://live.localhost:8080", "http://localhost:8080", "http://[::1]:8080"},
		urls(Servers(hosts, "http://localhost:8080")))
	require.Equal(t, []string{"https://api.example.com/rewards", "https://sandbox.example.com/rewards"},
		urls(Servers(Hosts{Live: []string{"api.example.com"}, Dev: []string{"sandbox.example.com"}}, "https://api.example.com/rewards/")))
	require.Equal(t, []string{"http://live.localhost", "http://localhost", "http://[::1]"}, urls(Servers(hosts, "")))
	servers := Servers(hosts, "http://localhost:8080")
	require.Contains(t, servers[0].Description, "rk_live_")
	require.Contains(t, servers[1].Description, "rk_test_")

	s := New(Config{Hosts: hosts, PublicURL: "http://localhost:8080", Version: "v1.4.0"})
	require.Equal(t, urls(servers), urls(s.API.OpenAPI().Servers))
	require.Equal(t, []string{"http://localhost:8080"}, urls(s.OperatorAPI.OpenAPI().Servers))
	require.Equal(t, "v1.4.0", s.API.OpenAPI().Info.Version)
	require.Equal(t, "v1.4.0", s.OperatorAPI.OpenAPI().Info.Version)
}

type nameProbe struct{ Name string }

type nameProbeBody struct {
	Event struct {
		ID string `json:"id"`
	} `json:"event"`
}

func TestSchemaNamesSayWhatNotHow(t *testing.T) {
	t.Parallel()
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[nameProbeBody]():                    "NameProbeBody",
		reflect.TypeFor[*nameProbe]():                       "NameProbe",
		reflect.TypeFor[Envelope[nameProbeBody]]():          "NameProbeEnvelope",
		reflect.TypeFor[Envelope[[]nameProbeBody]]():        "NameProbeListEnvelope",
		reflect.TypeFor[Envelope[Page[nameProbeBody]]]():    "NameProbePageEnvelope",
		reflect.TypeFor[Envelope[map[string]string]]():      "StringMapEnvelope",
		reflect.TypeFor[Page[*nameProbe]]():                 "NameProbePage",
		reflect.TypeFor[Envelope[map[string][]nameProbe]](): "NameProbeListMapEnvelope",
	} {
		require.Equal(t, want, schemaName(typ, "ignored"), typ.String())
	}
	anonymous := reflect.TypeFor[struct{ A int }]()
	for hint, want := range map[string]string{
		"createStudioInputBody":   "CreateStudioRequest",
		"RotateKeyOutputBody":     "RotateKeyResponse",
		"UuidBodyBody":            "UuidRequest",
		"DeliveryBodyEventStruct": "DeliveryEvent",
		"get-thingRequest":        "GetThingRequest",
	} {
		require.Equal(t, want, schemaName(anonymous, hint), hint)
	}

	// In a document: the anonymous field of a body gets its role's name.
	s := New(Config{})
	huma.Register(s.API, huma.Operation{OperationID: "probe", Method: http.MethodGet, Path: "/probe", Summary: "x"},
		func(context.Context, *struct{}) (*struct{ Body Envelope[nameProbeBody] }, error) { return nil, nil })
	require.Contains(t, s.API.OpenAPI().Components.Schemas.Map(), "NameProbeEnvelope")
	require.Contains(t, s.API.OpenAPI().Components.Schemas.Map(), "NameProbeEvent")
}

func TestOperationsDeclareTheirErrorCodes(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	s := New(Config{})
	huma.Register(s.API, s.APIKey(huma.Operation{OperationID: "get-probe", Method: http.MethodGet, Path: "/probes", Summary: "x",
		Description: "404 STUDIO_NOT_FOUND for an unknown probe; 409 IDEMPOTENCY_IN_PROGRESS while another runs; GIFT_CARD is no code.",
		Errors:      []int{http.StatusNotFound}}), noop)
	doc := s.API.OpenAPI()
	op := doc.Paths["/probes"].Get
	schema := doc.Components.Schemas.Map()["GetProbeError"]
	require.NotNil(t, schema)
	require.Equal(t, []any{"API_KEY_MISSING", "API_KEY_REVOKED", "API_KEY_UNKNOWN", "API_KEY_WRONG_ENVIRONMENT",
		"IDEMPOTENCY_IN_PROGRESS", "INTERNAL", "SERVICE_UNAVAILABLE", "STUDIO_NOT_FOUND", "UNAVAILABLE", "UNKNOWN_HOST",
		"VALIDATION_FAILED"}, schema.Properties["code"].Enum)
	for status, codes := range map[string]string{
		"401": "API_KEY_MISSING, API_KEY_REVOKED, API_KEY_UNKNOWN, API_KEY_WRONG_ENVIRONMENT",
		"404": "STUDIO_NOT_FOUND",
		"409": "IDEMPOTENCY_IN_PROGRESS", // named, so declared although Errors left it out
		"421": "UNKNOWN_HOST",
		"500": "INTERNAL",
		// The kit's own statuses, which every operation declares (declareKitStatuses).
		"400": "VALIDATION_FAILED",
		"503": "SERVICE_UNAVAILABLE, UNAVAILABLE",
	} {
		require.Contains(t, op.Responses, status)
		require.Contains(t, op.Responses[status].Description, codes, status)
		require.Equal(t, "#/components/schemas/GetProbeError", op.Responses[status].Content["application/json"].Schema.Ref, status)
	}
	// The shared error schema is untouched.
	require.Nil(t, doc.Components.Schemas.Map()["APIError"].Properties["code"].Enum)

	// A status declared with no code named takes every code of its kind.
	huma.Register(s.API, s.APIKey(huma.Operation{OperationID: "get-other", Method: http.MethodGet, Path: "/others", Summary: "x",
		Description: "Nothing named.", Errors: []int{http.StatusNotFound}}), noop)
	enum := doc.Components.Schemas.Map()["GetOtherError"].Properties["code"].Enum
	require.Contains(t, enum, "STUDIO_NOT_FOUND")
	require.Contains(t, enum, "NOT_FOUND")

	// A code of two statuses is listed once (strict generators refuse a repeated enum value).
	huma.Register(s.API, s.APIKey(huma.Operation{OperationID: "get-upstream", Method: http.MethodGet, Path: "/upstreams", Summary: "x",
		Description: "Nothing named.", Errors: []int{http.StatusBadGateway}}), noop)
	enum = doc.Components.Schemas.Map()["GetUpstreamError"].Properties["code"].Enum
	require.Contains(t, enum, "INTERNAL")
	require.Equal(t, slices.Compact(slices.Clone(enum)), enum, "each code once")
}
