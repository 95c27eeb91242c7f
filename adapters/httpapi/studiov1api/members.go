package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studioapi"
	"github.com/rewardsco/rewards/core/members"
)

// TokenBody is a studio access token, without its secret.
type TokenBody struct {
	ID        uuid.UUID `json:"id" doc:"Token id"`
	MemberID  uuid.UUID `json:"memberId" doc:"The member who made it; the token dies with their membership"`
	Name      string    `json:"name" doc:"What the token is for" example:"CI deploys"`
	Role      string    `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The token's role (never above its maker's)"`
	CreatedAt time.Time `json:"createdAt" doc:"When it was made"`
	ExpiresAt time.Time `json:"expiresAt" doc:"When it stops working"`
	// LastUsedAt is a pointer: null before the first use.
	LastUsedAt *time.Time `json:"lastUsedAt" doc:"When it was last used (to the minute), or null"`
}

func toTokenBody(t members.AccessToken) TokenBody {
	return TokenBody{ID: t.ID, MemberID: t.MemberID, Name: t.Name, Role: string(t.Role), CreatedAt: t.CreatedAt,
		ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt}
}

// NewTokenBody is a token just made, with its secret.
type NewTokenBody struct {
	TokenBody
	Token string `json:"token" doc:"The token, for Authorization: Bearer; shown only here" example:"rst_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWDarjtT"`
}

type inviteInput struct {
	Body struct {
		Email string `json:"email" minLength:"3" maxLength:"254" doc:"The email to invite" example:"ada@pixelforge.example"`
		Role  string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The member's role"`
	}
}

type changeRoleInput struct {
	MemberPath
	Body struct {
		Role string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The new role"`
	}
}

type createTokenInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"100" doc:"What the token is for" example:"CI deploys"`
		Role string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The token's role, no higher than yours"`
		Days int    `json:"days" minimum:"1" maximum:"365" doc:"Days until it expires, 1 to 365" example:"90"`
	}
}

func (a *api) registerMembers() {
	g := a.group(tagMembers)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-members", http.MethodGet, "/studio/v1/members",
		"The studio's members",
		"Every member, invited or active, oldest first."), serve(a.listMembers))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.op(members.Owner, "studio-invite-member", http.MethodPost, "/studio/v1/members",
		"Invite a member",
		"Adds a member with the role, status INVITED, and emails them the invitation link (valid 72 hours, once), which this answer holds too. 409 MEMBER_EXISTS when the studio has a member with the email; 400 VALIDATION_FAILED for an email that is not one.",
		http.StatusBadRequest, http.StatusConflict)), serve(a.invite))
	huma.Register(a.s.StudioAPI, g.op(members.Owner, "studio-change-member-role", http.MethodPatch, "/studio/v1/members/{memberId}",
		"Change a member's role",
		"Gives the member another role, at once (their sessions and tokens follow within a second). A studio keeps an owner: demoting the last one is 409 LAST_OWNER, under concurrent changes too. 404 MEMBER_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict), serve(a.changeRole))
	huma.Register(a.s.StudioAPI, g.op(members.Owner, "studio-remove-member", http.MethodDelete, "/studio/v1/members/{memberId}",
		"Remove a member",
		"Removes the member with their sessions and access tokens: they answer 401 at once on this instance and within a second on every other. Removing the last owner is 409 LAST_OWNER. 404 MEMBER_NOT_FOUND.",
		http.StatusNotFound, http.StatusConflict), serveNoBody(func(ctx context.Context, s scope, _ *MemberPath) error {
		return a.members.Remove(ctx, s.p, s.id)
	}))
	a.registerTokens()
}

func (a *api) registerTokens() {
	g := a.group(tagTokens)
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-list-tokens", http.MethodGet, "/studio/v1/tokens",
		"The studio's access tokens",
		"Every access token of the studio, oldest first, without secrets."), serve(a.listTokens))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.op(members.Developer, "studio-create-token", http.MethodPost, "/studio/v1/tokens",
		"Make an access token",
		"Makes an access token (rst_…) for automation, with a name, a role and an expiry of 1 to 365 days; the token is in this answer only, the service keeps a hash. Its role cannot be above the caller's: a DEVELOPER asking for an OWNER token gets 403 ROLE_FORBIDDEN.",
		http.StatusBadRequest)), serve(a.createToken))
	huma.Register(a.s.StudioAPI, g.op(members.Developer, "studio-revoke-token", http.MethodDelete, "/studio/v1/tokens/{tokenId}",
		"Revoke an access token",
		"The token stops working at once on this instance and within a second on every other. Revoking an OWNER token needs OWNER (403 ROLE_FORBIDDEN). 404 TOKEN_NOT_FOUND.",
		http.StatusNotFound), serveNoBody(func(ctx context.Context, s scope, _ *tokenPath) error {
		return a.members.RevokeToken(ctx, s.p, s.id)
	}))
}

func (a *api) listMembers(ctx context.Context, s scope, _ *struct{}) ([]studioapi.MemberBody, error) {
	if err := s.p.Require(members.Viewer); err != nil {
		return nil, err
	}
	list, err := a.members.List(ctx, s.p.StudioID)
	return httpapi.Map(list, studioapi.ToMemberBody), err
}

func (a *api) invite(ctx context.Context, s scope, in *inviteInput) (studioapi.InvitationBody, error) {
	inv, err := a.members.Invite(ctx, s.p.StudioID, &s.p, in.Body.Email, members.Role(in.Body.Role))
	return studioapi.ToInvitationBody(inv), err
}

func (a *api) changeRole(ctx context.Context, s scope, in *changeRoleInput) (studioapi.MemberBody, error) {
	m, err := a.members.ChangeRole(ctx, s.p, s.id, members.Role(in.Body.Role))
	return studioapi.ToMemberBody(m), err
}

func (a *api) listTokens(ctx context.Context, s scope, _ *struct{}) ([]TokenBody, error) {
	list, err := a.members.ListTokens(ctx, s.p)
	return httpapi.Map(list, toTokenBody), err
}

func (a *api) createToken(ctx context.Context, s scope, in *createTokenInput) (NewTokenBody, error) {
	t, err := a.members.CreateToken(ctx, s.p, in.Body.Name, members.Role(in.Body.Role), in.Body.Days)
	return NewTokenBody{TokenBody: toTokenBody(t.AccessToken), Token: t.Secret}, err
}
