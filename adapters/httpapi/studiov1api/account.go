package studiov1api

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studioapi"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// MeBody is the caller: the signed-in member, or the maker of the access token used.
type MeBody struct {
	ID       uuid.UUID `json:"id" doc:"Member id (the token's maker for an access token)"`
	StudioID uuid.UUID `json:"studioId" doc:"The studio"`
	Email    string    `json:"email" doc:"Email" example:"ada@pixelforge.example"`
	Name     string    `json:"name" doc:"Name" example:"Ada"`
	Role     string    `json:"role" enum:"OWNER,DEVELOPER,VIEWER" doc:"The role in effect: the member's, or the access token's own"`
	// TokenName is a pointer: null for a session.
	TokenName     *string `json:"tokenName" doc:"The access token's name when called with one; null for a session"`
	TOTPEnabled   bool    `json:"totpEnabled" doc:"Whether the member signs in with a TOTP code too"`
	MustSetUpTOTP bool    `json:"mustSetUpTotp" doc:"The studio requires TOTP and the member has none: only /me, TOTP setup and sign-out work until it is set up"`
}

// SessionBody is a new session.
type SessionBody struct {
	Token     string               `json:"token" doc:"The session token, for Authorization: Bearer; shown only here" example:"rss_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWDarjtT1zd"`
	ExpiresAt time.Time            `json:"expiresAt" doc:"When the session ends at the latest (7 days); unused for 12 hours, it ends earlier"`
	Member    studioapi.MemberBody `json:"member" doc:"The signed-in member"`
}

// TOTPSetupBody is a TOTP secret awaiting confirmation.
type TOTPSetupBody struct {
	Secret string `json:"secret" doc:"The secret, base32, to type into an authenticator app; shown only here" example:"JBSWY3DPEHPK3PXP"`
	URL    string `json:"url" doc:"The otpauth:// address of the secret, for a QR code" example:"otpauth://totp/Rewards:ada@pixelforge.example?secret=JBSWY3DPEHPK3PXP&issuer=Rewards"`
}

// TOTPRequirementBody is whether the studio requires TOTP of every member.
type TOTPRequirementBody struct {
	Required bool `json:"required" doc:"true: every member signs in with a TOTP code; one without TOTP can only set it up"`
}

type signInInput struct {
	Body struct {
		Email    string `json:"email" minLength:"1" maxLength:"254" doc:"The member's email" example:"ada@pixelforge.example"`
		Password string `json:"password" minLength:"1" maxLength:"128" doc:"The password" example:"correct horse battery staple"`
		OTP      string `json:"otp,omitempty" maxLength:"10" doc:"The TOTP code, for a member with TOTP on" example:"123456"`
	}
}

type acceptInput struct {
	Token string `path:"token" maxLength:"128" doc:"The token of the invitation link (the last part of /console/invite/{token})"`
	Body  struct {
		Name     string `json:"name" minLength:"1" maxLength:"100" doc:"The member's name" example:"Ada"`
		Password string `json:"password" minLength:"12" maxLength:"128" doc:"The new password, 12 to 128 characters" example:"correct horse battery staple"`
	}
}

type resetRequestInput struct {
	Body struct {
		Email string `json:"email" minLength:"1" maxLength:"254" doc:"The member's email" example:"ada@pixelforge.example"`
	}
}

type resetInput struct {
	Token string `path:"token" maxLength:"128" doc:"The token of the reset link (the last part of /console/reset/{token})"`
	Body  struct {
		Password string `json:"password" minLength:"12" maxLength:"128" doc:"The new password, 12 to 128 characters" example:"correct horse battery staple"`
	}
}

type codeInput struct {
	Body struct {
		Code string `json:"code" minLength:"1" maxLength:"10" doc:"A current code of the authenticator app" example:"123456"`
	}
}

type requirementInput struct {
	Body TOTPRequirementBody
}

// anonymous puts the client's address and user agent in the context of an operation without
// credentials, for the audit entries it makes (accepting an invitation, resetting a password).
func anonymous(hctx huma.Context, next func(huma.Context)) {
	ip := hctx.RemoteAddr()
	if host, _, err := net.SplitHostPort(ip); err == nil {
		ip = host
	}
	next(huma.WithContext(hctx, audit.WithActor(hctx.Context(),
		audit.Actor{Kind: audit.System, Name: "anonymous", IP: ip, UserAgent: hctx.Header("User-Agent")})))
}

// registerAccount registers the account operations.
func (a *api) registerAccount() {
	g := a.group(tagAccount)
	a.registerSessions(g)
	a.registerInvitesAndResets(g)
	a.registerTOTP(g)
}

// open declares an account operation without credentials.
func (g group) open(id, method, path, summary, description string, errors ...int) huma.Operation {
	o := g.operation(id, method, path, summary, description, errors)
	o.Middlewares = append(o.Middlewares, anonymous)
	return g.a.s.Studio(o, nil)
}

// registerSessions registers signing in and out.
func (a *api) registerSessions(g group) {
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.open("studio-sign-in", http.MethodPost, "/studio/v1/sessions",
		"Sign in",
		"Starts a session of the member with the email and password (and `otp`, the TOTP code, for a member with TOTP on): 201 with the session token, shown only here, for Authorization: Bearer. An unknown email, a wrong password and a missing or wrong code all answer the same 401 SIGN_IN_FAILED, in the same time. After 5 failures for one email in 15 minutes, sign-ins of it answer 429 TOO_MANY_ATTEMPTS with Retry-After (seconds) until the oldest failure is 15 minutes old. A session ends after 12 hours unused, 7 days at most, and at sign-out.",
		http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests)), serve(a.signIn))
	huma.Register(a.s.StudioAPI, g.op(roleAny, "studio-sign-out", http.MethodDelete, "/studio/v1/sessions/current",
		"Sign out",
		"Ends the session whose token is used: it answers 401 at once on this instance and within a second on every other. With an access token nothing ends (revoke the token instead)."),
		serveNoBody(func(ctx context.Context, s scope, _ *struct{}) error { return a.members.SignOut(ctx, s.p) }))
	huma.Register(a.s.StudioAPI, g.op(roleAny, "studio-sign-out-everywhere", http.MethodDelete, "/studio/v1/sessions",
		"Sign out everywhere",
		"Ends every session of the member (the console's included), at once on this instance and within a second on every other. Access tokens stay valid."),
		serveNoBody(func(ctx context.Context, s scope, _ *struct{}) error { return a.members.SignOutEverywhere(ctx, s.p) }))
}

// registerInvitesAndResets registers the operations that set a password through an emailed link.
func (a *api) registerInvitesAndResets(g group) {
	huma.Register(a.s.StudioAPI, g.open("studio-accept-invite", http.MethodPost, "/studio/v1/invites/{token}/accept",
		"Accept an invitation",
		"Sets the invited member's name and password and makes them ACTIVE; then sign in. An invitation works once, within 72 hours: a used, expired or unknown one is 404 LINK_INVALID. The password is 12 to 128 characters (400 VALIDATION_FAILED).",
		http.StatusBadRequest, http.StatusNotFound), serve(a.acceptInvite))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusAccepted, g.open("studio-request-password-reset", http.MethodPost, "/studio/v1/password-resets",
		"Ask for a password reset link",
		"Emails each active member with the email a link to choose a new password (valid 1 hour, once). It answers 202 whether or not the email is a member's, so it tells nobody who is.",
		http.StatusBadRequest)), serveNoBody(func(ctx context.Context, _ scope, in *resetRequestInput) error {
		return a.members.RequestReset(ctx, in.Body.Email)
	}))
	huma.Register(a.s.StudioAPI, g.open("studio-reset-password", http.MethodPost, "/studio/v1/password-resets/{token}",
		"Choose a new password",
		"Sets the member's new password with the token of a reset link and ends every session of the member. A link works once, within 1 hour: a used, expired or unknown one is 404 LINK_INVALID. The password is 12 to 128 characters (400 VALIDATION_FAILED).",
		http.StatusBadRequest, http.StatusNotFound), serveNoBody(func(ctx context.Context, _ scope, in *resetInput) error {
		return a.members.ResetPassword(ctx, in.Token, in.Body.Password)
	}))
}

// registerTOTP registers the caller's own account and TOTP operations.
func (a *api) registerTOTP(g group) {
	huma.Register(a.s.StudioAPI, g.op(roleAny, "studio-get-me", http.MethodGet, "/studio/v1/me",
		"Who am I",
		"The signed-in member (or the access token's maker) with the role in effect. Works while the member must set up TOTP."),
		serve(me))
	huma.Register(a.s.StudioAPI, httpapi.WithStatus(http.StatusCreated, g.op(roleAny, "studio-begin-totp", http.MethodPost, "/studio/v1/me/totp",
		"Set up TOTP",
		"Makes a new TOTP secret for the member, shown only here; TOTP is on once a code of it is confirmed (POST /studio/v1/me/totp/confirm). A member with TOTP on already gets 400 VALIDATION_FAILED (turn it off first). Works while the member must set up TOTP; not with an access token (403 ROLE_FORBIDDEN).",
		http.StatusBadRequest, http.StatusForbidden)), serve(a.beginTOTP))
	huma.Register(a.s.StudioAPI, g.op(roleAny, "studio-confirm-totp", http.MethodPost, "/studio/v1/me/totp/confirm",
		"Turn TOTP on",
		"Turns TOTP on with a current code of the secret just set up: sign-ins then need a code. A wrong code is 400 TOTP_INVALID. Not with an access token (403 ROLE_FORBIDDEN).",
		http.StatusBadRequest, http.StatusForbidden), serveNoBody(a.memberOnly(a.members.ConfirmTOTP)))
	huma.Register(a.s.StudioAPI, g.op(roleAny, "studio-disable-totp", http.MethodPost, "/studio/v1/me/totp/disable",
		"Turn TOTP off",
		"Turns TOTP off with a current code. A wrong code is 400 TOTP_INVALID; with TOTP off already, or while the studio requires TOTP, 400 VALIDATION_FAILED. Not with an access token (403 ROLE_FORBIDDEN).",
		http.StatusBadRequest, http.StatusForbidden), serveNoBody(a.memberOnly(a.members.DisableTOTP)))
	huma.Register(a.s.StudioAPI, g.op(members.Viewer, "studio-get-totp-requirement", http.MethodGet, "/studio/v1/totp-requirement",
		"Whether the studio requires TOTP",
		"Whether every member must sign in with a TOTP code."), serve(a.totpRequirement))
	huma.Register(a.s.StudioAPI, g.op(members.Owner, "studio-set-totp-requirement", http.MethodPut, "/studio/v1/totp-requirement",
		"Require TOTP of every member",
		"With `required` true, every member signs in with a TOTP code; one without TOTP is signed in only to set it up (everything else answers 403 TOTP_SETUP_REQUIRED).",
		http.StatusBadRequest), serve(a.setTOTPRequirement))
}

func (a *api) signIn(ctx context.Context, _ scope, in *signInInput) (SessionBody, error) {
	s, err := a.members.SignIn(ctx, in.Body.Email, in.Body.Password, in.Body.OTP)
	return SessionBody{Token: s.Token, ExpiresAt: s.ExpiresAt, Member: studioapi.ToMemberBody(s.Member)}, err
}

func (a *api) acceptInvite(ctx context.Context, _ scope, in *acceptInput) (studioapi.MemberBody, error) {
	m, err := a.members.AcceptInvite(ctx, in.Token, in.Body.Name, in.Body.Password)
	return studioapi.ToMemberBody(m), err
}

func me(_ context.Context, s scope, _ *struct{}) (MeBody, error) {
	p := s.p
	b := MeBody{ID: p.Member.ID, StudioID: p.StudioID, Email: p.Member.Email, Name: p.Member.Name, Role: string(p.Role),
		TOTPEnabled: p.Member.TOTPEnabled, MustSetUpTOTP: p.MustSetUpTOTP}
	if p.TokenID != nil {
		name := p.TokenName
		b.TokenName = &name
	}
	return b, nil
}

// member refuses what only a signed-in member does for themselves to an access token.
func member(p members.Principal) error {
	if p.TokenID != nil {
		return members.ErrRoleForbidden.Withf("an access token cannot change a member's sign-in; sign in as the member")
	}
	return nil
}

// memberOnly is a TOTP change with a code, refused to an access token.
func (a *api) memberOnly(change func(context.Context, members.Principal, string) error) func(context.Context, scope, *codeInput) error {
	return func(ctx context.Context, s scope, in *codeInput) error {
		if err := member(s.p); err != nil {
			return err
		}
		return change(ctx, s.p, in.Body.Code)
	}
}

func (a *api) beginTOTP(ctx context.Context, s scope, _ *struct{}) (TOTPSetupBody, error) {
	if err := member(s.p); err != nil {
		return TOTPSetupBody{}, err
	}
	t, err := a.members.BeginTOTP(ctx, s.p)
	return TOTPSetupBody{Secret: t.Secret, URL: t.URL}, err
}

func (a *api) totpRequirement(ctx context.Context, s scope, _ *struct{}) (TOTPRequirementBody, error) {
	if err := s.p.Require(members.Viewer); err != nil {
		return TOTPRequirementBody{}, err
	}
	on, err := a.members.TOTPRequired(ctx, s.p.StudioID)
	return TOTPRequirementBody{Required: on}, err
}

func (a *api) setTOTPRequirement(ctx context.Context, s scope, in *requirementInput) (TOTPRequirementBody, error) {
	return in.Body, a.members.RequireTOTP(ctx, s.p, in.Body.Required)
}
