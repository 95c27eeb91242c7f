// Package httpapi serves the documented HTTP API: Huma operations on a chi router, one file per
// module, converting between transport types and core calls and mapping core errors to
// statuses in one switch per module.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"
	"github.com/go-chi/chi/v5"
	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// Deps is what the HTTP layer calls into.
type Deps struct {
	Log     *slog.Logger
	Studios *studio.Service
	Coins   *coins.Service
	Players *players.Service
	// Webhooks serves the webhook-management API.
	Webhooks *webhooks.Service
	Hosts    Hosts
	// Currency is the deployment currency, INR or USD.
	Currency string
	// AdminToken authenticates the operator API (Authorization: Bearer <token>).
	AdminToken string
	// Ready reports whether the service can serve traffic (the database answers).
	Ready func(context.Context) error
	// MaxBodyBytes caps every request body, multipart uploads included.
	MaxBodyBytes int64
	// Version is shown in the OpenAPI document.
	Version string
}

// Security scheme names used in the OpenAPI document.
const (
	schemeAPIKey   = "apiKey"
	schemePlayer   = "playerBearer"
	schemeOperator = "operatorBearer"
)

// Tags group operations on the docs page.
const (
	tagOperator = "Operator"
	tagCoins    = "Coins"
	tagHealth   = "Health"
)

// New builds the HTTP handler with every route registered.
func New(d Deps) (http.Handler, huma.API) {
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.MaxBodyBytes <= 0 {
		d.MaxBodyBytes = 8 << 20
	}
	installErrorModel()

	router := chi.NewMux()
	router.Use(withRequestContext(d.Log), limitBody(d.MaxBodyBytes))
	router.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newAPIError(r.Context(), http.StatusNotFound, "ROUTE_NOT_FOUND", "no route for "+r.Method+" "+r.URL.Path))
	})
	router.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, newAPIError(r.Context(), http.StatusMethodNotAllowed, "", "method "+r.Method+" is not allowed on "+r.URL.Path))
	})

	api := humachi.New(router, apiConfig(d.Version))
	a := &handlers{Deps: d, api: api}
	a.registerHealth()
	a.registerOperator()
	a.registerCoins()
	a.registerPlayers()
	a.registerLedger()
	a.registerWebhooks()

	router.Handle("/docs*", v5emb.NewWithConfig(swgui.Config{
		Title:       "Rewards API",
		SwaggerJSON: "/openapi.json",
		BasePath:    "/docs/",
		ShowTopBar:  false,
	})("Rewards API", "/openapi.json", "/docs/"))
	return router, api
}

// handlers holds what every operation needs.
type handlers struct {
	Deps
	api huma.API
}

func apiConfig(version string) huma.Config {
	if version == "" {
		version = "dev"
	}
	cfg := huma.DefaultConfig("Rewards API", version)
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
	}
	cfg.Tags = []*huma.Tag{
		{Name: tagOperator, Description: "Onboarding studios, games, keys and coins. Host-agnostic; operator token required."},
		{Name: tagCoins, Description: "The game's coins and the players' balances."},
		{Name: tagPlayer, Description: "Players: creation, OTP and federated login, profiles, store settings. Player endpoints need a bearer token as well as the key."},
		{Name: tagWebhooks, Description: "Signed webhooks of coin events: configuration, test events, deliveries and stats. Answers are wrapped in {data, statusCode, message, requestId, timestamp}."},
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
A 5xx body never carries internal detail: quote its requestId to support.

**Request ids.** Every response carries x-request-id, echoing a valid incoming one.`
