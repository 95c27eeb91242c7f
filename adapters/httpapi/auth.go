package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"maps"
	"net"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

type playerCtxKey struct{}

// CallerFrom returns the game and environment the request's API key authenticated.
func CallerFrom(ctx context.Context) studio.Caller {
	c, _ := ctx.Value(callerKey).(studio.Caller)
	return c
}

// PlayerFrom returns the player the request's bearer token authenticated.
func PlayerFrom(ctx context.Context) players.Player {
	p, _ := ctx.Value(playerCtxKey{}).(players.Player)
	return p
}

// writeHumaError answers from inside a Huma middleware, through the same writer as the chi layer.
func writeHumaError(hctx huma.Context, e *APIError) {
	_, w := humachi.Unwrap(hctx)
	writeError(w, e)
}

// requireAPIKey resolves the Host to an environment and x-api-key to a game in it.
func (s *Server) requireAPIKey(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	env, ok := s.cfg.Hosts.Environment(hctx.Host())
	if !ok {
		writeHumaError(hctx, NewError(ctx, http.StatusMisdirectedRequest, "UNKNOWN_HOST", s.cfg.Hosts.unknownHostMessage(hctx.Host())))
		return
	}
	key := hctx.Header("x-api-key")
	caller, err := s.authenticateKey(ctx, key, env)
	if err != nil {
		writeHumaError(hctx, ErrorFrom(ctx, err))
		return
	}
	// What the key changes (a webhook configuration, a resend) is audited as the key's.
	hctx = huma.WithContext(hctx, audit.WithActor(context.WithValue(ctx, callerKey, caller), audit.Actor{
		Kind: audit.APIKey, Name: keyActorName(key), IP: clientIP(hctx.RemoteAddr()), UserAgent: hctx.Header("User-Agent")}))
	next(hctx)
}

// keyActorName names an API key in the audit log by its environment prefix and last four
// characters ("api key rk_test_…a1b2"), never the key.
func keyActorName(key string) string {
	prefix, rest := "", key
	if i := strings.LastIndexByte(key, '_'); i >= 0 {
		prefix, rest = key[:i+1], key[i+1:]
	}
	if len(rest) < 8 { // a well-formed key has 32 characters after its prefix
		return "api key " + prefix + "…"
	}
	return "api key " + prefix + "…" + rest[len(rest)-4:]
}

// clientIP is the client's address of a request: the peer's (RemoteAddr) without its port.
func clientIP(remoteAddr string) string {
	if host, _, err := net.SplitHostPort(remoteAddr); err == nil {
		return host
	}
	return remoteAddr
}

// keyLookup is an API key this request resolved, in the environment of its host.
type keyLookup struct {
	key    string
	env    studio.Environment
	caller studio.Caller
}

// authenticateKey resolves an API key to its game in env (Config.AuthenticateKey): the one check
// of a key, shared by the CORS middleware (which needs the game's allowed origins) and
// requireAPIKey. A key the request already resolved (withKey) is not looked up again; a key
// that failed is, so the route answers its own error.
func (s *Server) authenticateKey(ctx context.Context, key string, env studio.Environment) (studio.Caller, error) {
	if l, ok := ctx.Value(keyLookupKey).(keyLookup); ok && l.key == key && l.env == env {
		return l.caller, nil
	}
	return s.cfg.AuthenticateKey(ctx, key, env)
}

// withKey returns ctx holding a key resolved by authenticateKey, for the rest of the request.
func withKey(ctx context.Context, key string, env studio.Environment, caller studio.Caller) context.Context {
	return context.WithValue(ctx, keyLookupKey, keyLookup{key: key, env: env, caller: caller})
}

// requirePlayer verifies the bearer token against the game and environment of the API key and
// checks x-game-uuid when sent. It runs after requireAPIKey.
func (s *Server) requirePlayer(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	p, err := s.cfg.AuthenticatePlayer(ctx, CallerFrom(ctx), bearerToken(hctx.Header("Authorization")), hctx.Header("x-game-uuid"))
	if err != nil {
		writeHumaError(hctx, ErrorFrom(ctx, err))
		return
	}
	next(huma.WithValue(hctx, playerCtxKey{}, p))
}

// requireServerSecret lets a coin movement through by the game's serverOnlyCoinMovements
// setting: with it on, x-api-secret must carry the game's server secret of the environment. It
// runs after requireAPIKey.
func (s *Server) requireServerSecret(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	c := CallerFrom(ctx)
	var err error
	switch {
	case s.cfg.AuthorizeCoinMovement != nil:
		err = s.cfg.AuthorizeCoinMovement(ctx, c, hctx.Header("x-api-secret"))
	case c.ServerOnlyCoinMovements:
		err = studio.ErrServerSecretRequired // nothing to check the secret with: refuse
	}
	if err != nil {
		writeHumaError(hctx, ErrorFrom(ctx, err))
		return
	}
	next(hctx)
}

// requireOperator checks Authorization: Bearer <REWARDS_ADMIN_TOKEN> in constant time.
func (s *Server) requireOperator(hctx huma.Context, next func(huma.Context)) {
	if e := s.checkOperatorToken(hctx.Context(), bearerToken(hctx.Header("Authorization"))); e != nil {
		writeHumaError(hctx, e)
		return
	}
	// Every change an operator makes is audited as the operator's, from where it came.
	next(huma.WithContext(hctx, audit.WithActor(hctx.Context(), audit.Actor{Kind: audit.Operator, Name: "operator",
		IP: clientIP(hctx.RemoteAddr()), UserAgent: hctx.Header("User-Agent")})))
}

// checkOperatorToken is nil for the operator token, else the 401 to answer.
func (s *Server) checkOperatorToken(ctx context.Context, token string) *APIError {
	if token == "" {
		return NewError(ctx, http.StatusUnauthorized, "OPERATOR_TOKEN_MISSING",
			"missing operator token: send Authorization: Bearer <REWARDS_ADMIN_TOKEN>")
	}
	// Comparing digests keeps the comparison constant-time whatever the lengths.
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(s.cfg.AdminToken))
	if s.cfg.AdminToken == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return NewError(ctx, http.StatusUnauthorized, "OPERATOR_TOKEN_INVALID", "invalid operator token")
	}
	return nil
}

// APIKey declares an operation authenticated by the game's API key.
func (s *Server) APIKey(op huma.Operation) huma.Operation {
	op.Security = append(op.Security, map[string][]string{schemeAPIKey: {}})
	op.Middlewares = append(huma.Middlewares{s.requireAPIKey}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusMisdirectedRequest)
	return op
}

// Player declares an operation that needs the game's API key and a player token.
func (s *Server) Player(op huma.Operation) huma.Operation {
	op.Security = []map[string][]string{{schemeAPIKey: {}, schemePlayer: {}}}
	op.Middlewares = append(huma.Middlewares{s.requireAPIKey, s.requirePlayer}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusForbidden, http.StatusMisdirectedRequest)
	return op
}

// MaybePlayer declares an operation that needs the game's API key and takes a player token
// when one is sent (Authorization: Bearer): a token sent must be valid (401 otherwise), and
// PlayerFrom then returns its player; without one, PlayerFrom returns the zero player.
func (s *Server) MaybePlayer(op huma.Operation) huma.Operation {
	op.Security = []map[string][]string{{schemeAPIKey: {}}, {schemeAPIKey: {}, schemePlayer: {}}}
	op.Middlewares = append(huma.Middlewares{s.requireAPIKey, s.maybePlayer}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusForbidden, http.StatusMisdirectedRequest)
	return op
}

// maybePlayer is requirePlayer when an Authorization header is sent.
func (s *Server) maybePlayer(hctx huma.Context, next func(huma.Context)) {
	if strings.TrimSpace(hctx.Header("Authorization")) == "" {
		next(hctx)
		return
	}
	s.requirePlayer(hctx, next)
}

// CoinMovement declares an operation that moves coins: a game with serverOnlyCoinMovements on
// takes it only with its server secret in x-api-secret, else 403 SERVER_SECRET_REQUIRED. Apply it
// to an operation already declared with APIKey or Player.
func (s *Server) CoinMovement(op huma.Operation) huma.Operation {
	security := make([]map[string][]string, 0, 2*len(op.Security))
	for _, req := range op.Security {
		with := maps.Clone(req)
		with[schemeServerSecret] = []string{}
		security = append(security, req, with)
	}
	op.Security = security
	op.Middlewares = append(op.Middlewares, s.requireServerSecret)
	op.Errors = appendStatuses(op.Errors, http.StatusForbidden)
	return op
}

// CoinMovementWith declares, as an Operations group's Auth, operations authenticated by auth
// (APIKey or Player) that move coins or act as any player (CoinMovement).
func (s *Server) CoinMovementWith(auth func(huma.Operation) huma.Operation) func(huma.Operation) huma.Operation {
	return func(op huma.Operation) huma.Operation { return s.CoinMovement(auth(op)) }
}

// Operator declares an operator API operation.
func (s *Server) Operator(op huma.Operation) huma.Operation {
	op.Security = []map[string][]string{{schemeOperator: {}}}
	op.Middlewares = append(huma.Middlewares{s.requireOperator}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized)
	op.Tags = []string{TagOperator}
	return op
}

func appendStatuses(list []int, statuses ...int) []int {
	for _, s := range statuses {
		found := false
		for _, have := range list {
			found = found || have == s
		}
		if !found {
			list = append(list, s)
		}
	}
	return list
}

// bearerToken returns the credentials of an Authorization: Bearer header (the scheme is
// case-insensitive), or "".
func bearerToken(header string) string {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}

// Authenticator resolves a request's credentials, for a module's own authentication: env is
// the environment of the request's Host, header reads a request header. It returns the value
// to put in the context under key, or an error for ErrorFrom.
type Authenticator func(ctx context.Context, env studio.Environment, header func(string) string) (any, error)

// Authenticated declares an operation authenticated by a module's own scheme (a bearer token the
// module issues; "" declares none, for an operation that only needs the Host's environment): the Host picks the environment (421 for an unknown host), auth resolves the
// credentials, and the handler reads the result from the context under key. The scheme is added
// to the OpenAPI document with its description.
func (s *Server) Authenticated(op huma.Operation, scheme, description string, key any, auth Authenticator) huma.Operation {
	if scheme != "" {
		if oapi := s.API.OpenAPI(); oapi.Components.SecuritySchemes[scheme] == nil {
			oapi.Components.SecuritySchemes[scheme] = &huma.SecurityScheme{Type: "http", Scheme: "bearer", Description: description}
		}
		op.Security = []map[string][]string{{scheme: {}}}
	}
	op.Middlewares = append(huma.Middlewares{func(hctx huma.Context, next func(huma.Context)) {
		ctx := hctx.Context()
		env, ok := s.cfg.Hosts.Environment(hctx.Host())
		if !ok {
			writeHumaError(hctx, NewError(ctx, http.StatusMisdirectedRequest, "UNKNOWN_HOST", s.cfg.Hosts.unknownHostMessage(hctx.Host())))
			return
		}
		v, err := auth(ctx, env, hctx.Header)
		if err != nil {
			writeHumaError(hctx, ErrorFrom(ctx, err))
			return
		}
		next(huma.WithValue(hctx, key, v))
	}}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusMisdirectedRequest)
	return op
}

// HostEnvironment is the environment of a Host, false for a host in neither list.
func (s *Server) HostEnvironment(host string) (studio.Environment, bool) {
	return s.cfg.Hosts.Environment(host)
}

// BearerToken returns the credentials of an Authorization: Bearer header, or "".
func BearerToken(header string) string { return bearerToken(header) }
