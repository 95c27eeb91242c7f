package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"
	"go.opentelemetry.io/otel/trace"

	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// Config is what the shared kit needs.
type Config struct {
	Log   *slog.Logger
	Hosts Hosts
	// AuthenticateKey resolves an API key on a host of an environment (studio.Service).
	AuthenticateKey func(ctx context.Context, key string, hostEnv studio.Environment) (studio.Caller, error)
	// OriginAllowed reports whether any game allows a browser origin in an environment, for
	// CORS preflights (studio.Service); nil allows none.
	OriginAllowed func(ctx context.Context, env studio.Environment, origin string) (bool, error)
	// AuthenticatePlayer verifies a player token for a caller, checking x-game-uuid when sent
	// (players.Service).
	AuthenticatePlayer func(ctx context.Context, c studio.Caller, token, gameUUID string) (players.Player, error)
	// AuthorizeCoinMovement lets a coin movement of an authenticated caller through, checking
	// x-api-secret when the game takes coin movements only from its servers (studio.Service).
	AuthorizeCoinMovement func(ctx context.Context, c studio.Caller, secret string) error
	// AdminToken authenticates the operator API (Authorization: Bearer <token>).
	AdminToken string
	// Ready reports whether the service can serve traffic (the database answers).
	Ready func(context.Context) error
	// MaxBodyBytes caps every request body, multipart uploads included.
	MaxBodyBytes int64
	// Version is the release, the documents' info.version.
	Version string
	// PublicURL is the service's own address (REWARDS_PUBLIC_URL): its scheme, port and path,
	// with each configured host, make the documents' servers.
	PublicURL string
	// Metrics counts requests (nil: not counted); Gatherer is what /metrics serves.
	Metrics  *metrics.Metrics
	Gatherer prometheus.Gatherer
	// TracerProvider, when set, traces every request (nil: no tracing at all).
	TracerProvider trace.TracerProvider
}

// Security scheme names used in the OpenAPI document.
const (
	schemeAPIKey   = "apiKey"
	schemePlayer   = "playerBearer"
	schemeOperator = "operatorBearer"
	// schemeServerSecret is the game's server secret, which coin movements need when the game
	// has serverOnlyCoinMovements on.
	schemeServerSecret = "serverSecret"
)

// Tags of the kit's own operations, which the docs page lists after every module's.
const (
	TagOperator = "Operator"
	tagHealth   = "Health"
)

// BodyReadTimeout bounds the reading of a request and its handler together, as the server's
// ReadTimeout does (app sets both to 60 s).
const BodyReadTimeout = 60 * time.Second

// Server holds the router and the three Huma APIs that modules register their operations on.
type Server struct {
	cfg    Config
	router *chi.Mux
	// API is where modules register the operations studios, players and partners call
	// (huma.Register): the public document, /openapi.json and /docs.
	API huma.API
	// OperatorAPI is where modules register the operator API (huma.Register with
	// Server.Operator): its own document, /admin/v1/openapi.json and /admin/docs, both behind
	// the operator token. The public document never lists an operator operation.
	OperatorAPI huma.API
	// StudioAPI is where the studio API is registered (huma.Register with Server.Studio):
	// what a studio's members and access tokens call under /studio/v1, with its own document,
	// /studio/v1/openapi.json and /studio/docs.
	StudioAPI huma.API
}

// New builds the server with the kit's routes (health probes, docs, OpenAPI document).
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 8 << 20
	}
	installErrorModel()

	router := chi.NewMux()
	s := &Server{cfg: cfg, router: router}
	router.Use(s.observe, withRequestContext(cfg.Log), s.cors, limitBody(cfg.MaxBodyBytes), sandboxFiles, refuseBadText)
	router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, NewError(r.Context(), http.StatusNotFound, "ROUTE_NOT_FOUND", "no route for "+r.Method+" "+r.URL.Path))
	})
	router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, NewError(r.Context(), http.StatusMethodNotAllowed, "", "method "+r.Method+" is not allowed on "+r.URL.Path))
	})

	s.API = humachi.New(router, apiConfig(cfg.Version))
	s.OperatorAPI = humachi.New(router, operatorConfig(cfg.Version))
	s.StudioAPI = humachi.New(router, studioConfig(cfg.Version))
	s.API.OpenAPI().Servers = Servers(cfg.Hosts, cfg.PublicURL)
	if cfg.PublicURL != "" {
		s.OperatorAPI.OpenAPI().Servers = []*huma.Server{{URL: cfg.PublicURL,
			Description: "The service; the operator API answers on any of its hosts"}}
		s.StudioAPI.OpenAPI().Servers = []*huma.Server{{URL: cfg.PublicURL,
			Description: "The service; the studio API answers on any of its hosts (paths name the environment)"}}
	}
	for _, api := range []huma.API{s.API, s.OperatorAPI, s.StudioAPI} {
		want := audiencePublic
		switch api {
		case s.OperatorAPI:
			want = audienceOperator
		case s.StudioAPI:
			want = audienceStudio
		}
		oapi := api.OpenAPI()
		oapi.OnAddOperation = append(oapi.OnAddOperation, func(_ *huma.OpenAPI, op *huma.Operation) {
			// Each operation is in the document of its audience; a mistake here would show
			// studios the operator API (or hide an operation from operators), so it stops the
			// server from being built at all.
			if got := audienceOf(op); got != want {
				panic(fmt.Sprintf("operation %s %s is of the %s API, registered on the %s API: operator operations (Server.Operator) go on Server.OperatorAPI, studio operations (Server.Studio, under %s) on Server.StudioAPI, the rest on Server.API", op.Method, op.Path, got, want, StudioPathPrefix))
			}
			// Huma reads a body under a read deadline on the connection (5 s by default) and
			// never lifts it; a handler still running when it passes has its request cancelled
			// (net/http takes the deadline for a closed connection). The body gets as long as
			// the server gives a whole request instead.
			if op.BodyReadTimeout >= 0 && op.BodyReadTimeout < BodyReadTimeout {
				op.BodyReadTimeout = BodyReadTimeout
			}
			declareKitStatuses(op)
			documentErrorCodes(oapi, op)
			documentExamples(oapi, op)
		})
		oapi.OnAddOperation = append(oapi.OnAddOperation, declareKitResponses)
		// First of every operation's middlewares, so it must come before any operation.
		api.UseMiddleware(noteOperation, refuseBadParams)
	}
	s.registerHealth()
	s.registerMetrics()
	router.Handle("/docs*", v5emb.NewWithConfig(swgui.Config{
		Title:       "Rewards API",
		SwaggerJSON: "/openapi.json",
		BasePath:    "/docs/",
		ShowTopBar:  false,
	})("Rewards API", "/openapi.json", "/docs/"))
	s.serveDocuments(publicOpenAPIPath, s.API.OpenAPI(), func(h http.Handler) http.Handler { return h })
	s.serveOperatorDocs()
	s.serveStudioDocs()
	return s
}

// Servers lists the addresses of the API, one per configured host: the live hosts (rk_live_
// keys) first, then the development hosts (rk_test_ keys), each with the scheme, port and path
// of publicURL (http when it has none). The host of a request picks its environment, so a
// client chooses its environment by choosing its server.
func Servers(hosts Hosts, publicURL string) []*huma.Server {
	scheme, port, path := "http", "", ""
	if u, err := url.Parse(publicURL); err == nil && u.Host != "" {
		scheme, port, path = u.Scheme, u.Port(), strings.TrimSuffix(u.EscapedPath(), "/")
	}
	var out []*huma.Server
	add := func(list []string, description string) {
		for _, h := range list {
			host := h
			if strings.Contains(host, ":") { // an IPv6 address
				host = "[" + strings.Trim(host, "[]") + "]"
			}
			if port != "" {
				host = net.JoinHostPort(strings.Trim(host, "[]"), port)
			}
			out = append(out, &huma.Server{URL: scheme + "://" + host + path, Description: description})
		}
	}
	add(hosts.Live, "Live environment: rk_live_ keys, real players, real rewards")
	add(hosts.Dev, "Test environment: rk_test_ keys, the sandbox (development host)")
	return out
}

// The audiences of the three APIs, each with its own document.
const (
	audiencePublic   = "public"
	audienceOperator = "operator"
	audienceStudio   = "studio"
)

// audienceOf is the API op belongs to: the operator API's (declared with Server.Operator), the
// studio API's (its path under StudioPathPrefix), or the public one.
func audienceOf(op *huma.Operation) string {
	switch {
	case isOperator(op):
		return audienceOperator
	case strings.HasPrefix(op.Path, StudioPathPrefix):
		return audienceStudio
	}
	return audiencePublic
}

// isOperator reports whether op is an operation of the operator API (declared with
// Server.Operator).
func isOperator(op *huma.Operation) bool {
	for _, req := range op.Security {
		if _, ok := req[schemeOperator]; ok {
			return true
		}
	}
	return false
}

// PathItem returns the documented operations of path, in whichever document lists them (the
// public one, the operator API's or the studio API's), or nil; for modules that complete what
// Huma documents.
func (s *Server) PathItem(path string) *huma.PathItem {
	for _, api := range []huma.API{s.API, s.OperatorAPI, s.StudioAPI} {
		if item := api.OpenAPI().Paths[path]; item != nil {
			return item
		}
	}
	return nil
}

// Paths of the documentation, without the extensions of the documents.
const (
	publicOpenAPIPath   = "/openapi"
	OperatorOpenAPIPath = "/admin/v1/openapi"
	OperatorDocsPath    = "/admin/docs"
)

// serveOperatorDocs serves the operator API's document (/admin/v1/openapi.json, the 3.0.3
// variant at /admin/v1/openapi-3.0.json, YAML at /admin/v1/openapi.yaml) and its docs page
// (/admin/docs), all behind the operator token. A browser cannot add a bearer token to a page
// it opens, so these routes (and only these) also take the token as the password of HTTP
// Basic authentication (any user name), and their 401 asks the browser for it.
func (s *Server) serveOperatorDocs() {
	s.serveDocuments(OperatorOpenAPIPath, s.OperatorAPI.OpenAPI(), s.operatorDocsAuth)
	s.router.With(s.operatorDocsAuth).Handle(OperatorDocsPath+"*", v5emb.NewWithConfig(swgui.Config{
		Title:       "Rewards operator API",
		SwaggerJSON: OperatorOpenAPIPath + ".json",
		BasePath:    OperatorDocsPath + "/",
		ShowTopBar:  false,
	})("Rewards operator API", OperatorOpenAPIPath+".json", OperatorDocsPath+"/"))
}

// serveDocuments serves doc at path + .json and .yaml (OpenAPI 3.1) and path + -3.0.json and
// -3.0.yaml (3.0.3), each rendered once, at its first request (every operation is registered
// by then).
func (s *Server) serveDocuments(path string, doc *huma.OpenAPI, guard func(http.Handler) http.Handler) {
	for suffix, d := range map[string]struct {
		contentType string
		render      func() ([]byte, error)
	}{
		".json":     {"application/openapi+json", func() ([]byte, error) { return json.Marshal(doc) }},
		".yaml":     {"application/openapi+yaml", doc.YAML},
		"-3.0.json": {"application/openapi+json", func() ([]byte, error) { return downgrade(doc).Downgrade() }},
		"-3.0.yaml": {"application/openapi+yaml", func() ([]byte, error) { return downgrade(doc).DowngradeYAML() }},
	} {
		render := sync.OnceValues(d.render)
		s.router.With(guard).Get(path+suffix, func(w http.ResponseWriter, r *http.Request) {
			body, err := render()
			if err != nil {
				writeError(w, ErrorFrom(r.Context(), fmt.Errorf("render %s: %w", path+suffix, err)))
				return
			}
			w.Header().Set("Content-Type", d.contentType)
			_, _ = w.Write(body)
		})
	}
}

// downgrade is doc without what OpenAPI 3.0 has no place for (the webhooks section, new in
// 3.1), for Huma's 3.0.3 rendering.
func downgrade(doc *huma.OpenAPI) *huma.OpenAPI {
	d := *doc
	d.Webhooks = nil
	return &d
}

// operatorDocsAuth is requireOperator for the plain routes of the operator documentation.
func (s *Server) operatorDocsAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token := bearerToken(r.Header.Get("Authorization"))
		if _, password, ok := r.BasicAuth(); ok && token == "" {
			token = password
		}
		if e := s.checkOperatorToken(r.Context(), token); e != nil {
			writeError(w, e.WithHeader("WWW-Authenticate", `Basic realm="Rewards operator API", charset="UTF-8"`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Handler returns the HTTP handler of every registered route, traced when a tracer provider
// is configured.
func (s *Server) Handler() http.Handler { return traced(s.router, s.cfg.TracerProvider) }

// Router gives modules that serve plain HTTP routes (file downloads, redirects) the chi router.
func (s *Server) Router() chi.Router { return s.router }

// Logger returns the request's logger (with its request id).
func Logger(ctx context.Context) *slog.Logger { return loggerFrom(ctx) }

// AddTag declares a module's tag for the docs page. Studio-facing tags are listed in the order
// they are added, the health probes after them.
func (s *Server) AddTag(name, description string) {
	doc := s.API.OpenAPI()
	doc.Tags = append(doc.Tags, &huma.Tag{Name: name, Description: description})
	last := func(t *huma.Tag) int {
		if t.Name == tagHealth {
			return 1
		}
		return 0
	}
	slices.SortStableFunc(doc.Tags, func(a, b *huma.Tag) int { return last(a) - last(b) })
}

func apiConfig(version string) huma.Config {
	if version == "" {
		version = "dev"
	}
	cfg := huma.DefaultConfig("Rewards API", version)
	// The default formats are huma's package-wide map: ours are added to a copy (servers made
	// at once, as parallel tests make them, wrote the shared map concurrently).
	cfg.Formats = maps.Clone(cfg.Formats)
	// Forms are accepted as request bodies where an operation documents them (the partner
	// token exchange takes JSON or a form, as OAuth clients send); answers are never forms.
	cfg.Formats["application/x-www-form-urlencoded"] = huma.Format{
		Marshal: func(io.Writer, any) error { return errors.New("answers are JSON") },
		Unmarshal: func(data []byte, v any) error {
			form, err := url.ParseQuery(string(data))
			if err != nil {
				return err
			}
			out := make(map[string]any, len(form))
			for k := range form {
				out[k] = form.Get(k)
			}
			p, ok := v.(*any)
			if !ok {
				return errors.New("a form decodes into a map only")
			}
			*p = out
			return nil
		},
	}
	for _, name := range []string{"application/json", "json"} {
		if f, ok := cfg.Formats[name]; ok {
			cfg.Formats[name] = withPageJSON(f)
		}
	}
	cfg.CreateHooks = nil // no $schema links in bodies: responses are exactly the documented shapes
	cfg.DocsPath = ""     // /docs is the embedded Swagger UI, which works offline
	cfg.OpenAPIPath = ""  // served by serveDocuments, whose 3.0.3 variant leaves out the webhooks
	cfg.Components.Schemas = huma.NewMapRegistry("#/components/schemas/", schemaName)
	cfg.Info.Description = apiDescription
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		schemeAPIKey: {Type: "apiKey", In: "header", Name: "X-Api-Key",
			Description: "The game's API key: rk_live_… on the live hosts, rk_test_… on the development hosts."},
		schemePlayer: {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
			Description: "A player token from /player/login or /player/login/federatedByStudio."},
		schemeServerSecret: {Type: "apiKey", In: "header", Name: "X-Api-Secret",
			Description: "The game's server secret of the environment (rks_live_… or rks_test_…), for the studio's servers only. " +
				"Distribute and deduct need it when the game has serverOnlyCoinMovements on (403 SERVER_SECRET_REQUIRED otherwise)."},
	}
	cfg.Tags = []*huma.Tag{
		{Name: tagHealth, Description: "Liveness and readiness probes."},
	}
	return cfg
}

// operatorConfig is the configuration of the operator API: the same formats and error model
// as the public API, its own document, which the server serves itself behind the operator
// token (serveOperatorDocs).
func operatorConfig(version string) huma.Config {
	cfg := apiConfig(version)
	cfg.Info.Title = "Rewards operator API"
	cfg.Info.Description = operatorDescription
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		schemeOperator: {Type: "http", Scheme: "bearer", Description: "The operator token (REWARDS_ADMIN_TOKEN)."},
	}
	cfg.Tags = []*huma.Tag{
		{Name: TagOperator, Description: "Onboarding studios, games, keys and coins, and the settings of every module. Host-agnostic; operator token required."},
	}
	return cfg
}

const apiDescription = `The Rewards platform API: game studios give players coins, players spend them in a store.

**Environments.** Every game has a live and a test environment; nothing crosses between them.
The Host header picks the environment (live hosts for rk_live_ keys, development hosts for rk_test_ keys);
a host in neither list gets 421.

**Errors.** Every error body is {statusCode, message, error, code?, requestId, details?}. Request
validation failures are 400 VALIDATION_FAILED with one detail per field; unknown JSON fields are rejected.
No text may contain the NUL character (\u0000 in JSON, %00 in a URL): 400 VALIDATION_FAILED.
A 5xx body never carries internal detail: quote its requestId to support.

**Ids.** Ids in paths are opaque strings: an unknown or malformed id is 404, never 400.

**Request ids.** Every response carries x-request-id, echoing a valid incoming one.

The operator API (/admin/v1) is documented separately, for operators only: /admin/v1/openapi.json and /admin/docs.`

const operatorDescription = `The Rewards operator API: onboarding studios, games, API keys and coins, the platform-wide
catalogue, and the settings of every module. Every operation needs Authorization: Bearer <REWARDS_ADMIN_TOKEN>
and answers on any host. Bodies are bare (no envelope).

**Errors.** Every error body is {statusCode, message, error, code?, requestId, details?}. Request
validation failures are 400 VALIDATION_FAILED with one detail per field; unknown JSON fields are rejected.
A 5xx body never carries internal detail: quote its requestId.

**Ids.** Ids in paths are opaque strings: an unknown or malformed id is 404, never 400.

**This document** is served at /admin/v1/openapi.json (3.1), /admin/v1/openapi-3.0.json (3.0.3) and
/admin/v1/openapi.yaml, and as a page at /admin/docs, all behind the operator token (a browser may give
it as the password of HTTP Basic authentication).`
