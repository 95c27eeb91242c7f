package members

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
)

// The limits of the module.
const (
	// MaxFailures failed sign-ins of one email in FailureWindow make the next ones
	// ErrTooManyAttempts until the oldest of them leaves the window.
	MaxFailures   = 5
	FailureWindow = 15 * time.Minute
	// IdleTimeout ends a session not used for so long; SessionLifetime ends any session.
	IdleTimeout     = 12 * time.Hour
	SessionLifetime = 7 * 24 * time.Hour
	// InviteTTL and ResetTTL are how long an invitation and a reset link are valid.
	InviteTTL = 72 * time.Hour
	ResetTTL  = time.Hour
	// MinTokenDays and MaxTokenDays bound an access token's validity.
	MinTokenDays = 1
	MaxTokenDays = 365
	// touchEvery is how often a session's last-seen time (and a token's last-used time) is
	// written at most.
	touchEvery = time.Minute
	// maxCachedPrincipals bounds the Authenticate cache.
	maxCachedPrincipals = 50_000
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

// cachedPrincipal is a lookup of Authenticate made at at, valid until its session or token
// ends, and for no longer than touchEvery on the service's clock (so that a session in use has
// its last-seen time written).
type cachedPrincipal struct {
	p         Principal
	at, until time.Time
}

// NewService returns a Service over the members storage; log writes the audit entries, in the
// transactions runner opens (the runner of st and of the audit log's storage).
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
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	return &Service{runner: runner, store: st, log: log, cfg: cfg,
		principals: authcache.New[string, cachedPrincipal](maxCachedPrincipals)}
}

// now is the clock as PostgreSQL keeps it (microseconds, no monotonic reading), so that what
// the service returns equals what it reads back.
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// drop forgets the cached principals match selects, and every lookup in flight.
func (s *Service) drop(match func(Principal) bool) {
	s.principals.Drop(func(_ string, c cachedPrincipal) bool { return match(c.p) })
}

func (s *Service) dropMember(id uuid.UUID) {
	s.drop(func(p Principal) bool { return p.Member.ID == id })
}

// inTx runs fn with the members repository and the transaction, for the audit entry.
func (s *Service) inTx(ctx context.Context, fn func(r Repo, tx store.Tx) error) error {
	return s.runner.InTx(ctx, func(tx store.Tx) error { return fn(s.store.WithTx(tx), tx) })
}

// audited makes change in one transaction with e, the audit entry of p's action: both are
// kept, or neither.
func (s *Service) audited(ctx context.Context, p Principal, e audit.Entry, change func(ctx context.Context, r Repo) error) error {
	ctx = asPrincipal(ctx, p)
	return s.inTx(ctx, func(r Repo, tx store.Tx) error {
		if err := change(ctx, r); err != nil {
			return err
		}
		return s.log.Record(ctx, tx, e)
	})
}

// asPrincipal is ctx with p as the audit actor, unless the caller's adapter set one already
// (with the client's address).
func asPrincipal(ctx context.Context, p Principal) context.Context {
	if audit.ActorOf(ctx).Kind != audit.System {
		return ctx
	}
	return audit.WithActor(ctx, p.Actor("", ""))
}

// asMember is ctx with m as the audit actor, keeping the client's address and user agent: for
// what a member does before being signed in (accepting an invitation, resetting a password).
func asMember(ctx context.Context, m Member) context.Context {
	a := audit.ActorOf(ctx)
	id := m.ID
	return audit.WithActor(ctx, audit.Actor{Kind: audit.Member, ID: &id, MemberID: &id, Name: m.Email, IP: a.IP, UserAgent: a.UserAgent})
}

// normalEmail is the form emails are stored and compared in.
func normalEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// validEmail checks an email to invite: a bare address, no display name.
func validEmail(email string) error {
	a, err := netmail.ParseAddress(email)
	if err != nil || a.Address != email || len(email) > 254 {
		return errs.Invalidf("email must be an email address such as dev@studio.example")
	}
	return nil
}

// Invite adds a member to the studio with the role, status INVITED, and emails them a link
// valid InviteTTL, once. by is the inviting principal (an OWNER of the studio), or nil for the
// operator. ErrMemberExists when the studio has a member with the email. When the email cannot
// be sent, the invitation stands (its URL is in the answer) and the failure is logged.
func (s *Service) Invite(ctx context.Context, studioID uuid.UUID, by *Principal, email string, role Role) (Invitation, error) {
	if by != nil {
		if err := by.Require(Owner); err != nil {
			return Invitation{}, err
		}
		if by.StudioID != studioID {
			return Invitation{}, ErrRoleForbidden
		}
		ctx = asPrincipal(ctx, *by)
	}
	email = normalEmail(email)
	if err := validEmail(email); err != nil {
		return Invitation{}, err
	}
	if !role.Valid() {
		return Invitation{}, errs.Invalidf("role must be OWNER, DEVELOPER or VIEWER")
	}
	token, hash := newSecret("", linkChars)
	var m Member
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		var err error
		if m, err = r.InsertMember(ctx, Member{StudioID: studioID, Email: email, Role: role, Status: Invited}); err != nil {
			return err
		}
		if err := r.InsertLink(ctx, Link{Hash: hash, MemberID: m.ID, Purpose: InviteLink, ExpiresAt: s.now().Add(InviteTTL)}); err != nil {
			return fmt.Errorf("insert invitation: %w", err)
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: studioID, Action: "member.invite", TargetType: "member",
			TargetID: m.ID.String(), Details: map[string]string{"email": email, "role": string(role)}})
	})
	if err != nil {
		return Invitation{}, err
	}
	inv := Invitation{Member: m, URL: s.cfg.PublicURL + "/console/invite/" + token}
	s.send(ctx, mail.Message{To: email, Subject: "You are invited to a studio on " + s.cfg.Issuer,
		Text: "You are invited to join a studio as " + string(role) + ".\n\n" +
			"Accept the invitation and choose your password here (the link works once, for 72 hours):\n\n" +
			inv.URL + "\n"})
	return inv, nil
}

// send sends m, logging (without the text, which may hold a link) when it cannot.
func (s *Service) send(ctx context.Context, m mail.Message) {
	if s.cfg.Mail == nil {
		s.cfg.Log.WarnContext(ctx, "members: no mail sender configured; email not sent", "subject", m.Subject)
		return
	}
	if err := s.cfg.Mail.Send(ctx, m); err != nil {
		s.cfg.Log.ErrorContext(ctx, "members: email not sent", "subject", m.Subject, "error", err)
	}
}

// List returns the studio's members, oldest first.
func (s *Service) List(ctx context.Context, studioID uuid.UUID) ([]Member, error) {
	return s.store.Repo().ListMembers(ctx, studioID)
}

// AcceptInvite sets the invited member's name and password and makes them ACTIVE. The link
// works once, within InviteTTL: ErrLinkInvalid otherwise.
func (s *Service) AcceptInvite(ctx context.Context, token, name, password string) (Member, error) {
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 100 {
		return Member{}, errs.Invalidf("name must be 1 to 100 characters")
	}
	if err := validPassword(password); err != nil {
		return Member{}, err
	}
	if !wellFormed(token, "", linkChars) {
		return Member{}, ErrLinkInvalid
	}
	phc := hashPassword(password)
	var m Member
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		id, err := r.UseLink(ctx, hashSecret(token), InviteLink, s.now())
		if err != nil {
			return err
		}
		if m, err = r.ActivateMember(ctx, id, name, phc); err != nil {
			return err
		}
		return s.log.Record(asMember(ctx, m), tx, audit.Entry{StudioID: m.StudioID, Action: "member.accept",
			TargetType: "member", TargetID: m.ID.String(), Details: map[string]string{"email": m.Email}})
	})
	if errors.Is(err, ErrMemberNotFound) {
		return Member{}, ErrLinkInvalid
	}
	return m, err
}

// SignIn starts a session. Every refusal is ErrSignInFailed (unknown email, wrong password,
// missing or wrong TOTP code), in the same time: an unknown email's password is checked
// against a dummy hash. After MaxFailures failures of the email in FailureWindow, sign-ins of
// it are ErrTooManyAttempts, with RetryAfter, until the oldest failure leaves the window.
//
// One email may be a member of several studios: the session is the oldest active membership
// whose password matches.
func (s *Service) SignIn(ctx context.Context, email, password, code string) (Session, error) {
	email = normalEmail(email)
	now := s.now()
	// Each attempt is counted as a failure before the password is checked, under a lock of the
	// email, so that concurrent guesses cannot all slip under the limit; a success forgets the
	// email's failures.
	var retry time.Duration
	err := s.store.InTx(ctx, func(r Repo) error {
		if err := r.LockSignIn(ctx, email); err != nil {
			return err
		}
		// A failure counts while it is less than FailureWindow old (a microsecond is the
		// storage's resolution).
		fails, err := r.SignInFailures(ctx, email, now.Add(-FailureWindow+time.Microsecond))
		if err != nil {
			return err
		}
		if len(fails) >= MaxFailures {
			retry = fails[len(fails)-MaxFailures].Add(FailureWindow).Sub(now)
			return ErrTooManyAttempts
		}
		if err := r.PruneSignInFailures(ctx, now.Add(-FailureWindow)); err != nil {
			return err
		}
		return r.AddSignInFailure(ctx, email, now)
	})
	if errors.Is(err, ErrTooManyAttempts) {
		return Session{}, ErrTooManyAttempts.WithRetryAfter(max(retry, time.Second))
	}
	if err != nil {
		return Session{}, fmt.Errorf("count sign-in failures: %w", err)
	}
	accounts, err := s.store.Repo().AccountsByEmail(ctx, email)
	if err != nil {
		return Session{}, err
	}
	var found *Account
	checked := 0
	for i := range accounts {
		if a := &accounts[i]; a.Status == Active && a.PasswordHash != "" {
			checked++
			if verifyPassword(password, a.PasswordHash) {
				found = a
				break
			}
		}
	}
	if checked == 0 {
		verifyPassword(password, dummyHash())
	}
	if found == nil {
		return Session{}, ErrSignInFailed
	}
	if found.TOTPSecret != nil {
		secret, err := s.open(found.TOTPSecret)
		if err != nil {
			return Session{}, err
		}
		if !validCode(code, secret, now) {
			return Session{}, ErrSignInFailed
		}
	}
	token, hash := newSecret(sessionPrefix, sessionChars)
	rec := SessionRecord{ID: uuid.New(), MemberID: found.ID, Hash: hash, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(SessionLifetime)}
	err = s.store.InTx(ctx, func(r Repo) error {
		if err := r.ClearSignInFailures(ctx, email); err != nil {
			return err
		}
		return r.InsertSession(ctx, rec)
	})
	if err != nil {
		return Session{}, fmt.Errorf("start session: %w", err)
	}
	return Session{Token: token, ExpiresAt: rec.ExpiresAt, Member: found.Member}, nil
}

// Authenticate returns the principal of a session token (rss_…) or access token (rst_…);
// ErrUnauthenticated when it is unknown, expired, idle for IdleTimeout, ended or revoked. A
// token's role is never above its maker's current role.
func (s *Service) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	isSession := wellFormed(bearer, sessionPrefix, sessionChars)
	if !isSession && !wellFormed(bearer, tokenPrefix, tokenChars) {
		return Principal{}, ErrUnauthenticated
	}
	hash := hashSecret(bearer)
	now := s.now()
	if c, ok := s.principals.Get(string(hash)); ok {
		if now.Before(c.until) && now.Sub(c.at) < touchEvery {
			return c.p, nil
		}
	}
	gen := s.principals.Generation()
	var c cachedPrincipal
	var err error
	if isSession {
		c, err = s.sessionPrincipal(ctx, hash, now)
	} else {
		c, err = s.tokenPrincipal(ctx, hash, now)
	}
	if err != nil {
		return Principal{}, err
	}
	c.at = now
	s.principals.Put(string(hash), c, gen)
	return c.p, nil
}

func (s *Service) sessionPrincipal(ctx context.Context, hash []byte, now time.Time) (cachedPrincipal, error) {
	r := s.store.Repo()
	rec, err := r.FindSession(ctx, hash)
	if err != nil {
		return cachedPrincipal{}, err
	}
	if !now.Before(rec.ExpiresAt) || !now.Before(rec.LastSeenAt.Add(IdleTimeout)) {
		if err := r.DeleteSession(ctx, rec.ID); err != nil {
			return cachedPrincipal{}, err
		}
		return cachedPrincipal{}, ErrUnauthenticated
	}
	acc, err := signedInAccount(ctx, r, rec.MemberID)
	if err != nil {
		return cachedPrincipal{}, err
	}
	required, err := r.TOTPRequired(ctx, acc.StudioID)
	if err != nil {
		return cachedPrincipal{}, err
	}
	if now.Sub(rec.LastSeenAt) >= touchEvery {
		if err := r.TouchSession(ctx, rec.ID, now); err != nil {
			return cachedPrincipal{}, err
		}
	}
	id := rec.ID
	// A cached session is good until it would end by either timeout.
	until := rec.LastSeenAt.Add(IdleTimeout)
	if rec.ExpiresAt.Before(until) {
		until = rec.ExpiresAt
	}
	return cachedPrincipal{until: until, p: Principal{StudioID: acc.StudioID, Member: acc.Member, Role: acc.Role,
		SessionID: &id, MustSetUpTOTP: required && !acc.TOTPEnabled}}, nil
}

// signedInAccount is the account of a session's or token's member: ErrUnauthenticated when the
// member is gone.
func signedInAccount(ctx context.Context, r Repo, memberID uuid.UUID) (Account, error) {
	acc, err := r.GetAccount(ctx, memberID)
	if errors.Is(err, ErrMemberNotFound) {
		return Account{}, ErrUnauthenticated
	}
	return acc, err
}

func (s *Service) tokenPrincipal(ctx context.Context, hash []byte, now time.Time) (cachedPrincipal, error) {
	r := s.store.Repo()
	t, err := r.FindToken(ctx, hash)
	if err != nil {
		return cachedPrincipal{}, err
	}
	if !now.Before(t.ExpiresAt) {
		return cachedPrincipal{}, ErrUnauthenticated
	}
	acc, err := signedInAccount(ctx, r, t.MemberID)
	if err != nil {
		return cachedPrincipal{}, err
	}
	role := t.Role
	if !acc.Role.AtLeast(role) {
		role = acc.Role
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= touchEvery {
		if err := r.TouchToken(ctx, t.ID, now); err != nil {
			return cachedPrincipal{}, err
		}
	}
	id := t.ID
	return cachedPrincipal{until: t.ExpiresAt, p: Principal{StudioID: t.StudioID, Member: acc.Member, Role: role,
		TokenID: &id, TokenName: t.Name}}, nil
}

// SignOut ends p's session (nothing for an access token).
func (s *Service) SignOut(ctx context.Context, p Principal) error {
	if p.SessionID == nil {
		return nil
	}
	id := *p.SessionID
	err := s.store.Repo().DeleteSession(ctx, id)
	s.drop(func(c Principal) bool { return c.SessionID != nil && *c.SessionID == id })
	return err
}

// SignOutEverywhere ends every session of p's member.
func (s *Service) SignOutEverywhere(ctx context.Context, p Principal) error {
	err := s.audited(ctx, p, audit.Entry{StudioID: p.StudioID, Action: "session.end_all", TargetType: "member",
		TargetID: p.Member.ID.String()}, func(ctx context.Context, r Repo) error { return r.DeleteSessions(ctx, p.Member.ID) })
	s.dropMember(p.Member.ID)
	return err
}

// lockTarget locks the studio's members and returns them with the one that has id:
// ErrMemberNotFound when it is not the studio's.
func lockTarget(ctx context.Context, r Repo, studioID, id uuid.UUID) ([]Member, Member, error) {
	ms, err := r.LockMembers(ctx, studioID)
	if err != nil {
		return nil, Member{}, err
	}
	for _, m := range ms {
		if m.ID == id {
			return ms, m, nil
		}
	}
	return nil, Member{}, ErrMemberNotFound
}

// lastOwner reports whether m is the only active owner among ms.
func lastOwner(ms []Member, m Member) bool {
	if m.Role != Owner || m.Status != Active {
		return false
	}
	for _, o := range ms {
		if o.ID != m.ID && o.Role == Owner && o.Status == Active {
			return false
		}
	}
	return true
}

// ChangeRole changes a member's role (OWNER only); ErrLastOwner when it would demote the
// studio's last active owner.
func (s *Service) ChangeRole(ctx context.Context, p Principal, memberID uuid.UUID, role Role) (Member, error) {
	if err := p.Require(Owner); err != nil {
		return Member{}, err
	}
	if !role.Valid() {
		return Member{}, errs.Invalidf("role must be OWNER, DEVELOPER or VIEWER")
	}
	ctx = asPrincipal(ctx, p)
	var out Member
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		ms, m, err := lockTarget(ctx, r, p.StudioID, memberID)
		if err != nil {
			return err
		}
		if role != Owner && lastOwner(ms, m) {
			return ErrLastOwner
		}
		if out, err = r.SetRole(ctx, memberID, role); err != nil {
			return err
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: p.StudioID, Action: "member.role_change", TargetType: "member",
			TargetID: memberID.String(), Details: map[string]string{"email": m.Email, "from": string(m.Role), "to": string(role)}})
	})
	if err != nil {
		return Member{}, err
	}
	s.dropMember(memberID)
	return out, nil
}

// Remove removes a member from the studio (OWNER only), ending their sessions and revoking
// their tokens; ErrLastOwner for the studio's last active owner.
func (s *Service) Remove(ctx context.Context, p Principal, memberID uuid.UUID) error {
	if err := p.Require(Owner); err != nil {
		return err
	}
	ctx = asPrincipal(ctx, p)
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		ms, m, err := lockTarget(ctx, r, p.StudioID, memberID)
		if err != nil {
			return err
		}
		if lastOwner(ms, m) {
			return ErrLastOwner
		}
		if err := r.DeleteMember(ctx, memberID); err != nil {
			return err
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: p.StudioID, Action: "member.remove", TargetType: "member",
			TargetID: memberID.String(), Details: map[string]string{"email": m.Email, "role": string(m.Role)}})
	})
	if err != nil {
		return err
	}
	s.dropMember(memberID)
	return nil
}

// RequestReset emails every active member with the email a password reset link valid
// ResetTTL, once. It answers the same whether or not the email is a member's.
func (s *Service) RequestReset(ctx context.Context, email string) error {
	email = normalEmail(email)
	accounts, err := s.store.Repo().AccountsByEmail(ctx, email)
	if err != nil {
		return err
	}
	for _, a := range accounts {
		if a.Status != Active {
			continue
		}
		token, hash := newSecret("", linkChars)
		l := Link{Hash: hash, MemberID: a.ID, Purpose: ResetLink, ExpiresAt: s.now().Add(ResetTTL)}
		if err := s.store.Repo().InsertLink(ctx, l); err != nil {
			return fmt.Errorf("insert reset link: %w", err)
		}
		s.send(ctx, mail.Message{To: a.Email, Subject: "Reset your " + s.cfg.Issuer + " password",
			Text: "Someone asked to reset the password of " + a.Email + ".\n\n" +
				"Choose a new password here (the link works once, for an hour; it signs you out everywhere):\n\n" +
				s.cfg.PublicURL + "/console/reset/" + token + "\n\nIf it was not you, ignore this email.\n"})
	}
	return nil
}

// ResetPassword sets a new password with a reset link and ends every session of the member.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error {
	if err := validPassword(password); err != nil {
		return err
	}
	if !wellFormed(token, "", linkChars) {
		return ErrLinkInvalid
	}
	phc := hashPassword(password)
	var memberID uuid.UUID
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		id, err := r.UseLink(ctx, hashSecret(token), ResetLink, s.now())
		if err != nil {
			return err
		}
		acc, err := r.GetAccount(ctx, id)
		if err != nil {
			return err
		}
		memberID = id
		if err := r.SetPassword(ctx, id, phc); err != nil {
			return err
		}
		if err := r.DeleteSessions(ctx, id); err != nil {
			return err
		}
		if err := r.ClearSignInFailures(ctx, acc.Email); err != nil {
			return err
		}
		return s.log.Record(asMember(ctx, acc.Member), tx, audit.Entry{StudioID: acc.StudioID, Action: "member.password_reset",
			TargetType: "member", TargetID: id.String(), Details: map[string]string{"email": acc.Email}})
	})
	if errors.Is(err, ErrMemberNotFound) {
		return ErrLinkInvalid
	}
	if err != nil {
		return err
	}
	s.dropMember(memberID)
	return nil
}

// totpOpts are the codes authenticator apps make: 6 digits of SHA-1 every 30 s; one step of
// clock skew either way is accepted.
var totpOpts = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// validCode reports whether code is a current code of secret.
func validCode(code, secret string, now time.Time) bool {
	code = strings.TrimSpace(code)
	if len(code) != 6 {
		return false
	}
	if _, err := strconv.Atoi(code); err != nil {
		return false
	}
	ok, err := totp.ValidateCustom(code, secret, now, totpOpts)
	return err == nil && ok
}

// seal and open keep TOTP secrets at rest, sealed when the service has a Box.
func (s *Service) seal(secret string) []byte {
	if s.cfg.Box == nil {
		return []byte(secret)
	}
	return s.cfg.Box.Seal(secret)
}

func (s *Service) open(stored []byte) (string, error) {
	if s.cfg.Box == nil {
		return string(stored), nil
	}
	return s.cfg.Box.Open(stored)
}

// self returns the account of a signed-in member (not an access token: TOTP is a person's).
func (s *Service) self(ctx context.Context, p Principal) (Account, error) {
	if p.TokenID != nil {
		return Account{}, ErrRoleForbidden.Withf("TOTP is set up by a signed-in member, not an access token")
	}
	return s.store.Repo().GetAccount(ctx, p.Member.ID)
}

// BeginTOTP makes a new TOTP secret for p's member, to confirm with ConfirmTOTP. It may be
// called while the member must set up TOTP; not with TOTP already on.
func (s *Service) BeginTOTP(ctx context.Context, p Principal) (TOTPSetup, error) {
	acc, err := s.self(ctx, p)
	if err != nil {
		return TOTPSetup{}, err
	}
	if acc.TOTPSecret != nil {
		return TOTPSetup{}, errs.Invalidf("TOTP is on already: turn it off before setting up another")
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: s.cfg.Issuer, AccountName: acc.Email, Period: 30,
		Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return TOTPSetup{}, fmt.Errorf("generate TOTP secret: %w", err)
	}
	if err := s.store.Repo().SetTOTP(ctx, acc.ID, nil, s.seal(key.Secret())); err != nil {
		return TOTPSetup{}, err
	}
	return TOTPSetup{Secret: key.Secret(), URL: key.URL()}, nil
}

// ConfirmTOTP turns TOTP on with a code of the secret BeginTOTP made; ErrTOTPInvalid when the
// code is wrong.
func (s *Service) ConfirmTOTP(ctx context.Context, p Principal, code string) error {
	acc, err := s.self(ctx, p)
	if err != nil {
		return err
	}
	if acc.TOTPPending == nil {
		return ErrTOTPInvalid.Withf("begin the TOTP setup first")
	}
	return s.switchTOTP(ctx, p, acc, acc.TOTPPending, code, acc.TOTPPending, "totp.enable")
}

// DisableTOTP turns TOTP off, with a current code; ErrTOTPInvalid when the code is wrong. A
// member of a studio that requires TOTP cannot turn it off.
func (s *Service) DisableTOTP(ctx context.Context, p Principal, code string) error {
	acc, err := s.self(ctx, p)
	if err != nil {
		return err
	}
	if acc.TOTPSecret == nil {
		return errs.Invalidf("TOTP is off already")
	}
	required, err := s.store.Repo().TOTPRequired(ctx, acc.StudioID)
	if err != nil {
		return err
	}
	if required {
		return errs.Invalidf("the studio requires TOTP: it cannot be turned off")
	}
	return s.switchTOTP(ctx, p, acc, acc.TOTPSecret, code, nil, "totp.disable")
}

// switchTOTP sets acc's TOTP secret to secret (nil: off) and clears the pending one, once code
// is a current code of the sealed secret checked: ErrTOTPInvalid when it is not. action names
// the change in the audit log.
func (s *Service) switchTOTP(ctx context.Context, p Principal, acc Account, checked []byte, code string, secret []byte, action string) error {
	key, err := s.open(checked)
	if err != nil {
		return err
	}
	if !validCode(code, key, s.now()) {
		return ErrTOTPInvalid
	}
	err = s.audited(ctx, p, audit.Entry{StudioID: acc.StudioID, Action: action, TargetType: "member", TargetID: acc.ID.String()},
		func(ctx context.Context, r Repo) error { return r.SetTOTP(ctx, acc.ID, secret, nil) })
	s.dropMember(acc.ID)
	return err
}

// RequireTOTP makes TOTP required (or not) for every member of p's studio (OWNER only). A
// member without TOTP is then signed in only to set it up (Principal.MustSetUpTOTP).
func (s *Service) RequireTOTP(ctx context.Context, p Principal, on bool) error {
	if err := p.Require(Owner); err != nil {
		return err
	}
	err := s.audited(ctx, p, audit.Entry{StudioID: p.StudioID, Action: "studio.require_totp", TargetType: "studio",
		TargetID: p.StudioID.String(), Details: map[string]string{"required": strconv.FormatBool(on)}},
		func(ctx context.Context, r Repo) error { return r.SetTOTPRequired(ctx, p.StudioID, on) })
	s.drop(func(c Principal) bool { return c.StudioID == p.StudioID })
	return err
}

// TOTPRequired reports whether the studio requires TOTP.
func (s *Service) TOTPRequired(ctx context.Context, studioID uuid.UUID) (bool, error) {
	return s.store.Repo().TOTPRequired(ctx, studioID)
}

// CreateToken makes an access token of p's studio with a role no higher than p's (so a
// DEVELOPER cannot make an OWNER token), valid for days (MinTokenDays to MaxTokenDays). The
// secret is in the answer only.
func (s *Service) CreateToken(ctx context.Context, p Principal, name string, role Role, days int) (NewToken, error) {
	if err := p.Require(Developer); err != nil {
		return NewToken{}, err
	}
	name = strings.TrimSpace(name)
	if name == "" || len([]rune(name)) > 100 {
		return NewToken{}, errs.Invalidf("name must be 1 to 100 characters")
	}
	if !role.Valid() {
		return NewToken{}, errs.Invalidf("role must be OWNER, DEVELOPER or VIEWER")
	}
	if !p.Role.AtLeast(role) {
		return NewToken{}, ErrRoleForbidden.Withf("a token's role cannot be above yours (%s)", p.Role)
	}
	if days < MinTokenDays || days > MaxTokenDays {
		return NewToken{}, errs.Invalidf("days must be %d to %d", MinTokenDays, MaxTokenDays)
	}
	now := s.now()
	secret, hash := newSecret(tokenPrefix, tokenChars)
	t := AccessToken{ID: uuid.New(), StudioID: p.StudioID, MemberID: p.Member.ID, Name: name, Role: role,
		CreatedAt: now, ExpiresAt: now.Add(time.Duration(days) * 24 * time.Hour)}
	err := s.audited(ctx, p, audit.Entry{StudioID: p.StudioID, Action: "token.create", TargetType: "access_token",
		TargetID: t.ID.String(), Details: map[string]string{"name": name, "role": string(role), "expiresAt": t.ExpiresAt.Format(time.RFC3339)}},
		func(ctx context.Context, r Repo) error {
			if err := r.InsertToken(ctx, TokenRecord{AccessToken: t, Hash: hash}); err != nil {
				return fmt.Errorf("insert access token: %w", err)
			}
			return nil
		})
	if err != nil {
		return NewToken{}, err
	}
	return NewToken{AccessToken: t, Secret: secret}, nil
}

// ListTokens returns the access tokens of p's studio, oldest first.
func (s *Service) ListTokens(ctx context.Context, p Principal) ([]AccessToken, error) {
	if err := p.Require(Viewer); err != nil {
		return nil, err
	}
	return s.store.Repo().ListTokens(ctx, p.StudioID)
}

// RevokeToken revokes an access token of p's studio (DEVELOPER; an OWNER token: OWNER). It
// stops working at once on this instance, within authcache.TTL on others.
func (s *Service) RevokeToken(ctx context.Context, p Principal, id uuid.UUID) error {
	if err := p.Require(Developer); err != nil {
		return err
	}
	ctx = asPrincipal(ctx, p)
	err := s.inTx(ctx, func(r Repo, tx store.Tx) error {
		t, err := r.GetToken(ctx, id)
		if err != nil {
			return err
		}
		if t.StudioID != p.StudioID {
			return ErrTokenNotFound
		}
		if !p.Role.AtLeast(t.Role) {
			return ErrRoleForbidden.Withf("only an owner may revoke an OWNER token")
		}
		if err := r.DeleteToken(ctx, id); err != nil {
			return err
		}
		return s.log.Record(ctx, tx, audit.Entry{StudioID: p.StudioID, Action: "token.revoke", TargetType: "access_token",
			TargetID: id.String(), Details: map[string]string{"name": t.Name, "role": string(t.Role)}})
	})
	if err != nil {
		return err
	}
	s.drop(func(c Principal) bool { return c.TokenID != nil && *c.TokenID == id })
	return nil
}

// NotifyOwners emails every active owner of the studio. It returns the errors of the emails
// that could not be sent.
func (s *Service) NotifyOwners(ctx context.Context, studioID uuid.UUID, subject, text string) error {
	ms, err := s.store.Repo().ListMembers(ctx, studioID)
	if err != nil {
		return err
	}
	if s.cfg.Mail == nil {
		return errors.New("members: no mail sender configured")
	}
	var failed []error
	for _, m := range ms {
		if m.Role == Owner && m.Status == Active {
			if err := s.cfg.Mail.Send(ctx, mail.Message{To: m.Email, Subject: subject, Text: text}); err != nil {
				failed = append(failed, fmt.Errorf("email %s: %w", m.ID, err))
			}
		}
	}
	return errors.Join(failed...)
}
