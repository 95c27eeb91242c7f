package studiov1api

import (
	"context"
	"net"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// MemberBody is a member of the studio.
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

func toMemberBody(m members.Member) MemberBody {
	return MemberBody{ID: m.ID, StudioID: m.StudioID, Email: m.Email, Name: m.Name, Role: string(m.Role),
		Status: string(m.Status), TOTPEnabled: m.TOTPEnabled, CreatedAt: m.CreatedAt}
}

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
	Token     string     `json:"token" doc:"The session token, for Authorization: Bearer; shown only here" example:"rss_4eC39HqLyjWDarjtT1zdp7dc4eC39HqLyjWDarjtT1zd"`
	ExpiresAt time.Time  `json:"expiresAt" doc:"When the session ends at the latest (7 days); unused for 12 hours, it ends earlier"`
	Member    MemberBody `json:"member" doc:"The signed-in member"`
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

type sessionOutput struct{ Body SessionBody }

type acceptInput struct {
	Token string `path:"token" maxLength:"128" doc:"The token of the invitation link (the last part of /console/invite/{token})"`
	Body  struct {
		Name     string `json:"name" minLength:"1" maxLength:"100" doc:"The member's name" example:"Ada"`
		Password string `json:"password" minLength:"12" maxLength:"128" doc:"The new password, 12 to 128 characters" example:"correct horse battery staple"`
	}
}

type memberOutput struct{ Body MemberBody }

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

type meOutput struct{ Body MeBody }

type totpSetupOutput struct{ Body TOTPSetupBody }

type codeInput struct {
	Body struct {
		Code string `json:"code" minLength:"1" maxLength:"10" doc:"A current code of the authenticator app" example:"123456"`
	}
}

type requirementInput struct {
	Body TOTPRequirementBody
}

type requirementOutput struct{ Body TOTPRequirementBody }

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
	a.registerSessions()
	a.registerInvitesAndResets()
	a.registerTOTP()
}

// anonymousOp is an account operation without credentials.
func (a *api) anonymousOp(o huma.Operation) huma.Operation {
	o.Middlewares = append(o.Middlewares, anonymous)
	return a.open(o, tagAccount)
}

// registerSessions registers signing in and out.
func (a *api) registerSessions() {
	huma.Register(a.s.StudioAPI, a.anonymousOp(huma.Operation{
		OperationID:   "studio-sign-in",
		Method:        http.MethodPost,
		Path:          "/studio/v1/sessions",
		Summary:       "Sign in",
		Description:   "Starts a session of the member with the email and password (and `otp`, the TOTP code, for a member with TOTP on): 201 with the session token, shown only here, for Authorization: Bearer. An unknown email, a wrong password and a missing or wrong code all answer the same 401 SIGN_IN_FAILED, in the same time. After 5 failures for one email in 15 minutes, sign-ins of it answer 429 TOO_MANY_ATTEMPTS with Retry-After (seconds) until the oldest failure is 15 minutes old. A session ends after 12 hours unused, 7 days at most, and at sign-out.",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusTooManyRequests},
	}), a.signIn)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-sign-out",
		Method:        http.MethodDelete,
		Path:          "/studio/v1/sessions/current",
		Summary:       "Sign out",
		Description:   "Ends the session whose token is used: it answers 401 at once on this instance and within a second on every other. With an access token nothing ends (revoke the token instead).",
		DefaultStatus: http.StatusNoContent,
	}, tagAccount, roleAny), a.signOut)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-sign-out-everywhere",
		Method:        http.MethodDelete,
		Path:          "/studio/v1/sessions",
		Summary:       "Sign out everywhere",
		Description:   "Ends every session of the member (the console's included), at once on this instance and within a second on every other. Access tokens stay valid.",
		DefaultStatus: http.StatusNoContent,
	}, tagAccount, roleAny), a.signOutEverywhere)
}

// registerInvitesAndResets registers the operations that set a password through an emailed link.
func (a *api) registerInvitesAndResets() {
	huma.Register(a.s.StudioAPI, a.anonymousOp(huma.Operation{
		OperationID: "studio-accept-invite",
		Method:      http.MethodPost,
		Path:        "/studio/v1/invites/{token}/accept",
		Summary:     "Accept an invitation",
		Description: "Sets the invited member's name and password and makes them ACTIVE; then sign in. An invitation works once, within 72 hours: a used, expired or unknown one is 404 LINK_INVALID. The password is 12 to 128 characters (400 VALIDATION_FAILED).",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), a.acceptInvite)
	huma.Register(a.s.StudioAPI, a.anonymousOp(huma.Operation{
		OperationID:   "studio-request-password-reset",
		Method:        http.MethodPost,
		Path:          "/studio/v1/password-resets",
		Summary:       "Ask for a password reset link",
		Description:   "Emails each active member with the email a link to choose a new password (valid 1 hour, once). It answers 202 whether or not the email is a member's, so it tells nobody who is.",
		DefaultStatus: http.StatusAccepted,
		Errors:        []int{http.StatusBadRequest},
	}), a.requestReset)
	huma.Register(a.s.StudioAPI, a.anonymousOp(huma.Operation{
		OperationID:   "studio-reset-password",
		Method:        http.MethodPost,
		Path:          "/studio/v1/password-resets/{token}",
		Summary:       "Choose a new password",
		Description:   "Sets the member's new password with the token of a reset link and ends every session of the member. A link works once, within 1 hour: a used, expired or unknown one is 404 LINK_INVALID. The password is 12 to 128 characters (400 VALIDATION_FAILED).",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusBadRequest, http.StatusNotFound},
	}), a.resetPassword)
}

// registerTOTP registers the caller's own account and TOTP operations.
func (a *api) registerTOTP() {
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-get-me",
		Method:      http.MethodGet,
		Path:        "/studio/v1/me",
		Summary:     "Who am I",
		Description: "The signed-in member (or the access token's maker) with the role in effect. Works while the member must set up TOTP.",
	}, tagAccount, roleAny), a.me)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-begin-totp",
		Method:        http.MethodPost,
		Path:          "/studio/v1/me/totp",
		Summary:       "Set up TOTP",
		Description:   "Makes a new TOTP secret for the member, shown only here; TOTP is on once a code of it is confirmed (POST /studio/v1/me/totp/confirm). A member with TOTP on already gets 400 VALIDATION_FAILED (turn it off first). Works while the member must set up TOTP; not with an access token (403 ROLE_FORBIDDEN).",
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest, http.StatusForbidden},
	}, tagAccount, roleAny), a.beginTOTP)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-confirm-totp",
		Method:        http.MethodPost,
		Path:          "/studio/v1/me/totp/confirm",
		Summary:       "Turn TOTP on",
		Description:   "Turns TOTP on with a current code of the secret just set up: sign-ins then need a code. A wrong code is 400 TOTP_INVALID. Not with an access token (403 ROLE_FORBIDDEN).",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusBadRequest, http.StatusForbidden},
	}, tagAccount, roleAny), a.confirmTOTP)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID:   "studio-disable-totp",
		Method:        http.MethodPost,
		Path:          "/studio/v1/me/totp/disable",
		Summary:       "Turn TOTP off",
		Description:   "Turns TOTP off with a current code. A wrong code is 400 TOTP_INVALID; with TOTP off already, or while the studio requires TOTP, 400 VALIDATION_FAILED. Not with an access token (403 ROLE_FORBIDDEN).",
		DefaultStatus: http.StatusNoContent,
		Errors:        []int{http.StatusBadRequest, http.StatusForbidden},
	}, tagAccount, roleAny), a.disableTOTP)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-get-totp-requirement",
		Method:      http.MethodGet,
		Path:        "/studio/v1/totp-requirement",
		Summary:     "Whether the studio requires TOTP",
		Description: "Whether every member must sign in with a TOTP code.",
	}, tagAccount, members.Viewer), a.totpRequirement)
	huma.Register(a.s.StudioAPI, a.op(huma.Operation{
		OperationID: "studio-set-totp-requirement",
		Method:      http.MethodPut,
		Path:        "/studio/v1/totp-requirement",
		Summary:     "Require TOTP of every member",
		Description: "With `required` true, every member signs in with a TOTP code; one without TOTP is signed in only to set it up (everything else answers 403 TOTP_SETUP_REQUIRED).",
		Errors:      []int{http.StatusBadRequest},
	}, tagAccount, members.Owner), a.setTOTPRequirement)
}

func (a *api) signIn(ctx context.Context, in *signInInput) (*sessionOutput, error) {
	s, err := a.members.SignIn(ctx, in.Body.Email, in.Body.Password, in.Body.OTP)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &sessionOutput{Body: SessionBody{Token: s.Token, ExpiresAt: s.ExpiresAt, Member: toMemberBody(s.Member)}}, nil
}

func (a *api) signOut(ctx context.Context, _ *struct{}) (*struct{}, error) {
	if err := a.members.SignOut(ctx, principal(ctx)); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) signOutEverywhere(ctx context.Context, _ *struct{}) (*struct{}, error) {
	if err := a.members.SignOutEverywhere(ctx, principal(ctx)); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) acceptInvite(ctx context.Context, in *acceptInput) (*memberOutput, error) {
	m, err := a.members.AcceptInvite(ctx, in.Token, in.Body.Name, in.Body.Password)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &memberOutput{Body: toMemberBody(m)}, nil
}

func (a *api) requestReset(ctx context.Context, in *resetRequestInput) (*struct{}, error) {
	if err := a.members.RequestReset(ctx, in.Body.Email); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) resetPassword(ctx context.Context, in *resetInput) (*struct{}, error) {
	if err := a.members.ResetPassword(ctx, in.Token, in.Body.Password); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) me(ctx context.Context, _ *struct{}) (*meOutput, error) {
	p := principal(ctx)
	b := MeBody{ID: p.Member.ID, StudioID: p.StudioID, Email: p.Member.Email, Name: p.Member.Name, Role: string(p.Role),
		TOTPEnabled: p.Member.TOTPEnabled, MustSetUpTOTP: p.MustSetUpTOTP}
	if p.TokenID != nil {
		name := p.TokenName
		b.TokenName = &name
	}
	return &meOutput{Body: b}, nil
}

// member refuses what only a signed-in member does for themselves to an access token.
func member(p members.Principal) error {
	if p.TokenID != nil {
		return members.ErrRoleForbidden.Withf("an access token cannot change a member's sign-in; sign in as the member")
	}
	return nil
}

func (a *api) beginTOTP(ctx context.Context, _ *struct{}) (*totpSetupOutput, error) {
	p := principal(ctx)
	if err := member(p); err != nil {
		return nil, fail(ctx, err)
	}
	s, err := a.members.BeginTOTP(ctx, p)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &totpSetupOutput{Body: TOTPSetupBody{Secret: s.Secret, URL: s.URL}}, nil
}

func (a *api) confirmTOTP(ctx context.Context, in *codeInput) (*struct{}, error) {
	p := principal(ctx)
	if err := member(p); err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.members.ConfirmTOTP(ctx, p, in.Body.Code); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) disableTOTP(ctx context.Context, in *codeInput) (*struct{}, error) {
	p := principal(ctx)
	if err := member(p); err != nil {
		return nil, fail(ctx, err)
	}
	if err := a.members.DisableTOTP(ctx, p, in.Body.Code); err != nil {
		return nil, fail(ctx, err)
	}
	return nil, nil
}

func (a *api) totpRequirement(ctx context.Context, _ *struct{}) (*requirementOutput, error) {
	p := principal(ctx)
	if err := p.Require(members.Viewer); err != nil {
		return nil, fail(ctx, err)
	}
	on, err := a.members.TOTPRequired(ctx, p.StudioID)
	if err != nil {
		return nil, fail(ctx, err)
	}
	return &requirementOutput{Body: TOTPRequirementBody{Required: on}}, nil
}

func (a *api) setTOTPRequirement(ctx context.Context, in *requirementInput) (*requirementOutput, error) {
	if err := a.members.RequireTOTP(ctx, principal(ctx), in.Body.Required); err != nil {
		return nil, fail(ctx, err)
	}
	return &requirementOutput{Body: in.Body}, nil
}
