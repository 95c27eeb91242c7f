// Package members owns the people of a studio and how they prove who they are: members with
// roles (OWNER, DEVELOPER, VIEWER), invited by the operator and then by owners; their passwords
// (argon2id), sign-in throttling and optional TOTP second factor; their sessions; and the
// studio access tokens (rst_…) they make for automation. Authenticate turns a session token or
// an access token into a Principal, which the console and the studio API check roles on.
//
// Secrets are kept as hashes: passwords with argon2id, session tokens, access tokens and the
// tokens of invitation and reset links with SHA-256 (they carry over 230 random bits, so there
// is nothing to brute-force). A secret is shown once, when it is made, and never logged or
// audited.
//
// Caches: Authenticate keeps what it looked up for authcache.TTL (1 s), by the token's hash.
// Sign-out, sign-out everywhere, a password reset, a role change, TOTP changes, a member's
// removal and a token's revocation drop the entries they affect on this instance at once;
// other instances see the change once their entries expire.
package members

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
)

// Role is what a member (or an access token) may do in its studio.
type Role string

// The roles, from the most to the least powerful.
const (
	// Owner may do everything, members and OWNER tokens included.
	Owner Role = "OWNER"
	// Developer may do everything but manage members and OWNER tokens.
	Developer Role = "DEVELOPER"
	// Viewer reads only.
	Viewer Role = "VIEWER"
)

func (r Role) rank() int {
	switch r {
	case Owner:
		return 3
	case Developer:
		return 2
	case Viewer:
		return 1
	}
	return 0
}

// Valid reports whether r is one of the three roles.
func (r Role) Valid() bool { return r.rank() > 0 }

// AtLeast reports whether r may do whatever o may: OWNER ≥ DEVELOPER ≥ VIEWER. An invalid role
// is at least nothing.
func (r Role) AtLeast(o Role) bool { return r.Valid() && r.rank() >= o.rank() }

// Status is where a member is in joining the studio.
type Status string

// The statuses of a member.
const (
	// Invited members have an invitation link and no password yet; they cannot sign in.
	Invited Status = "INVITED"
	// Active members accepted their invitation and may sign in.
	Active Status = "ACTIVE"
)

// Member is a person in a studio. Email is kept in lower case and is unique in the studio.
type Member struct {
	ID          uuid.UUID
	StudioID    uuid.UUID
	Email       string
	Name        string
	Role        Role
	Status      Status
	TOTPEnabled bool
	CreatedAt   time.Time
}

// AccessToken is a studio access token, without its secret.
type AccessToken struct {
	ID, StudioID uuid.UUID
	// MemberID is the token's maker; the token dies with the maker's membership.
	MemberID   uuid.UUID
	Name       string
	Role       Role
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt *time.Time
}

// NewToken is a token just made, with its secret (rst_ and 40 base62 characters): the only
// time the secret is shown.
type NewToken struct {
	AccessToken
	Secret string
}

// Session is a signed-in member: Token is the bearer secret (rss_…), shown only here.
// ExpiresAt is the absolute end; an idle session ends earlier (IdleTimeout).
type Session struct {
	Token     string
	ExpiresAt time.Time
	Member    Member
}

// Invitation is an invited member and the link that accepts the invitation
// (PublicURL + "/console/invite/" + token), shown to whoever invited and emailed to the member.
type Invitation struct {
	Member Member
	URL    string
}

// TOTPSetup is a new TOTP secret awaiting ConfirmTOTP: Secret (base32) to type in, URL
// (otpauth://…) to show as a QR code.
type TOTPSetup struct {
	Secret, URL string
}

// Principal is an authenticated member (by a session) or access token.
type Principal struct {
	StudioID uuid.UUID
	// Member is the signed-in member, or the token's maker.
	Member Member
	// Role is the effective role: the member's, or the token's own (never above its maker's
	// current role).
	Role Role
	// SessionID is set for a session.
	SessionID *uuid.UUID
	// TokenID and TokenName are set for an access token.
	TokenID   *uuid.UUID
	TokenName string
	// MustSetUpTOTP says the studio requires TOTP and the member has none: only reading the
	// member, setting up TOTP and signing out are allowed until they do.
	MustSetUpTOTP bool
}

// Require returns nil when p may do what needs role need: ErrTOTPSetupRequired while the
// member must set up TOTP, ErrRoleForbidden when p's role is below need.
func (p Principal) Require(need Role) error {
	if p.MustSetUpTOTP {
		return ErrTOTPSetupRequired
	}
	if !p.Role.AtLeast(need) {
		return ErrRoleForbidden
	}
	return nil
}

// Actor is p as the audit log records it, with the client's address and user agent.
func (p Principal) Actor(ip, userAgent string) audit.Actor {
	memberID := p.Member.ID
	if p.TokenID != nil {
		tokenID := *p.TokenID
		return audit.Actor{Kind: audit.Token, ID: &tokenID, MemberID: &memberID, Name: p.TokenName, IP: ip, UserAgent: userAgent}
	}
	return audit.Actor{Kind: audit.Member, ID: &memberID, MemberID: &memberID, Name: p.Member.Email, IP: ip, UserAgent: userAgent}
}
