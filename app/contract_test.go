package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi/contract"
)

// checkedClient is the HTTP client of the tests: every answer of srv it receives is checked
// against the OpenAPI documents srv serves (contract.Checker), so that an answer the documents
// do not describe fails the test that received it. Redirects are not followed.
func checkedClient(t *testing.T, srv *httptest.Server) *http.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	checker, err := contract.Fetch(ctx, srv.Client(), srv.URL, adminToken)
	require.NoError(t, err, "the served OpenAPI documents")
	return &http.Client{
		Transport:     &onlyService{url: srv.URL, checked: checker.Transport(t, nil), plain: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}
}

// onlyService checks the answers of the service and carries the fakes' unchecked.
type onlyService struct {
	url            string
	checked, plain http.RoundTripper
}

func (o *onlyService) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasPrefix(req.URL.String(), o.url+"/") {
		return o.checked.RoundTrip(req)
	}
	return o.plain.RoundTrip(req)
}

// TestContractCheckFailsOnAnUndescribedAnswer: the check the suites rely on catches an
// undeclared status, a body off its schema and a route no document has.
func TestContractCheckFailsOnAnUndescribedAnswer(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ctx := context.Background()
	checker, err := contract.Fetch(ctx, a.srv.Client(), a.srv.URL, adminToken)
	require.NoError(t, err)
	req := httptest.NewRequest("GET", "/healthz", nil)
	ok := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"01J9Z6W3P4Q5R6S7T8V9W0X1Y2"}}
	require.NoError(t, checker.Check(ctx, req, 200, ok, []byte(`{"status":"ok"}`)))
	require.ErrorContains(t, checker.Check(ctx, req, 418, ok, []byte(`{"status":"ok"}`)), "status is not supported")
	require.ErrorContains(t, checker.Check(ctx, req, 200, ok, []byte(`{"status":7}`)), "doesn't match schema")
	require.ErrorContains(t, checker.Check(ctx, req, 200, http.Header{"Content-Type": {"application/json"}}, []byte(`{"status":"ok"}`)), `response header "X-Request-Id" missing`)
	require.ErrorIs(t, checker.Check(ctx, httptest.NewRequest("GET", "/nowhere", nil), 200, ok, []byte(`{}`)), contract.ErrNoOperation)

	var rec recorder
	client := &http.Client{Transport: checker.Transport(&rec, roundTripFunc(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 201, Header: ok, Body: http.NoBody}, nil
	}))}
	res, err := client.Get(a.srv.URL + "/healthz")
	require.NoError(t, err)
	res.Body.Close()
	require.Len(t, rec.errors, 1)
	require.Contains(t, rec.errors[0], "GET /healthz answered 201")
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// recorder is a contract.Reporter that keeps what is reported.
type recorder struct{ errors []string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// documentsAsJSON fetches every document the service serves, by path, as generic JSON.
func documentsAsJSON(t *testing.T, a *testAPI) map[string]map[string]any {
	t.Helper()
	docs := map[string]map[string]any{}
	for _, d := range contract.Documents {
		headers := map[string]string{}
		if d.Operator {
			headers["Authorization"] = "Bearer " + adminToken
		}
		r := a.do("GET", d.Path, "", headers, "")
		if r.Status == http.StatusNotFound && d.Optional {
			continue
		}
		require.Equal(t, 200, r.Status, d.Path)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(r.Raw, &doc), d.Path)
		docs[d.Path] = doc
	}
	return docs
}

// walkJSON calls fn on every object of v with its JSON pointer.
func walkJSON(v any, at string, fn func(at string, m map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(at, x)
		for k, c := range x {
			walkJSON(c, at+"/"+k, fn)
		}
	case []any:
		for i, c := range x {
			walkJSON(c, fmt.Sprintf("%s/%d", at, i), fn)
		}
	}
}

// TestServedDocumentsAreExact checks the served documents for what strict generators (ogen,
// oapi-codegen) trip on, beyond their validity (contract.Fetch validates each: the 3.0.3
// variant as 3.0.3) and what the contract check of every answer covers.
func TestServedDocumentsAreExact(t *testing.T) {
	t.Parallel()
	a := setup(t)
	docs := documentsAsJSON(t, a)
	_, err := contract.Fetch(context.Background(), a.srv.Client(), a.srv.URL, adminToken)
	require.NoError(t, err, "every served document is a valid OpenAPI document of its version")

	schemas := map[string]map[string]any{} // by document, then name
	operations := map[string]map[string]any{}
	for path, doc := range docs {
		for name, s := range doc["components"].(map[string]any)["schemas"].(map[string]any) {
			schemas[path+" "+name] = s.(map[string]any)
		}
		for _, item := range doc["paths"].(map[string]any) {
			for _, op := range item.(map[string]any) {
				if op, ok := op.(map[string]any); ok && op["operationId"] != nil {
					operations[path+" "+op["operationId"].(string)] = op
				}
			}
		}
		walkJSON(doc, path, func(at string, m map[string]any) {
			if strings.Contains(at, "/properties/") && strings.HasSuffix(at, "/properties") {
				return // property names, not keywords
			}
			// exclusiveMinimum: 0 (3.1) reads as a bool to a 3.0 reader such as ogen.
			for _, k := range []string{"exclusiveMinimum", "exclusiveMaximum"} {
				require.NotContains(t, m, k, at)
			}
			if strings.Contains(path, "3.0") {
				for _, k := range []string{"const", "examples", "contentMediaType", "contentEncoding", "prefixItems", "$defs"} {
					if k == "examples" && (strings.Contains(at, "/content/") || strings.HasSuffix(at, "/parameters")) {
						continue // a media type's or parameter's examples map is 3.0 too
					}
					require.NotContains(t, m, k, "%s: a 3.1 keyword in the 3.0.3 document", at)
				}
				if typ, ok := m["type"].([]any); ok {
					t.Errorf("%s: type %v is a 3.1 type array", at, typ)
				}
			}
		})
	}

	find := func(name string) []map[string]any {
		var out []map[string]any
		for k, s := range schemas {
			if strings.HasSuffix(k, " "+name) {
				out = append(out, s)
			}
		}
		require.NotEmpty(t, out, "schema %s", name)
		return out
	}
	// Nullable: a 3.1 type array with null, or 3.0's nullable; a $ref to a nullable schema.
	var nullable func(s map[string]any) bool
	nullable = func(s map[string]any) bool {
		if ref, ok := s["$ref"].(string); ok {
			name := ref[strings.LastIndex(ref, "/")+1:]
			return nullable(find(name)[0])
		}
		if s["nullable"] == true {
			return true
		}
		typ, _ := s["type"].([]any)
		return slices.Contains(typ, any("null"))
	}
	for _, f := range []struct{ schema, field string }{
		{"ServedBody", "asset"}, {"ServedBody", "item"}, {"ServedBody", "placementId"},
		{"ServedItemBody", "pricing"},
		{"AdminOrderBody", "address"}, {"AdminOrderBody", "debitTransactionId"}, {"AdminOrderBody", "refundTransactionId"},
		{"PartnerEntryBody", "orderId"},
	} {
		for _, s := range find(f.schema) {
			p := s["properties"].(map[string]any)[f.field].(map[string]any)
			require.True(t, nullable(p), "%s.%s can be null: it must be nullable", f.schema, f.field)
		}
	}

	// NodeBody.data: a schema of its own (no generated name collides with dataType's enum),
	// whose variants a discriminator tells apart.
	for _, s := range find("NodeBody") {
		require.Equal(t, "#/components/schemas/NodeData", s["properties"].(map[string]any)["data"].(map[string]any)["$ref"])
	}
	for _, s := range find("NodeData") {
		require.Equal(t, "type", s["discriminator"].(map[string]any)["propertyName"])
		require.Len(t, s["oneOf"], 2)
	}

	// Statuses of create-or-replay operations, and binary answers.
	for key, op := range operations {
		responses := op["responses"].(map[string]any)
		require.NotContains(t, responses, "default", "%s: a default answer hides undeclared statuses", key)
		for status, res := range responses {
			headers, _ := res.(map[string]any)["headers"].(map[string]any)
			require.Contains(t, headers, "X-Request-Id", "%s %s", key, status)
			if status == "429" || status == "503" {
				require.Contains(t, headers, "Retry-After", "%s %s", key, status)
			}
		}
		switch id := op["operationId"]; id {
		case "partner-place-order", "admin-partner-credit", "webhooks-configure":
			require.Contains(t, responses, "200", id)
			require.Contains(t, responses, "201", id)
		case "file":
			content := responses["200"].(map[string]any)["content"].(map[string]any)
			require.ElementsMatch(t, []string{"image/png", "image/jpeg", "image/webp"}, slices.Collect(maps.Keys(content)))
		}
	}
}
