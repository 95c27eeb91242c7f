// Package httpapi is the shared kit of the documented HTTP API: the server (Huma operations on a
// chi router), the one error model and its mapping from core errors, authentication (API key,
// player token, operator token), the success envelope, paging and path ids. Each module serves
// its own operations from its own package (coinsapi, playersapi, studioapi, webhooksapi, …),
// registered on a Server by the composition root.
package httpapi

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
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
	// Version is shown in the OpenAPI document.
	Version string
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

// Server holds the router and the Huma API that modules register their operations on.
type Server struct {
	cfg    Config
	router *chi.Mux
	// API is where modules register operations (huma.Register).
	API huma.API
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
	router.Use(s.observe, withRequestContext(cfg.Log), s.cors, limitBody(cfg.MaxBodyBytes), sandboxFiles, refuseNUL)
	router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, NewError(r.Context(), http.StatusNotFound, "ROUTE_NOT_FOUND", "no route for "+r.Method+" "+r.URL.Path))
	})
	router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, NewError(r.Context(), http.StatusMethodNotAllowed, "", "method "+r.Method+" is not allowed on "+r.URL.Path))
	})

	s.API = humachi.New(router, apiConfig(cfg.Version))
	oapi := s.API.OpenAPI()
	oapi.OnAddOperation = append(oapi.OnAddOperation, func(_ *huma.OpenAPI, op *huma.Operation) {
		// Huma reads a body under a read deadline on the connection (5 s by default) and never
		// lifts it; a handler still running when it passes has its request cancelled (net/http
		// takes the deadline for a closed connection). The body gets as long as the server gives
		// a whole request instead.
		if op.BodyReadTimeout >= 0 && op.BodyReadTimeout < BodyReadTimeout {
			op.BodyReadTimeout = BodyReadTimeout
		}
	})
	// First of every operation's middlewares, so it must come before any operation.
	s.API.UseMiddleware(noteOperation)
	s.registerHealth()
	s.registerMetrics()
	router.Handle("/docs*", v5emb.NewWithConfig(swgui.Config{
		Title:       "Rewards API",
		SwaggerJSON: "/openapi.json",
		BasePath:    "/docs/",
		ShowTopBar:  false,
	})("Rewards API", "/openapi.json", "/docs/"))
	return s
}

// Handler returns the HTTP handler of every registered route, traced when a tracer provider
// is configured.
func (s *Server) Handler() http.Handler { return traced(s.router, s.cfg.TracerProvider) }

// Router gives modules that serve plain HTTP routes (file downloads, redirects) the chi router.
func (s *Server) Router() chi.Router { return s.router }

// Logger returns the request's logger (with its request id).
func Logger(ctx context.Context) *slog.Logger { return loggerFrom(ctx) }

// AddTag declares a module's tag for the docs page. Studio-facing tags are listed in the order
// they are added, the operator API and the health probes after them.
func (s *Server) AddTag(name, description string) {
	doc := s.API.OpenAPI()
	doc.Tags = append(doc.Tags, &huma.Tag{Name: name, Description: description})
	last := func(t *huma.Tag) int {
		switch t.Name {
		case TagOperator:
			return 1
		case tagHealth:
			return 2
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
	cfg.CreateHooks = nil // no $schema links in bodies: responses are exactly the documented shapes
	cfg.DocsPath = ""     // /docs is the embedded Swagger UI, which works offline
	cfg.OpenAPIPath = "/openapi"
	cfg.Info.Description = apiDescription
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		schemeAPIKey: {Type: "apiKey", In: "header", Name: "x-api-key",
			Description: "The game's API key: rk_live_… on the live hosts, rk_test_… on the development hosts."},
		schemePlayer: {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
			Description: "A player token from /player/login or /player/login/federatedByStudio."},
		schemeOperator: {Type: "http", Scheme: "bearer",
			Description: "The operator token (REWARDS_ADMIN_TOKEN)."},
		schemeServerSecret: {Type: "apiKey", In: "header", Name: "x-api-secret",
			Description: "The game's server secret of the environment (rks_live_… or rks_test_…), for the studio's servers only. " +
				"Distribute and deduct need it when the game has serverOnlyCoinMovements on (403 SERVER_SECRET_REQUIRED otherwise)."},
	}
	cfg.Tags = []*huma.Tag{
		{Name: TagOperator, Description: "Onboarding studios, games, keys and coins, and the settings of every module. Host-agnostic; operator token required."},
		{Name: tagHealth, Description: "Liveness and readiness probes."},
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

**Request ids.** Every response carries x-request-id, echoing a valid incoming one.`
