package httpapi

import (
	"net/http"
	"slices"
	"strings"
)

// What a browser may send and read, per ../shared/api-decisions.md ("Clients and the OpenAPI
// document"). x-api-secret is never allowed from a browser: server secrets stay on servers.
const (
	corsMethods = "GET, POST, PUT, PATCH, DELETE"
	corsHeaders = "x-api-key, authorization, content-type, x-idempotency-key, x-language, x-api-version, x-game-uuid"
	corsExpose  = "x-request-id, x-idempotent-replay, Retry-After"
	// corsMaxAge is how long a browser may keep a preflight's answer, in seconds.
	corsMaxAge = "600"
)

// noCORS reports whether a path never answers CORS: the operator API, the studio API (for
// scripts; people use the console on the service's own origin), the metrics and the payment
// providers' webhooks are not for browsers of other origins.
func noCORS(path string) bool {
	return path == "/admin" || strings.HasPrefix(path, "/admin/") || strings.HasPrefix(path, StudioPathPrefix) ||
		path == "/metrics" || strings.HasPrefix(path, "/webhooks/")
}

// cors lets browser games call the API from their game's allowed origins (per environment).
// A preflight (OPTIONS with Access-Control-Request-Method) carries no key: it answers 204, with
// the CORS headers when any game of the host's environment allows the origin. Any other request
// from an origin gets Access-Control-Allow-Origin only when its x-api-key's game allows that
// origin. Other origins get no CORS headers, so the browser keeps the answer from the page.
func (s *Server) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || noCORS(r.URL.Path) {
			next.ServeHTTP(w, r)
			return
		}
		env, known := s.cfg.Hosts.Environment(r.Host)
		if !known {
			next.ServeHTTP(w, r)
			return
		}
		ctx := r.Context()
		h := w.Header()
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			allowed := false
			if s.cfg.OriginAllowed != nil {
				var err error
				if allowed, err = s.cfg.OriginAllowed(ctx, env, origin); err != nil {
					writeError(w, ErrorFrom(ctx, err))
					return
				}
			}
			if allowed {
				h.Set("Access-Control-Allow-Origin", origin)
				h.Set("Access-Control-Allow-Methods", corsMethods)
				h.Set("Access-Control-Allow-Headers", corsHeaders)
				h.Set("Access-Control-Max-Age", corsMaxAge)
			}
			w.WriteHeader(http.StatusNoContent)
			return
		}
		if key := r.Header.Get("x-api-key"); key != "" && s.cfg.AuthenticateKey != nil {
			// The route's own authentication answers a bad key; this only decides the headers,
			// and leaves the key resolved for the route.
			if c, err := s.authenticateKey(ctx, key, env); err == nil {
				r = r.WithContext(withKey(ctx, key, env, c))
				if slices.Contains(c.AllowedOrigins, origin) {
					h.Set("Access-Control-Allow-Origin", origin)
					h.Set("Access-Control-Expose-Headers", corsExpose)
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}
