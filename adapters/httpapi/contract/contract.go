// Package contract checks the service's answers against the OpenAPI documents it serves: a
// test whose client goes through Checker.Transport fails when an answer has a status, a header
// or a body that the documents do not describe, so the documents cannot drift from the
// service. Answers are checked with kin-openapi's openapi3filter against the 3.1 document and
// its 3.0.3 variant alike, as generated clients read one or the other.
package contract

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// Document is where a document is served and whether the operator token is needed to read it.
type Document struct {
	Path     string
	Operator bool
	// Optional documents that the service does not serve (404) are left out.
	Optional bool
}

// Documents are the documents the service serves: the public API (3.1 and 3.0.3), the
// operator API's own and the studio API's own.
var Documents = []Document{
	{Path: "/openapi.json"},
	{Path: "/openapi-3.0.json"},
	{Path: "/admin/v1/openapi.json", Operator: true, Optional: true},
	{Path: "/admin/v1/openapi-3.0.json", Operator: true, Optional: true},
	{Path: "/studio/v1/openapi.json", Optional: true},
	{Path: "/studio/v1/openapi-3.0.json", Optional: true},
}

// Checker validates answers against a set of OpenAPI documents.
type Checker struct {
	docs []*document
}

type document struct {
	path   string
	spec   *openapi3.T
	router routers.Router
}

// loaded keeps the checkers already built, by the hash of their documents: every test server
// serves the same documents, and parsing them takes longer than most tests.
var loaded sync.Map

// Load builds a checker from documents (JSON or YAML) named by where they are served. Each
// must be a valid OpenAPI document of the version it declares.
func Load(ctx context.Context, docs map[string][]byte) (*Checker, error) {
	h := sha256.New()
	names := make([]string, 0, len(docs))
	for _, d := range Documents {
		if raw, ok := docs[d.Path]; ok {
			names = append(names, d.Path)
			fmt.Fprintf(h, "%s\x00%d\x00", d.Path, len(raw))
			h.Write(raw)
		}
	}
	for name := range docs {
		if !contains(names, name) {
			return nil, fmt.Errorf("document %s is not one of contract.Documents", name)
		}
	}
	key := string(h.Sum(nil))
	if c, ok := loaded.Load(key); ok {
		return c.(*Checker), nil
	}
	c := &Checker{}
	for _, name := range names {
		d, err := parse(ctx, name, docs[name])
		if err != nil {
			return nil, err
		}
		c.docs = append(c.docs, d)
	}
	loaded.Store(key, c)
	return c, nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func parse(ctx context.Context, name string, raw []byte) (*document, error) {
	loader := openapi3.NewLoader()
	loader.Context = ctx
	spec, err := loader.LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	if err := spec.Validate(ctx); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI %s document: %w", name, spec.OpenAPI, err)
	}
	// Answers come from test servers on any address: routes are matched by path alone.
	spec.Servers = nil
	router, err := legacy.NewRouter(spec)
	if err != nil {
		return nil, fmt.Errorf("route %s: %w", name, err)
	}
	return &document{path: name, spec: spec, router: router}, nil
}

// Fetch reads the documents the service at baseURL serves (operatorToken reads the operator
// API's) and builds a checker from them.
func Fetch(ctx context.Context, client *http.Client, baseURL, operatorToken string) (*Checker, error) {
	docs := map[string][]byte{}
	for _, d := range Documents {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+d.Path, nil)
		if err != nil {
			return nil, err
		}
		if d.Operator {
			req.Header.Set("Authorization", "Bearer "+operatorToken)
		}
		res, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", d.Path, err)
		}
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("fetch %s: %w", d.Path, err)
		}
		switch {
		case res.StatusCode == http.StatusNotFound && d.Optional:
			continue
		case res.StatusCode != http.StatusOK:
			return nil, fmt.Errorf("fetch %s: status %d: %s", d.Path, res.StatusCode, raw)
		}
		docs[d.Path] = raw
	}
	return Load(ctx, docs)
}

// Skipped says why an answer is not an API operation's and is left unchecked, or "" when it is
// checked. Every such route is named here with its reason.
func Skipped(req *http.Request, status int, header http.Header, body []byte) string {
	p := req.URL.Path
	switch {
	case req.Method == http.MethodOptions:
		return "CORS preflights are answered by the CORS middleware before any operation"
	case p == "/openapi.json" || p == "/openapi-3.0.json" || p == "/openapi.yaml" ||
		strings.HasPrefix(p, "/admin/v1/openapi") || strings.HasPrefix(p, "/studio/v1/openapi"):
		return "the documents themselves"
	case p == "/docs" || strings.HasPrefix(p, "/docs/") || p == "/admin/docs" || strings.HasPrefix(p, "/admin/docs/") ||
		p == "/studio/docs" || strings.HasPrefix(p, "/studio/docs/"):
		return "the docs pages are HTML for people (Swagger UI)"
	case p == "/payments/return" || strings.HasPrefix(p, "/sandbox/payments/"):
		return "pages a payer's browser opens, not an API"
	case strings.HasPrefix(p, "/store/"):
		return "the store's HTML pages that touchpoint links open, for people"
	}
	if code := errorCode(body); code == "ROUTE_NOT_FOUND" || status == http.StatusMethodNotAllowed {
		return "no operation has this route: the router's own 404 ROUTE_NOT_FOUND or 405"
	}
	return ""
}

// errorCode is the code of an error body, or "".
func errorCode(body []byte) string {
	const key = `"code":"`
	i := bytes.Index(body, []byte(key))
	if i < 0 {
		return ""
	}
	rest := body[i+len(key):]
	j := bytes.IndexByte(rest, '"')
	if j < 0 {
		return ""
	}
	return string(rest[:j])
}

// ErrNoOperation is the error of an answer from a route that no document describes.
var ErrNoOperation = errors.New("no operation of the documents has this route")

// Check validates one answer to req against every document that describes its route: its
// status must be declared, and its headers and body must match what is declared for it.
func (c *Checker) Check(ctx context.Context, req *http.Request, status int, header http.Header, body []byte) error {
	if Skipped(req, status, header, body) != "" {
		return nil
	}
	found := false
	var errs []error
	for _, d := range c.docs {
		r := req.Clone(ctx)
		// Route by path alone, whatever host the test server has.
		r.URL = &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}
		r.Host = ""
		route, params, err := d.router.FindRoute(r)
		if err != nil {
			continue
		}
		found = true
		opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true}
		if !d.spec.IsOpenAPI31OrLater() {
			// A mismatch names the field and the rule; the whole schema after it would bury
			// them (the 3.1 validator's messages are short already).
			opts.SchemaValidationOptions = []openapi3.SchemaValidationOption{openapi3.DisableSchemaErrorDetails()}
		}
		in := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route},
			Status:                 status,
			Header:                 header,
			Options:                opts,
		}
		in.SetBodyBytes(body)
		if err := openapi3filter.ValidateResponse(ctx, in); err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %w", d.path, route.Operation.OperationID, err))
		}
	}
	if !found {
		return ErrNoOperation
	}
	return errors.Join(errs...)
}

// Reporter is where a failed check goes: a *testing.T.
type Reporter interface {
	Helper()
	Errorf(format string, args ...any)
}

// Transport wraps base (nil: http.DefaultTransport) so that every answer it carries is checked
// and every mismatch reported to t with the request's method and path, the status and the
// validator's message. The answer's body is read whole and given back unread.
func (c *Checker) Transport(t Reporter, base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return &transport{c: c, t: t, base: base}
}

type transport struct {
	c    *Checker
	t    Reporter
	base http.RoundTripper
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := tr.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err := tr.c.Check(req.Context(), req, res.StatusCode, res.Header, body); err != nil {
		tr.t.Helper()
		tr.t.Errorf("contract: %s %s answered %d, which the served OpenAPI documents do not describe: %v\nbody: %.2000s",
			req.Method, req.URL.Path, res.StatusCode, err, body)
	}
	return res, nil
}
