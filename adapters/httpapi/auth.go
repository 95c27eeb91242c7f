package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/rewardsco/rewards/core/studio"
)

// callerFrom returns the game and environment the request's API key authenticated.
func callerFrom(ctx context.Context) studio.Caller {
	c, _ := ctx.Value(callerKey).(studio.Caller)
	return c
}

// writeHumaError answers from inside a Huma middleware, through the same writer as the chi layer.
func writeHumaError(hctx huma.Context, e *APIError) {
	_, w := humachi.Unwrap(hctx)
	writeError(w, e)
}

// requireAPIKey resolves the Host to an environment and x-api-key to a game in it.
func (a *handlers) requireAPIKey(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	env, ok := a.Hosts.Environment(hctx.Host())
	if !ok {
		writeHumaError(hctx, newAPIError(ctx, http.StatusMisdirectedRequest, "UNKNOWN_HOST", a.Hosts.unknownHostMessage(hctx.Host())))
		return
	}
	caller, err := a.Studios.Authenticate(ctx, hctx.Header("x-api-key"), env)
	if err != nil {
		writeHumaError(hctx, apiKeyError(ctx, err))
		return
	}
	next(huma.WithValue(hctx, callerKey, caller))
}

func apiKeyError(ctx context.Context, err error) *APIError {
	var wrongEnv *studio.WrongEnvironmentError
	switch {
	case errors.Is(err, studio.ErrKeyMissing):
		return newAPIError(ctx, http.StatusUnauthorized, "API_KEY_MISSING", err.Error())
	case errors.Is(err, studio.ErrKeyUnknown):
		return newAPIError(ctx, http.StatusUnauthorized, "API_KEY_UNKNOWN", err.Error())
	case errors.Is(err, studio.ErrKeyRevoked):
		return newAPIError(ctx, http.StatusUnauthorized, "API_KEY_REVOKED", err.Error())
	case errors.As(err, &wrongEnv):
		return newAPIError(ctx, http.StatusUnauthorized, "API_KEY_WRONG_ENVIRONMENT", err.Error())
	default:
		return internal(ctx, err)
	}
}

// requireOperator checks Authorization: Bearer <REWARDS_ADMIN_TOKEN> in constant time.
func (a *handlers) requireOperator(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	token := bearerToken(hctx.Header("Authorization"))
	if token == "" {
		writeHumaError(hctx, newAPIError(ctx, http.StatusUnauthorized, "OPERATOR_TOKEN_MISSING",
			"missing operator token: send Authorization: Bearer <REWARDS_ADMIN_TOKEN>"))
		return
	}
	// Comparing digests keeps the comparison constant-time whatever the lengths.
	got, want := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(a.AdminToken))
	if a.AdminToken == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		writeHumaError(hctx, newAPIError(ctx, http.StatusUnauthorized, "OPERATOR_TOKEN_INVALID", "invalid operator token"))
		return
	}
	next(hctx)
}

// apiKeyOperation declares an operation authenticated by the game's API key.
func (a *handlers) apiKeyOperation(op huma.Operation) huma.Operation {
	op.Security = append(op.Security, map[string][]string{schemeAPIKey: {}})
	op.Middlewares = append(huma.Middlewares{a.requireAPIKey}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusMisdirectedRequest)
	return op
}

// operatorOperation declares an operator API operation.
func (a *handlers) operatorOperation(op huma.Operation) huma.Operation {
	op.Security = []map[string][]string{{schemeOperator: {}}}
	op.Middlewares = append(huma.Middlewares{a.requireOperator}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized)
	op.Tags = []string{tagOperator}
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
