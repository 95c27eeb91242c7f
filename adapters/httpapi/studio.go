package httpapi

import (
	"context"
	"net"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/swaggest/swgui"
	"github.com/swaggest/swgui/v5emb"
)

// Paths of the studio API and its documentation.
const (
	// StudioPathPrefix is where every studio API operation is, and only those.
	StudioPathPrefix = "/studio/v1/"
	// StudioOpenAPIPath is the studio API's document, without the extensions.
	StudioOpenAPIPath = "/studio/v1/openapi"
	// StudioDocsPath is the studio API's docs page.
	StudioDocsPath = "/studio/docs"
)

// schemeStudio is the studio API's credentials: a member's session token or a studio access
// token (rst_…).
const schemeStudio = "studioBearer"

// TagStudioAccount is the studio API's tag of the operations a member uses to sign in.
const TagStudioAccount = "Account"

// Client is where a request comes from, as the audit log records it.
type Client struct {
	// IP is the address of the connection's peer.
	IP string
	// UserAgent is the request's User-Agent header.
	UserAgent string
}

// StudioAuthenticator resolves the credentials of a studio API request: bearer is the token of
// its Authorization: Bearer header ("" when none was sent). It returns the context the operation
// runs with (the authenticated principal, the audit log's actor), or an error for ErrorFrom.
type StudioAuthenticator func(ctx context.Context, bearer string, client Client) (context.Context, error)

// Studio declares an operation of the studio API (its path under StudioPathPrefix, registered on
// Server.StudioAPI), authenticated by auth with Authorization: Bearer; a nil auth declares one
// that needs no credentials (signing in, accepting an invitation, resetting a password). The
// studio API answers on any host: its paths name the environment.
func (s *Server) Studio(op huma.Operation, auth StudioAuthenticator) huma.Operation {
	if auth == nil {
		return op
	}
	op.Security = []map[string][]string{{schemeStudio: {}}}
	op.Middlewares = append(huma.Middlewares{func(hctx huma.Context, next func(huma.Context)) {
		ctx, err := auth(hctx.Context(), bearerToken(hctx.Header("Authorization")),
			Client{IP: peerIP(hctx.RemoteAddr()), UserAgent: hctx.Header("User-Agent")})
		if err != nil {
			writeHumaError(hctx, ErrorFrom(hctx.Context(), err))
			return
		}
		next(huma.WithContext(hctx, ctx))
	}}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized)
	return op
}

// peerIP is the host of a connection's remote address.
func peerIP(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// serveStudioDocs serves the studio API's document (/studio/v1/openapi.json, the 3.0.3 variant
// at /studio/v1/openapi-3.0.json, YAML at /studio/v1/openapi.yaml) and its docs page
// (/studio/docs). They are public: a studio reads them before it has credentials, and they
// hold nothing of any studio. A server without the studio API's operations (one built for a
// module's tests) serves no document: 404.
func (s *Server) serveStudioDocs() {
	s.serveDocuments(StudioOpenAPIPath, s.StudioAPI.OpenAPI(), func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if len(s.StudioAPI.OpenAPI().Paths) == 0 {
				writeError(w, NewError(r.Context(), http.StatusNotFound, "ROUTE_NOT_FOUND", "this server has no studio API"))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	s.router.Handle(StudioDocsPath+"*", v5emb.NewWithConfig(swgui.Config{
		Title:       "Rewards studio API",
		SwaggerJSON: StudioOpenAPIPath + ".json",
		BasePath:    StudioDocsPath + "/",
		ShowTopBar:  false,
	})("Rewards studio API", StudioOpenAPIPath+".json", StudioDocsPath+"/"))
}

// AddStudioTag declares a tag of the studio API for its docs page, listed in the order added.
func (s *Server) AddStudioTag(name, description string) {
	doc := s.StudioAPI.OpenAPI()
	for _, t := range doc.Tags {
		if t.Name == name {
			return
		}
	}
	doc.Tags = append(doc.Tags, &huma.Tag{Name: name, Description: description})
}

// studioConfig is the configuration of the studio API: the same formats and error model as the
// public API, its own document and credentials.
func studioConfig(version string) huma.Config {
	cfg := apiConfig(version)
	cfg.Info.Title = "Rewards studio API"
	cfg.Info.Description = studioDescription
	cfg.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		schemeStudio: {Type: "http", Scheme: "bearer",
			Description: "A member's session token (POST /studio/v1/sessions) or a studio access token (rst_…, POST /studio/v1/tokens)."},
	}
	cfg.Tags = nil
	return cfg
}

const studioDescription = `The Rewards studio API: what a studio's members do in the console, for their scripts and
tools. Games and their keys, server secrets, the partner secret and wallet, integration settings, placements and
their go-live, players, orders, webhooks, members, access tokens and the audit log. Commercial terms (partner
enablement, settlement, discounts, wallet funding, the purchase budget) stay with the operator.

**Credentials.** Authorization: Bearer with a session token (POST /studio/v1/sessions, idle timeout 12 h,
at most 7 days) or a studio access token (rst_…, made by a member with a name, a role no higher than its
maker's and an expiry of 1 to 365 days). Anything else is 401 UNAUTHENTICATED, with the same body whatever
was wrong.

**Roles.** VIEWER reads; DEVELOPER also changes (everything but members and OWNER tokens); OWNER does
everything. An operation beyond the caller's role is 403 ROLE_FORBIDDEN and changes nothing. While the
studio requires TOTP, a member without it may only read /me, set TOTP up and sign out (403
TOTP_SETUP_REQUIRED).

**Environments.** The studio API answers on any host; paths name the environment (live or test) of what
they touch. Webhook configurations belong to the studio and an environment, as on /studio-webhooks.

**Bodies** are bare (no envelope). Secrets (API keys, server secrets, the partner secret, webhook signing
secrets, access tokens) are in the answer that makes them and never again. Every change is recorded in the
audit log with who made it and from where.

**Errors.** Every error body is {statusCode, message, error, code?, requestId, details?}. Request
validation failures are 400 VALIDATION_FAILED; unknown JSON fields are rejected. Another studio's game,
member, token, player, order or webhook is 404, as an unknown id is.

**This document** is served at /studio/v1/openapi.json (3.1), /studio/v1/openapi-3.0.json (3.0.3) and
/studio/v1/openapi.yaml, and as a page at /studio/docs.`
