package studioapi

import (
	"context"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// InvitationBody is an invited member, with the link that accepts the invitation.
type InvitationBody struct {
	ID        uuid.UUID `json:"id" doc:"Member id"`
	Email     string    `json:"email" doc:"The invited email, in lower case" example:"owner@pixelforge.example"`
	Role      string    `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The member's role"`
	Status    string    `json:"status" enum:"INVITED" doc:"INVITED until the invitation is accepted"`
	InviteURL string    `json:"inviteUrl" doc:"The invitation link (valid 72 hours, once), also emailed to the member" example:"https://rewards.example.com/console/invite/4eC39HqLyjWDarjtT1zdp7dc"`
}

// ToInvitationBody is the answer to an invitation, the operator's or a studio owner's.
func ToInvitationBody(inv members.Invitation) InvitationBody {
	return InvitationBody{ID: inv.Member.ID, Email: inv.Member.Email, Role: string(inv.Member.Role),
		Status: string(inv.Member.Status), InviteURL: inv.URL}
}

// MemberBody is a member of a studio, as the operator and the studio's members see it.
type MemberBody struct {
	ID          uuid.UUID `json:"id" doc:"Member id"`
	StudioID    uuid.UUID `json:"studioId" doc:"The member's studio"`
	Email       string    `json:"email" doc:"Email, in lower case; unique in the studio" example:"ada@pixelforge.example"`
	Name        string    `json:"name" doc:"Name; empty until the invitation is accepted" example:"Ada"`
	Role        string    `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"OWNER does everything; DEVELOPER everything but members and OWNER tokens; VIEWER reads only"`
	Status      string    `json:"status" enum:"INVITED,ACTIVE" doc:"INVITED until the invitation is accepted; only ACTIVE members sign in"`
	TOTPEnabled bool      `json:"totpEnabled" doc:"Whether the member signs in with a TOTP code too"`
	CreatedAt   time.Time `json:"createdAt" doc:"When the member was invited"`
}

// ToMemberBody is the answer holding member m.
func ToMemberBody(m members.Member) MemberBody {
	return MemberBody{ID: m.ID, StudioID: m.StudioID, Email: m.Email, Name: m.Name, Role: string(m.Role),
		Status: string(m.Status), TOTPEnabled: m.TOTPEnabled, CreatedAt: m.CreatedAt}
}

type inviteMemberInput struct {
	StudioPath
	Body struct {
		Email string `json:"email" minLength:"3" maxLength:"254" doc:"The email to invite" example:"owner@pixelforge.example"`
		Role  string `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The member's role; a studio's first member is usually its OWNER"`
	}
}

// RegisterMembers adds the operator's operations on a studio's members: inviting one (the
// studio's first owner, usually) and listing them. Owners invite the rest themselves, in the
// console or the studio API.
func RegisterMembers(s *httpapi.Server, studios *studio.Service, m *members.Service) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("admin-invite-member", http.MethodPost, "/admin/v1/studios/{studioId}/members",
		"Invite a member of a studio",
		"Adds a member to the studio with the role, status INVITED, and emails them the invitation link (valid 72 hours, once), which this answer holds too: the way a studio gets its first owner. 404 STUDIO_NOT_FOUND; 409 MEMBER_EXISTS when the studio has a member with the email; 400 VALIDATION_FAILED for an email that is not one.",
		http.StatusBadRequest, http.StatusNotFound, http.StatusConflict)), serve(func(ctx context.Context, id uuid.UUID, in *inviteMemberInput) (InvitationBody, error) {
		if _, err := studios.GetStudio(ctx, id); err != nil {
			return InvitationBody{}, err
		}
		inv, err := m.Invite(ctx, id, nil, in.Body.Email, members.Role(in.Body.Role))
		return ToInvitationBody(inv), err
	}))
	httpapi.Register(ops, httpapi.Op("admin-list-members", http.MethodGet, "/admin/v1/studios/{studioId}/members",
		"List a studio's members",
		"Every member of the studio, invited or active, oldest first. 404 STUDIO_NOT_FOUND.",
		http.StatusNotFound), serve(func(ctx context.Context, id uuid.UUID, _ *StudioPath) ([]MemberBody, error) {
		if _, err := studios.GetStudio(ctx, id); err != nil {
			return nil, err
		}
		list, err := m.List(ctx, id)
		return httpapi.Map(list, ToMemberBody), err
	}))
}
