package app_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/app"
)

// docsServer is the assembled HTTP API with no modules behind it: enough to read its documents.
func docsServer(t *testing.T) http.Handler {
	t.Helper()
	return app.NewServer(app.Modules{}, app.ServerConfig{AdminToken: adminToken}).Handler()
}

// get answers a GET of path with the given headers.
func get(t *testing.T, h http.Handler, path string, headers map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// operations lists "METHOD path" → tags of every operation of a served document.
func operations(t *testing.T, doc map[string]any) map[string][]any {
	t.Helper()
	out := map[string][]any{}
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			if o, ok := op.(map[string]any); ok && o["operationId"] != nil {
				tags, _ := o["tags"].([]any)
				out[strings.ToUpper(method)+" "+path] = tags
			}
		}
	}
	return out
}

func TestOperatorOpenAPIDocumentIsCommittedAndFresh(t *testing.T) {
	t.Parallel()
	want, err := app.OperatorOpenAPIYAML()
	require.NoError(t, err)
	got, err := os.ReadFile("../adapters/httpapi/openapi-operator.yaml")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "adapters/httpapi/openapi-operator.yaml is stale: run `go tool task generate`")
}

func TestStudioOpenAPIDocumentIsCommittedAndFresh(t *testing.T) {
	t.Parallel()
	want, err := app.StudioOpenAPIYAML()
	require.NoError(t, err)
	got, err := os.ReadFile("../adapters/httpapi/openapi-studio.yaml")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "adapters/httpapi/openapi-studio.yaml is stale: run `go tool task generate`")
}

// Studios and partners read the public documents: no operator operation, tag or scheme is in
// them, in any of the forms served, and no operation of the studio API (it has its own).
func TestPublicDocumentsLeaveOutTheOperatorAPI(t *testing.T) {
	t.Parallel()
	h := docsServer(t)
	for _, path := range []string{"/openapi.json", "/openapi-3.0.json", "/openapi.yaml"} {
		r := get(t, h, path, nil)
		require.Equal(t, http.StatusOK, r.Code, path)
		var doc map[string]any
		if strings.HasSuffix(path, ".yaml") {
			require.NoError(t, yaml.Unmarshal(r.Body.Bytes(), &doc), path)
		} else {
			require.NoError(t, json.Unmarshal(r.Body.Bytes(), &doc), path)
		}
		ops := operations(t, doc)
		require.NotEmpty(t, ops, path)
		for op, tags := range ops {
			require.NotContains(t, op, "/admin", path)
			require.NotContains(t, op, "/studio/v1/", path)
			require.NotContains(t, tags, httpapi.TagOperator, "%s: %s", path, op)
		}
		require.NotContains(t, ops, "GET /metrics", path)
		for _, word := range []string{"operatorBearer", "REWARDS_ADMIN_TOKEN"} {
			require.False(t, strings.Contains(r.Body.String(), word), "%s mentions %s", path, word)
		}
	}
}

// The operator API's own document lists exactly the operator operations and is served only
// with the operator token.
func TestOperatorDocumentNeedsTheOperatorToken(t *testing.T) {
	t.Parallel()
	h := docsServer(t)
	bearer := map[string]string{"Authorization": "Bearer " + adminToken}
	for _, path := range []string{"/admin/v1/openapi.json", "/admin/v1/openapi-3.0.json", "/admin/v1/openapi.yaml", "/admin/docs/"} {
		r := get(t, h, path, nil)
		require.Equal(t, http.StatusUnauthorized, r.Code, path)
		require.Contains(t, r.Body.String(), `"OPERATOR_TOKEN_MISSING"`, path)
		require.Contains(t, r.Header().Get("WWW-Authenticate"), "Basic", "%s: a browser must be asked for the token", path)
		require.NotContains(t, r.Body.String(), "admin-create-studio", path)

		r = get(t, h, path, map[string]string{"Authorization": "Bearer wrong"})
		require.Equal(t, http.StatusUnauthorized, r.Code, path)
		require.Contains(t, r.Body.String(), `"OPERATOR_TOKEN_INVALID"`, path)

		r = get(t, h, path, bearer)
		require.Equal(t, http.StatusOK, r.Code, path)
	}

	// A browser gives the token as the password of HTTP Basic authentication.
	req := httptest.NewRequest(http.MethodGet, "/admin/docs/", nil)
	req.SetBasicAuth("operator", adminToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), "/admin/v1/openapi.json", "the page reads the operator document")
	req.SetBasicAuth("operator", "wrong")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code)

	r := get(t, h, "/admin/v1/openapi.json", bearer)
	require.Equal(t, "application/openapi+json", r.Header().Get("Content-Type"))
	var doc map[string]any
	require.NoError(t, json.Unmarshal(r.Body.Bytes(), &doc))
	ops := operations(t, doc)
	require.Len(t, ops, 39)
	require.Contains(t, ops, "POST /admin/v1/studios")
	require.Contains(t, ops, "GET /metrics")
	for op, tags := range ops {
		require.Equal(t, []any{httpapi.TagOperator}, tags, op)
	}

	r = get(t, h, "/admin/v1/openapi-3.0.json", bearer)
	require.NoError(t, json.Unmarshal(r.Body.Bytes(), &doc))
	require.Equal(t, "3.0.3", doc["openapi"])
	require.Len(t, operations(t, doc), 39)
}

// The studio API's document is public (a studio reads it before it has credentials) and lists
// exactly the studio API, under /studio/v1, each operation of it tagged and secured, but the few
// that make credentials.
func TestStudioDocumentIsPublicAndItsOwn(t *testing.T) {
	t.Parallel()
	h := docsServer(t)
	for _, path := range []string{"/studio/v1/openapi.json", "/studio/v1/openapi-3.0.json", "/studio/v1/openapi.yaml"} {
		r := get(t, h, path, nil)
		require.Equal(t, http.StatusOK, r.Code, path)
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal(r.Body.Bytes(), &doc), path) // JSON is YAML
		ops := operations(t, doc)
		require.Greater(t, len(ops), 40, path)
		for op, tags := range ops {
			require.Contains(t, op, " /studio/v1/", path)
			require.NotEmpty(t, tags, op)
			require.NotContains(t, tags, httpapi.TagOperator, op)
		}
		require.Contains(t, ops, "POST /studio/v1/sessions", path)
		require.Contains(t, ops, "GET /studio/v1/audit", path)
		for _, word := range []string{"operatorBearer", "REWARDS_ADMIN_TOKEN", "playerBearer"} {
			require.False(t, strings.Contains(r.Body.String(), word), "%s mentions %s", path, word)
		}
	}
	r := get(t, h, "/studio/docs/", nil)
	require.Equal(t, http.StatusOK, r.Code)
	require.Contains(t, r.Body.String(), "/studio/v1/openapi.json", "the page reads the studio document")
}

// The served documents name the release and the configured hosts, with the scheme and port of
// REWARDS_PUBLIC_URL.
func TestDocumentsNameTheReleaseAndTheConfiguredHosts(t *testing.T) {
	t.Parallel()
	h := app.NewServer(app.Modules{}, app.ServerConfig{AdminToken: adminToken, PublicURL: "https://api.example.com",
		Hosts: httpapi.Hosts{Live: []string{"api.example.com"}, Dev: []string{"sandbox.example.com"}}}).Handler()
	var doc struct {
		Info    struct{ Version string }
		Servers []struct{ URL, Description string }
	}
	require.NoError(t, json.Unmarshal(get(t, h, "/openapi.json", nil).Body.Bytes(), &doc))
	require.Equal(t, app.Release(), doc.Info.Version)
	require.Len(t, doc.Servers, 2)
	require.Equal(t, "https://api.example.com", doc.Servers[0].URL)
	require.Contains(t, doc.Servers[0].Description, "Live")
	require.Equal(t, "https://sandbox.example.com", doc.Servers[1].URL)
	require.Contains(t, doc.Servers[1].Description, "Test")

	require.NoError(t, json.Unmarshal(get(t, h, "/admin/v1/openapi.json", map[string]string{"Authorization": "Bearer " + adminToken}).Body.Bytes(), &doc))
	require.Equal(t, app.Release(), doc.Info.Version)
	require.Len(t, doc.Servers, 1)
	require.Equal(t, "https://api.example.com", doc.Servers[0].URL)
}

// Generated clients turn schema names into type names: none is made of Go internals (Input,
// Output, Struct, a generic's spelling), and each is a plain identifier. Unique names are
// Huma's registry's own rule (it refuses a second type under a name taken).
func TestSchemaNamesAreClean(t *testing.T) {
	t.Parallel()
	srv := app.NewServer(app.Modules{}, app.ServerConfig{})
	leak := regexp.MustCompile(`InputBody|OutputBody|BodyBody|Struct$|^Envelope[A-Z]|^Page[A-Z]|MapString`)
	identifier := regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	for _, api := range []huma.API{srv.API, srv.OperatorAPI, srv.StudioAPI} {
		names := slices.Sorted(maps.Keys(api.OpenAPI().Components.Schemas.Map()))
		require.NotEmpty(t, names)
		for _, name := range names {
			require.Regexp(t, identifier, name)
			require.NotRegexp(t, leak, name)
		}
	}
}

// codesNoOperationAnswers are codes the core modules declare that never reach a client, each
// with the reason; every other code of a module's errors.go is in the error enum of an operation.
var codesNoOperationAnswers = map[string]string{
	"CATEGORY_NOT_FOUND":     "declared, returned by no code (an unknown category code is 400 VALIDATION_FAILED)",
	"PRODUCT_NOT_FOUND":      "declared, returned by no code",
	"DELIVERY_NOT_FOUND":     "declared, returned by no code",
	"ASSET_NOT_FOUND":        "the touchpoints service turns it into 400 VALIDATION_FAILED naming asset.presetId",
	"WEBHOOK_TARGET_REFUSED": "a delivery's outcome (errorMessage of a delivery or of the test call), not an answer",
	"ILLEGAL_TRANSITION":     "internal: a 500",
}

// Each code a module declares for clients (core/<module>/errors.go) is in the `code` enum of
// at least one operation of the served documents, so a generated client knows every code.
func TestEveryModuleCodeIsDeclaredByAnOperation(t *testing.T) {
	t.Parallel()
	srv := app.NewServer(app.Modules{}, app.ServerConfig{})
	inEnum := map[string]bool{}
	for _, api := range []huma.API{srv.API, srv.OperatorAPI, srv.StudioAPI} {
		for _, schema := range api.OpenAPI().Components.Schemas.Map() {
			if code := schema.Properties["code"]; code != nil {
				for _, c := range code.Enum {
					inEnum[c.(string)] = true
				}
			}
		}
	}
	files, err := filepath.Glob("../core/*/errors.go")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	sentinel := regexp.MustCompile(`errs\.New\(errs\.\w+,\s*"([A-Z0-9_]+)"`)
	seen := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range sentinel.FindAllStringSubmatch(string(src), -1) {
			seen++
			if _, ok := codesNoOperationAnswers[m[1]]; ok {
				continue
			}
			require.True(t, inEnum[m[1]], "%s (%s) is in no operation's error codes: name it in the description of the operations that answer it", m[1], f)
		}
	}
	require.Greater(t, seen, 50)
}

// Every JSON request body and success body has an example, and each example is what its
// schema accepts (checked with Huma's own validator, as a request would be).
func TestEveryBodyHasAValidExample(t *testing.T) {
	t.Parallel()
	srv := app.NewServer(app.Modules{}, app.ServerConfig{})
	checked := 0
	for _, api := range []huma.API{srv.API, srv.OperatorAPI, srv.StudioAPI} {
		doc := api.OpenAPI()
		check := func(where string, mt *huma.MediaType, mode huma.ValidateMode) {
			t.Helper()
			require.NotNil(t, mt.Example, "%s has no example", where)
			b, err := json.Marshal(mt.Example)
			require.NoError(t, err, where)
			var v any
			require.NoError(t, json.Unmarshal(b, &v), where)
			res := &huma.ValidateResult{}
			huma.Validate(doc.Components.Schemas, mt.Schema, huma.NewPathBuffer(nil, 0), mode, v, res)
			require.Empty(t, res.Errors, "%s: the example %s is not valid", where, b)
			checked++
		}
		for path, item := range doc.Paths {
			for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
				if op == nil {
					continue
				}
				if op.RequestBody != nil {
					for ct, mt := range op.RequestBody.Content {
						if strings.HasSuffix(ct, "json") && mt.Schema != nil {
							check(op.OperationID+" request "+path, mt, huma.ModeWriteToServer)
						}
					}
				}
				for status, resp := range op.Responses {
					if !strings.HasPrefix(status, "2") {
						continue
					}
					for ct, mt := range resp.Content {
						if strings.HasSuffix(ct, "json") && mt.Schema != nil {
							check(op.OperationID+" "+status+" "+path, mt, huma.ModeReadFromServer)
						}
					}
				}
			}
		}
	}
	require.Greater(t, checked, 100)
}

// The 3.1 documents describe the coin events sent to studios (webhooks); OpenAPI 3.0 has no
// place for them, so the 3.0.3 variants leave them out.
func TestWebhooksAreInThe31DocumentsOnly(t *testing.T) {
	t.Parallel()
	h := docsServer(t)
	for path, want := range map[string]bool{"/openapi.json": true, "/openapi.yaml": true, "/openapi-3.0.json": false, "/openapi-3.0.yaml": false} {
		r := get(t, h, path, nil)
		require.Equal(t, http.StatusOK, r.Code, path)
		var doc map[string]any
		require.NoError(t, yaml.Unmarshal(r.Body.Bytes(), &doc), path) // JSON is YAML
		hooks, ok := doc["webhooks"].(map[string]any)
		require.Equal(t, want, ok, path)
		if want {
			require.Contains(t, hooks, "COINS_CREDITED", path)
			require.Equal(t, "3.1.0", doc["openapi"], path)
		} else {
			require.Equal(t, "3.0.3", doc["openapi"], path)
		}
	}
}
