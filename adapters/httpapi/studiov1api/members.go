package studiov1api

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/members"
)

// InvitationBody is an invited member with the link that accepts the invitation.
type InvitationBody struct {
	ID        uuid.UUID `json:"id" doc:"Member id"`
	Email     string    `json:"email" doc:"The invited email, in lower case" example:"ada@pixelforge.example"`
	Role      string    `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The member's role"`
	Status    string    `json:"status" enum:"INVITED" doc:"INVITED until the invitation is accepted"`
	InviteURL string    `json:"inviteUrl" doc:"The invitation link (valid 72 hours, once), also emailed to the member" example:"https://rewards.example.com/console/invite/4eC39HqLyjWDarjtT1zdp7dc"`
}

func toInvitationBody(inv members.Invitation) InvitationBody {
	return InvitationBody{ID: inv.Member.ID, Email: inv.Member.Email, Role: string(inv.Member.Role),
		Status: string(inv.Member.Status), InviteURL: inv.URL}
}

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

type membersOutput struct{ Body []MemberBody }

type inviteInput struct {
	Body struct {
		Email string `json:"email" minLength:"3" maxLength:"254" doc:"The email to invite" example:"ada@pixelforge.example"`
		Role  string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The member's role"`
	}
}

type invitationOutput struct{ Body InvitationBody }

type memberPath struct {
	MemberID string `path:"memberId" maxLength:"64" doc:"A member of the studio (another studio's member is 404 MEMBER_NOT_FOUND)"`
}

type changeRoleInput struct {
	MemberID string `path:"memberId" maxLength:"64" doc:"A member of the studio (another studio's member is 404 MEMBER_NOT_FOUND)"`
	Body     struct {
		Role string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The new role"`
	}
}

type tokensOutput struct{ Body []TokenBody }

type createTokenInput struct {
	Body struct {
		Name string `json:"name" minLength:"1" maxLength:"100" doc:"What the token is for" example:"CI deploys"`
		Role string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The token's role, no higher than yours"`
		Days int    `json:"days" minimum:"1" maximum:"365" doc:"Days until it expires, 1 to 365" example:"90"`
	}
}

type newTokenOutput struct{ Body NewTokenBody }

type tokenPath struct {
	TokenID string `path:"tokenId" maxLength:"64" doc:"An access token of the studio (another studio's is 404 TOKEN_NOT_FOUND)"`
}

func (a *api) registerMembers() {
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-list-members",
		Method:      http.MethodGet,
		Path:        "/studio/v1/members",
		Summary:     "The studio's members",
		Description: "Every member, invited or active, oldest first.",
	}, tagMembers, members.Viewer), a.listMembers)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-invite-member",
		Method:        http.MethodPost,
		Path:          "/studio/v1/members",
		Summary:       "Invite a member",
		Description:   "Adds a member with the role, status INVITED, and emails them the invitation link (valid 72 hours, once), which this answer holds too. 409 MEMBER_EXISTS when the studio has a member with the email; 400 VALIDATION_FAILED for an email that is not one.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusConflict},
	}, tagMembers, members.Owner), a.invite)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-change-member-role",
		Method:      http.MethodPatch,
		Path:        "/studio/v1/members/{memberId}",
		Summary:     "Change a member's role",
		Description: "Gives the member another role, at once (their sessions and tokens follow within a second). A studio keeps an owner: demoting the last one is 409 LAST_OWNER, under concurrent changes too. 404 MEMBER_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound, http.StatusConflict},
	}, tagMembers, members.Owner), a.changeRole)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-remove-member",
		Method:        http.MethodDelete,
		Path:          "/studio/v1/members/{memberId}",
		Summary:       "Remove a member",
		Description:   "Removes the member with their sessions and access tokens: they answer 401 at once on this instance and within a second on every other. Removing the last owner is 409 LAST_OWNER. 404 MEMBER_NOT_FOUND.",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusNotFound, http.StatusConflict},
	}, tagMembers, members.Owner), a.removeMember)

	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-list-tokens",
		Method:      http.MethodGet,
		Path:        "/studio/v1/tokens",
		Summary:     "The studio's access tokens",
		Description: "Every access token of the studio, oldest first, without secrets.",
	}, tagTokens, members.Viewer), a.listTokens)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-create-token",
		Method:        http.MethodPost,
		Path:          "/studio/v1/tokens",
		Summary:       "Make an access token",
		Description:   "Makes an access token (rst_…) for automation, with a name, a role and an expiry of 1 to 365 days; the token is in this answer only, the service keeps a hash. Its role cannot be above the caller's: a DEVELOPER asking for an OWNER token gets 403 ROLE_FORBIDDEN.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest},
	}, tagTokens, members.Developer), a.createToken)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-revoke-token",
		Method:        http.MethodDelete,
		Path:          "/studio/v1/tokens/{tokenId}",
		Summary:       "Revoke an access token",
		Description:   "The token stops working at once on this instance and within a second on every other. Revoking an OWNER token needs OWNER (403 ROLE_FORBIDDEN). 404 TOKEN_NOT_FOUND.",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusNotFound},
	}, tagTokens, members.Developer), a.revokeToken)
}

func (a *api) listMembers(ctx context.Context, _ *struct{}) (*membersOutput, error) {
	p := principal(ctx)
	if err := p.Require(members.Viewer); err != nil {
		return nil, fail(ctx, err)
	}
	list, err := a.members.List(ctx, p.StudioID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &membersOutput{Body: httpapi.Map(list, toMemberBody)}, nil
}

func (a *api) invite(ctx context.Context, in *inviteInput) (*invitationOutput, error) {
	p := principal(ctx)
	inv, err := a.members.Invite(ctx, p.StudioID, &p, in.Body.Email, members.Role(in.Body.Role))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &invitationOutput{Body: toInvitationBody(inv)}, nil
}

func (a *api) changeRole(ctx context.Context, in *changeRoleInput) (*memberOutput, error) {
	id, err := httpapi.ParseID(in.MemberID, members.ErrMemberNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	m, err := a.members.ChangeRole(ctx, principal(ctx), id, members.Role(in.Body.Role))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &memberOutput{Body: toMemberBody(m)}, nil
}

func (a *api) removeMember(ctx context.Context, in *memberPath) (*struct{}, error) {
	id, err := httpapi.ParseID(in.MemberID, members.ErrMemberNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.members.Remove(ctx, principal(ctx), id); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) listTokens(ctx context.Context, _ *struct{}) (*tokensOutput, error) {
	list, err := a.members.ListTokens(ctx, principal(ctx))
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &tokensOutput{Body: httpapi.Map(list, toTokenBody)}, nil
}

func (a *api) createToken(ctx context.Context, in *createTokenInput) (*newTokenOutput, error) {
	t, err := a.members.CreateToken(ctx, principal(ctx), in.Body.Name, members.Role(in.Body.Role), in.Body.Days)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &newTokenOutput{Body: NewTokenBody{TokenBody: toTokenBody(t.AccessToken), Token: t.Secret}}, nil
}

func (a *api) revokeToken(ctx context.Context, in *tokenPath) (*struct{}, error) {
	id, err := httpapi.ParseID(in.TokenID, members.ErrTokenNotFound)
	if err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.members.RevokeToken(ctx, principal(ctx), id); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}
