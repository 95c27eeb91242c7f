package members

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
)

// Config is what the service needs besides its storage.
type Config struct {
	// Mail sends invitations, reset links and notices to owners.
	Mail mail.Sender
	// PublicURL is the service's address as members reach it (no trailing slash); links are
	// made on it.
	PublicURL string
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// Issuer names the service in authenticator apps; "" is "Rewards".
	Issuer string
	// Box, when set, seals TOTP secrets at rest.
	Box *sealed.Box
	// Log records email that could not be sent; nil is slog.Default().
	Log *slog.Logger
}

// Service holds the members use cases.
type Service struct {
	runner store.Runner
	store  store.Of[Repo]
	log    *audit.Log
	cfg    Config
	// principals keeps what Authenticate found, by the SHA-256 of the bearer, for authcache.TTL.
	principals *authcache.Cache[string, cachedPrincipal]
}

// cachedPrincipal is a lookup of Authenticate.
type cachedPrincipal struct {
	p Principal
}

var errTodo = errors.New("members: not implemented yet")

// NewService returns a Service over the members storage; log writes the audit entries, in the
// transactions runner opens.
func NewService(runner store.Runner, st store.Of[Repo], log *audit.Log, cfg Config) *Service {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Issuer == "" {
		cfg.Issuer = "Rewards"
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Service{runner: runner, store: st, log: log, cfg: cfg,
		principals: authcache.New[string, cachedPrincipal](50_000)}
}

// Invite adds a member to the studio with the role, status INVITED, and emails them a link
// valid InviteTTL, once. by is the inviting principal (an OWNER of the studio), or nil for the
// operator. ErrMemberExists when the studio has a member with the email.
func (s *Service) Invite(ctx context.Context, studioID uuid.UUID, by *Principal, email string, role Role) (Invitation, error) {
	return Invitation{}, errTodo
}

// List returns the studio's members, oldest first.
func (s *Service) List(ctx context.Context, studioID uuid.UUID) ([]Member, error) {
	return nil, errTodo
}

// AcceptInvite sets the invited member's name and password and makes them ACTIVE. The link
// works once, within InviteTTL: ErrLinkInvalid otherwise.
func (s *Service) AcceptInvite(ctx context.Context, token, name, password string) (Member, error) {
	return Member{}, errTodo
}

// SignIn starts a session. Every refusal is ErrSignInFailed (unknown email, wrong password,
// missing or wrong TOTP code), in the same time; after MaxFailures failures of the email in
// FailureWindow, ErrTooManyAttempts with RetryAfter.
func (s *Service) SignIn(ctx context.Context, email, password, otp string) (Session, error) {
	return Session{}, errTodo
}

// Authenticate returns the principal of a session token (rss_…) or access token (rst_…);
// ErrUnauthenticated when it is unknown, expired, ended or revoked.
func (s *Service) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	return Principal{}, errTodo
}

// SignOut ends p's session (nothing for an access token).
func (s *Service) SignOut(ctx context.Context, p Principal) error { return errTodo }

// SignOutEverywhere ends every session of p's member.
func (s *Service) SignOutEverywhere(ctx context.Context, p Principal) error { return errTodo }

// ChangeRole changes a member's role (OWNER only); ErrLastOwner when it would demote the
// studio's last active owner.
func (s *Service) ChangeRole(ctx context.Context, p Principal, memberID uuid.UUID, role Role) (Member, error) {
	return Member{}, errTodo
}

// Remove removes a member from the studio (OWNER only), ending their sessions and revoking
// their tokens; ErrLastOwner for the studio's last active owner.
func (s *Service) Remove(ctx context.Context, p Principal, memberID uuid.UUID) error { return errTodo }

// RequestReset emails every active member with the email a password reset link valid
// ResetTTL, once. It answers the same whether or not the email is a member's.
func (s *Service) RequestReset(ctx context.Context, email string) error { return errTodo }

// ResetPassword sets a new password with a reset link and ends every session of the member.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error { return errTodo }

// BeginTOTP makes a new TOTP secret for p's member, to confirm with ConfirmTOTP.
func (s *Service) BeginTOTP(ctx context.Context, p Principal) (TOTPSetup, error) {
	return TOTPSetup{}, errTodo
}

// ConfirmTOTP turns TOTP on with a code of the secret BeginTOTP made; ErrTOTPInvalid when the
// code is wrong.
func (s *Service) ConfirmTOTP(ctx context.Context, p Principal, code string) error { return errTodo }

// DisableTOTP turns TOTP off, with a current code; ErrTOTPInvalid when the code is wrong.
func (s *Service) DisableTOTP(ctx context.Context, p Principal, code string) error { return errTodo }

// RequireTOTP makes TOTP required (or not) for every member of p's studio (OWNER only).
func (s *Service) RequireTOTP(ctx context.Context, p Principal, on bool) error { return errTodo }

// TOTPRequired reports whether the studio requires TOTP.
func (s *Service) TOTPRequired(ctx context.Context, studioID uuid.UUID) (bool, error) {
	return false, errTodo
}

// CreateToken makes an access token of p's studio with a role no higher than p's, valid for
// days (1 to 365). The secret is in the answer only.
func (s *Service) CreateToken(ctx context.Context, p Principal, name string, role Role, days int) (NewToken, error) {
	return NewToken{}, errTodo
}

// ListTokens returns the access tokens of p's studio, oldest first.
func (s *Service) ListTokens(ctx context.Context, p Principal) ([]AccessToken, error) {
	return nil, errTodo
}

// RevokeToken revokes an access token of p's studio.
func (s *Service) RevokeToken(ctx context.Context, p Principal, id uuid.UUID) error { return errTodo }

// NotifyOwners emails every active owner of the studio.
func (s *Service) NotifyOwners(ctx context.Context, studioID uuid.UUID, subject, text string) error {
	return errTodo
}
