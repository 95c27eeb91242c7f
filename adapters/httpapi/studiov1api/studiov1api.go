// Package studiov1api serves the studio API (/studio/v1): what a studio's members do in the
// console, as JSON for their scripts and tools. It is thin: every operation converts its input,
// makes one call to core/members (sign-in, members, tokens, TOTP) or core/console (everything
// about games, which checks roles and ownership in one place), and converts the answer.
//
// Credentials are Authorization: Bearer with a session token (POST /studio/v1/sessions) or a
// studio access token (rst_…), resolved by members.Service.Authenticate into a Principal that
// the operation finds in its context; the audit log's actor (the member or token, the client's
// address and user agent) is put in the same context, so that every change it makes is recorded
// with who made it and from where.
//
// Webhook configurations belong to a studio and an environment in this codebase (as on
// /studio-webhooks, where the API key's studio and the host's environment choose them), not to a
// game: the paths /studio/v1/webhooks/{environment}/… name the environment, and the studio is the
// caller's.
package studiov1api

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// Deps are the services the studio API calls.
type Deps struct {
	Members *members.Service
	Console *console.Service
}

// Tags of the studio API, in the order of its docs page.
const (
	tagAccount    = httpapi.TagStudioAccount
	tagMembers    = "Members"
	tagTokens     = "Access tokens"
	tagGames      = "Games"
	tagPlacements = "Placements"
	tagPlayers    = "Players and orders"
	tagWebhooks   = "Webhooks"
	tagAudit      = "Audit log"
)

var tags = []struct{ name, description string }{
	{tagAccount, "Signing in and out, invitations, password resets, the signed-in member and TOTP."},
	{tagMembers, "The studio's members and their roles (OWNER only)."},
	{tagTokens, "Studio access tokens (rst_…) for automation: a name, a role no higher than the maker's, 1 to 365 days."},
	{tagGames, "The studio's games: masked keys, key rotation, server secrets, the partner secret and wallet, integration settings."},
	{tagPlacements, "Touchpoint placements: edited in test, copied to live at go-live (the promote difference, then its copy)."},
	{tagPlayers, "One game's players (by uuid, id or phone; block and unblock) and orders (by status, player and time, one with its history)."},
	{tagWebhooks, "The studio's webhook configurations of an environment, their deliveries and stats: resend, recover, rotate the signing secret, send a test."},
	{tagAudit, "Who changed what in the studio's data, from the console, this API or the operator API."},
}

// api holds the services behind the operations.
type api struct {
	s       *httpapi.Server
	members *members.Service
	console *console.Service
}

// Register adds the studio API's operations to s.StudioAPI.
func Register(s *httpapi.Server, d Deps) {
	a := &api{s: s, members: d.Members, console: d.Console}
	for _, t := range tags {
		s.AddStudioTag(t.name, t.description)
	}
	a.registerAccount()
	a.registerMembers()
	a.registerGames()
	a.registerPlacements()
	a.registerPlayers()
	a.registerWebhooks()
	a.registerAudit()
}

type principalKey struct{}

// principal is the caller an operation declared with op was authenticated as.
func principal(ctx context.Context) members.Principal {
	p, _ := ctx.Value(principalKey{}).(members.Principal)
	return p
}

// authenticate resolves a session token or an access token; every failure is the one 401
// UNAUTHENTICATED, whatever was wrong.
func (a *api) authenticate(ctx context.Context, bearer string, c httpapi.Client) (context.Context, error) {
	if bearer == "" {
		return ctx, members.ErrUnauthenticated
	}
	p, err := a.members.Authenticate(ctx, bearer)
	if err != nil {
		return ctx, err
	}
	ctx = context.WithValue(ctx, principalKey{}, p)
	return audit.WithActor(ctx, p.Actor(c.IP, c.UserAgent)), nil
}

// A role an operation needs: roleAny lets in any principal, even one that must set up TOTP
// first (reading /me, setting up TOTP, signing out).
const roleAny members.Role = ""

// authNote is what every authenticated operation's description says of its credentials.
const authNote = " 401 UNAUTHENTICATED without a valid session or access token (the same answer whatever is wrong)."

// op declares an authenticated operation that needs role need: its description says so, with
// the codes of the refusals, and its statuses are declared.
func (a *api) op(o huma.Operation, tag string, need members.Role) huma.Operation {
	o.Tags = []string{tag}
	switch need {
	case roleAny:
	case members.Viewer:
		o.Description += " Any role may call it (VIEWER and above); 403 TOTP_SETUP_REQUIRED while the studio requires TOTP and the member has not set it up."
		o.Errors = append(o.Errors, http.StatusForbidden)
	case members.Developer:
		o.Description += " Needs DEVELOPER or OWNER: a VIEWER (or a VIEWER token) gets 403 ROLE_FORBIDDEN and nothing changes; 403 TOTP_SETUP_REQUIRED while the studio requires TOTP and the member has not set it up."
		o.Errors = append(o.Errors, http.StatusForbidden)
	case members.Owner:
		o.Description += " Needs OWNER: any other role gets 403 ROLE_FORBIDDEN and nothing changes; 403 TOTP_SETUP_REQUIRED while the studio requires TOTP and the member has not set it up."
		o.Errors = append(o.Errors, http.StatusForbidden)
	}
	o.Description += authNote
	return a.s.Studio(o, a.authenticate)
}

// open declares an operation that needs no credentials.
func (a *api) open(o huma.Operation, tag string) huma.Operation {
	o.Tags = []string{tag}
	return a.s.Studio(o, nil)
}

// fail is the answer of a core error.
func fail(ctx context.Context, err error) error { return httpapi.ErrorFrom(ctx, err) }

// GamePath names a game of the caller's studio.
type GamePath struct {
	GameID string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
}

// GameEnvPath names a game of the caller's studio and one of its environments.
type GameEnvPath struct {
	GameID      string `path:"gameId" maxLength:"64" doc:"A game of the studio (another studio's game is 404 GAME_NOT_FOUND, as an unknown id)"`
	Environment string `path:"environment" enum:"live,test" doc:"The environment: live or test"`
}

// ids parses the path's game id (404 GAME_NOT_FOUND when it cannot be one).
func gameID(s string) (uuid.UUID, error) { return httpapi.ParseID(s, studio.ErrGameNotFound) }

// env is a path's environment.
func env(s string) studio.Environment { return studio.Environment(strings.ToLower(s)) }
