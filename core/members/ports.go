package members

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Account is a member with what proves who they are. It never leaves the module.
type Account struct {
	Member
	// PasswordHash is the argon2id hash in PHC form; "" until the invitation is accepted.
	PasswordHash string
	// TOTPSecret is the confirmed TOTP secret (sealed when the service has a sealed.Box); nil
	// when TOTP is off. TOTPPending is a secret awaiting ConfirmTOTP.
	TOTPSecret  []byte
	TOTPPending []byte
}

// LinkPurpose says what an emailed link does.
type LinkPurpose string

// The purposes of links.
const (
	InviteLink LinkPurpose = "invite"
	ResetLink  LinkPurpose = "reset"
)

// Link is an invitation or password reset link, by the SHA-256 of its token.
type Link struct {
	Hash      []byte
	MemberID  uuid.UUID
	Purpose   LinkPurpose
	ExpiresAt time.Time
}

// SessionRecord is a stored session, by the SHA-256 of its token.
type SessionRecord struct {
	ID, MemberID uuid.UUID
	Hash         []byte
	CreatedAt    time.Time
	LastSeenAt   time.Time
	ExpiresAt    time.Time
}

// TokenRecord is an access token as stored: its SHA-256, never the token.
type TokenRecord struct {
	AccessToken
	Hash []byte
}

// Repo is the storage the members module needs. Emails are stored in lower case; lookups by
// email compare case-insensitively. Deleting a member deletes its sessions, links and access
// tokens.
type Repo interface {
	// InsertMember stores m and fills its ID and CreatedAt. ErrMemberExists when the studio
	// has a member with the email.
	InsertMember(ctx context.Context, m Member) (Member, error)
	// GetAccount returns ErrMemberNotFound when no member has the id.
	GetAccount(ctx context.Context, id uuid.UUID) (Account, error)
	// AccountsByEmail returns the members of every studio with the email, oldest first.
	AccountsByEmail(ctx context.Context, email string) ([]Account, error)
	// ListMembers returns the studio's members, oldest first.
	ListMembers(ctx context.Context, studioID uuid.UUID) ([]Member, error)
	// LockMembers returns the studio's members, oldest first, and holds their row locks until
	// the transaction ends, so that changes to owners run one at a time.
	LockMembers(ctx context.Context, studioID uuid.UUID) ([]Member, error)
	// ActivateMember sets the name and password hash, and the status ACTIVE.
	ActivateMember(ctx context.Context, id uuid.UUID, name, passwordHash string) (Member, error)
	// SetRole changes the member's role.
	SetRole(ctx context.Context, id uuid.UUID, role Role) (Member, error)
	// SetPassword replaces the member's password hash.
	SetPassword(ctx context.Context, id uuid.UUID, passwordHash string) error
	// SetTOTP replaces the member's confirmed and pending TOTP secrets (nil: none).
	SetTOTP(ctx context.Context, id uuid.UUID, secret, pending []byte) error
	// DeleteMember deletes the member with its sessions, links and tokens; ErrMemberNotFound
	// when there is none.
	DeleteMember(ctx context.Context, id uuid.UUID) error

	// InsertLink stores a link.
	InsertLink(ctx context.Context, l Link) error
	// UseLink marks the unused link with the hash and purpose used, when it expires after now,
	// and returns its member: ErrLinkInvalid otherwise. Of two concurrent uses, one wins.
	UseLink(ctx context.Context, hash []byte, purpose LinkPurpose, now time.Time) (uuid.UUID, error)

	// InsertSession stores a session.
	InsertSession(ctx context.Context, s SessionRecord) error
	// FindSession returns ErrUnauthenticated when no session has the hash.
	FindSession(ctx context.Context, hash []byte) (SessionRecord, error)
	// TouchSession sets the session's last-seen time.
	TouchSession(ctx context.Context, id uuid.UUID, at time.Time) error
	// DeleteSession ends one session; ending a missing one is not an error.
	DeleteSession(ctx context.Context, id uuid.UUID) error
	// DeleteSessions ends every session of the member.
	DeleteSessions(ctx context.Context, memberID uuid.UUID) error

	// InsertToken stores an access token.
	InsertToken(ctx context.Context, t TokenRecord) error
	// FindToken returns ErrUnauthenticated when no token has the hash.
	FindToken(ctx context.Context, hash []byte) (AccessToken, error)
	// GetToken returns ErrTokenNotFound when no token has the id.
	GetToken(ctx context.Context, id uuid.UUID) (AccessToken, error)
	// ListTokens returns the studio's tokens, oldest first.
	ListTokens(ctx context.Context, studioID uuid.UUID) ([]AccessToken, error)
	// TouchToken sets the token's last-used time.
	TouchToken(ctx context.Context, id uuid.UUID, at time.Time) error
	// DeleteToken revokes a token; ErrTokenNotFound when there is none.
	DeleteToken(ctx context.Context, id uuid.UUID) error

	// LockSignIn makes sign-ins of the email (in lower case) run one at a time until the
	// transaction ends, so that concurrent failures are all counted.
	LockSignIn(ctx context.Context, email string) error
	// SignInFailures returns the times of the email's failed sign-ins at or after since, oldest
	// first.
	SignInFailures(ctx context.Context, email string, since time.Time) ([]time.Time, error)
	// AddSignInFailure records a failed sign-in of the email at at.
	AddSignInFailure(ctx context.Context, email string, at time.Time) error
	// ClearSignInFailures forgets the email's failed sign-ins.
	ClearSignInFailures(ctx context.Context, email string) error
	// PruneSignInFailures forgets the failed sign-ins (of every email) before before.
	PruneSignInFailures(ctx context.Context, before time.Time) error

	// TOTPRequired reports whether the studio requires TOTP of its members.
	TOTPRequired(ctx context.Context, studioID uuid.UUID) (bool, error)
	// SetTOTPRequired changes it.
	SetTOTPRequired(ctx context.Context, studioID uuid.UUID, on bool) error
}
