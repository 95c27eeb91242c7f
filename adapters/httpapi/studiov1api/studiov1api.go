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

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/members"
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

// group declares the operations of one tag, each description ending in note.
type group struct {
	a    *api
	tag  string
	note string
}

func (a *api) group(tag string) group { return group{a: a, tag: tag} }

// operation is the part of a declaration that every operation has (httpapi.Op), with the
// group's tag and note.
func (g group) operation(id, method, path, summary, description string, errors []int) huma.Operation {
	o := httpapi.Op(id, method, path, summary, description+g.note, errors...)
	o.Tags = []string{g.tag}
	return o
}

// op declares an authenticated operation that needs role need: its description says so, with
// the codes of the refusals, and its statuses are declared.
func (g group) op(need members.Role, id, method, path, summary, description string, errors ...int) huma.Operation {
	o := g.operation(id, method, path, summary, description, errors)
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
	return g.a.s.Studio(o, g.a.authenticate)
}

// serve adapts h to Huma: h gets the caller and what the path names, and answers a body; its
// error is answered by httpapi.ErrorFrom (the body it returns with an error is not used).
func serve[I, B any](h func(context.Context, scope, *I) (B, error)) func(context.Context, *I) (*httpapi.Output[B], error) {
	return func(ctx context.Context, in *I) (*httpapi.Output[B], error) {
		s, err := scopeOf(ctx, in)
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		b, err := h(ctx, s, in)
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		return &httpapi.Output[B]{Body: b}, nil
	}
}

// serveNoBody adapts h, which answers no body (204, or the operation's status), as serve does.
func serveNoBody[I any](h func(context.Context, scope, *I) error) func(context.Context, *I) (*struct{}, error) {
	return func(ctx context.Context, in *I) (*struct{}, error) {
		s, err := scopeOf(ctx, in)
		if err == nil {
			err = h(ctx, s, in)
		}
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		return nil, nil
	}
}

// serveCreated adapts h, which says whether it made the thing it answers, as serve does.
func serveCreated[I, B any](h func(context.Context, scope, *I) (B, bool, error)) func(context.Context, *I) (*httpapi.Put[B], error) {
	return func(ctx context.Context, in *I) (*httpapi.Put[B], error) {
		s, err := scopeOf(ctx, in)
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		b, made, err := h(ctx, s, in)
		if err != nil {
			return nil, httpapi.ErrorFrom(ctx, err)
		}
		if made {
			return &httpapi.Put[B]{Status: http.StatusCreated, Body: b}, nil
		}
		return &httpapi.Put[B]{Status: http.StatusOK, Body: b}, nil
	}
}

// Paging is the paging of the studio API's paged lists, 20 a page by default; embed it in an
// input (Huma reads the fields of exported embedded structs only).
type Paging struct {
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Page  int `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// Resolve implements huma.Resolver: page × limit is at most httpapi.MaxListDepth.
func (q *Paging) Resolve(huma.Context) []error { return httpapi.CheckDepth(q.Page, q.Limit) }

// offset is the number of items before the page.
func (q Paging) offset() int { return (q.Page - 1) * q.Limit }
