package postgres

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
)

// MembersRepo is the storage of the members module.
type MembersRepo struct{ conn }

func toCoreAccount(r db.StudioMember) members.Account {
	return members.Account{Member: toCoreMember(r), PasswordHash: r.PasswordHash, TOTPSecret: r.TotpSecret, TOTPPending: r.TotpPending}
}

func toCoreMember(r db.StudioMember) members.Member {
	return members.Member{ID: r.ID, StudioID: r.StudioID, Email: r.Email, Name: r.Name, Role: members.Role(r.Role),
		Status: members.Status(r.Status), TOTPEnabled: r.TotpSecret != nil, CreatedAt: r.CreatedAt.UTC()}
}

func toCoreAccessToken(r db.StudioAccessToken) members.AccessToken {
	t := members.AccessToken{ID: r.ID, StudioID: r.StudioID, MemberID: r.MemberID, Name: r.Name, Role: members.Role(r.Role),
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}
	if r.LastUsedAt != nil {
		at := r.LastUsedAt.UTC()
		t.LastUsedAt = &at
	}
	return t
}

func toCoreSession(r db.MemberSession) members.SessionRecord {
	return members.SessionRecord{ID: r.ID, MemberID: r.MemberID, Hash: r.TokenHash, CreatedAt: r.CreatedAt.UTC(),
		LastSeenAt: r.LastSeenAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}
}

// InsertMember implements members.Repo. The studio must exist: studio.ErrStudioNotFound
// otherwise.
func (r *MembersRepo) InsertMember(ctx context.Context, m members.Member) (members.Member, error) {
	row, err := r.q.MembersInsert(ctx, db.MembersInsertParams{StudioID: m.StudioID, Email: m.Email, Role: string(m.Role), Status: string(m.Status)})
	switch pgCode(err) {
	case "23505":
		return members.Member{}, members.ErrMemberExists
	case "23503":
		return members.Member{}, studio.ErrStudioNotFound
	}
	if err != nil {
		return members.Member{}, fmt.Errorf("insert member: %w", err)
	}
	return toCoreMember(row), nil
}

// GetAccount implements members.Repo.
func (r *MembersRepo) GetAccount(ctx context.Context, id uuid.UUID) (members.Account, error) {
	row, err := r.q.MembersGet(ctx, id)
	return toCoreOne(row, err, members.ErrMemberNotFound, toCoreAccount, "get member %s", id)
}

// AccountsByEmail implements members.Repo.
func (r *MembersRepo) AccountsByEmail(ctx context.Context, email string) ([]members.Account, error) {
	rows, err := r.q.MembersByEmail(ctx, email)
	return toCoreAll(rows, err, toCoreAccount, "find members by email")
}

// ListMembers implements members.Repo.
func (r *MembersRepo) ListMembers(ctx context.Context, studioID uuid.UUID) ([]members.Member, error) {
	rows, err := r.q.MembersList(ctx, studioID)
	return toCoreAll(rows, err, toCoreMember, "list members of studio %s", studioID)
}

// LockMembers implements members.Repo: the rows are locked in id order, then returned oldest
// first.
func (r *MembersRepo) LockMembers(ctx context.Context, studioID uuid.UUID) ([]members.Member, error) {
	rows, err := r.q.MembersLock(ctx, studioID)
	out, err := toCoreAll(rows, err, toCoreMember, "lock members of studio %s", studioID)
	sortMembers(out)
	return out, err
}

// ActivateMember implements members.Repo.
func (r *MembersRepo) ActivateMember(ctx context.Context, id uuid.UUID, name, passwordHash string) (members.Member, error) {
	row, err := r.q.MembersActivate(ctx, db.MembersActivateParams{ID: id, Name: name, PasswordHash: passwordHash})
	return toCoreOne(row, err, members.ErrMemberNotFound, toCoreMember, "activate member %s", id)
}

// SetRole implements members.Repo.
func (r *MembersRepo) SetRole(ctx context.Context, id uuid.UUID, role members.Role) (members.Member, error) {
	row, err := r.q.MembersSetRole(ctx, db.MembersSetRoleParams{ID: id, Role: string(role)})
	return toCoreOne(row, err, members.ErrMemberNotFound, toCoreMember, "set the role of member %s", id)
}

// SetPassword implements members.Repo.
func (r *MembersRepo) SetPassword(ctx context.Context, id uuid.UUID, passwordHash string) error {
	n, err := r.q.MembersSetPassword(ctx, db.MembersSetPasswordParams{ID: id, PasswordHash: passwordHash})
	return oneChanged(n, err, members.ErrMemberNotFound, "set the password of member %s", id)
}

// SetTOTP implements members.Repo.
func (r *MembersRepo) SetTOTP(ctx context.Context, id uuid.UUID, secret, pending []byte) error {
	n, err := r.q.MembersSetTOTP(ctx, db.MembersSetTOTPParams{ID: id, TotpSecret: secret, TotpPending: pending})
	return oneChanged(n, err, members.ErrMemberNotFound, "set the TOTP of member %s", id)
}

// DeleteMember implements members.Repo.
func (r *MembersRepo) DeleteMember(ctx context.Context, id uuid.UUID) error {
	n, err := r.q.MembersDelete(ctx, id)
	return oneChanged(n, err, members.ErrMemberNotFound, "delete of member %s", id)
}

// InsertLink implements members.Repo.
func (r *MembersRepo) InsertLink(ctx context.Context, l members.Link) error {
	err := r.q.MembersInsertLink(ctx, db.MembersInsertLinkParams{TokenHash: l.Hash, MemberID: l.MemberID, Purpose: string(l.Purpose), ExpiresAt: l.ExpiresAt})
	if err != nil {
		return fmt.Errorf("insert %s link: %w", l.Purpose, err)
	}
	return nil
}

// UseLink implements members.Repo: one conditional UPDATE, so of two concurrent uses one wins.
func (r *MembersRepo) UseLink(ctx context.Context, hash []byte, purpose members.LinkPurpose, now time.Time) (uuid.UUID, error) {
	id, err := r.q.MembersUseLink(ctx, db.MembersUseLinkParams{Now: now, TokenHash: hash, Purpose: string(purpose)})
	if isNoRows(err) {
		return uuid.Nil, members.ErrLinkInvalid
	}
	if err != nil {
		return uuid.Nil, fmt.Errorf("use %s link: %w", purpose, err)
	}
	return id, nil
}

// InsertSession implements members.Repo.
func (r *MembersRepo) InsertSession(ctx context.Context, s members.SessionRecord) error {
	err := r.q.MembersInsertSession(ctx, db.MembersInsertSessionParams{ID: s.ID, MemberID: s.MemberID, TokenHash: s.Hash,
		CreatedAt: s.CreatedAt, LastSeenAt: s.LastSeenAt, ExpiresAt: s.ExpiresAt})
	if err != nil {
		return fmt.Errorf("insert session: %w", err)
	}
	return nil
}

// FindSession implements members.Repo.
func (r *MembersRepo) FindSession(ctx context.Context, hash []byte) (members.SessionRecord, error) {
	row, err := r.q.MembersFindSession(ctx, hash)
	return toCoreOne(row, err, members.ErrUnauthenticated, toCoreSession, "find session")
}

// TouchSession implements members.Repo.
func (r *MembersRepo) TouchSession(ctx context.Context, id uuid.UUID, at time.Time) error {
	return wrapErr(r.q.MembersTouchSession(ctx, db.MembersTouchSessionParams{ID: id, LastSeenAt: at}), "touch session")
}

// DeleteSession implements members.Repo.
func (r *MembersRepo) DeleteSession(ctx context.Context, id uuid.UUID) error {
	return wrapErr(r.q.MembersDeleteSession(ctx, id), "delete session")
}

// DeleteSessions implements members.Repo.
func (r *MembersRepo) DeleteSessions(ctx context.Context, memberID uuid.UUID) error {
	if err := r.q.MembersDeleteSessions(ctx, memberID); err != nil {
		return fmt.Errorf("delete sessions of member %s: %w", memberID, err)
	}
	return nil
}

// InsertToken implements members.Repo.
func (r *MembersRepo) InsertToken(ctx context.Context, t members.TokenRecord) error {
	err := r.q.MembersInsertToken(ctx, db.MembersInsertTokenParams{ID: t.ID, StudioID: t.StudioID, MemberID: t.MemberID,
		Name: t.Name, Role: string(t.Role), TokenHash: t.Hash, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt})
	if err != nil {
		return fmt.Errorf("insert access token: %w", err)
	}
	return nil
}

// FindToken implements members.Repo.
func (r *MembersRepo) FindToken(ctx context.Context, hash []byte) (members.AccessToken, error) {
	row, err := r.q.MembersFindToken(ctx, hash)
	return toCoreOne(row, err, members.ErrUnauthenticated, toCoreAccessToken, "find access token")
}

// GetToken implements members.Repo.
func (r *MembersRepo) GetToken(ctx context.Context, id uuid.UUID) (members.AccessToken, error) {
	row, err := r.q.MembersGetToken(ctx, id)
	return toCoreOne(row, err, members.ErrTokenNotFound, toCoreAccessToken, "get access token %s", id)
}

// ListTokens implements members.Repo.
func (r *MembersRepo) ListTokens(ctx context.Context, studioID uuid.UUID) ([]members.AccessToken, error) {
	rows, err := r.q.MembersListTokens(ctx, studioID)
	return toCoreAll(rows, err, toCoreAccessToken, "list access tokens of studio %s", studioID)
}

// TouchToken implements members.Repo.
func (r *MembersRepo) TouchToken(ctx context.Context, id uuid.UUID, at time.Time) error {
	return wrapErr(r.q.MembersTouchToken(ctx, db.MembersTouchTokenParams{ID: id, LastUsedAt: &at}), "touch access token")
}

// DeleteToken implements members.Repo.
func (r *MembersRepo) DeleteToken(ctx context.Context, id uuid.UUID) error {
	n, err := r.q.MembersDeleteToken(ctx, id)
	return oneChanged(n, err, members.ErrTokenNotFound, "delete access token %s", id)
}

// LockSignIn implements members.Repo with a transaction-scoped advisory lock.
func (r *MembersRepo) LockSignIn(ctx context.Context, email string) error {
	return wrapErr(r.q.MembersLockSignIn(ctx, email), "lock sign-ins")
}

// SignInFailures implements members.Repo.
func (r *MembersRepo) SignInFailures(ctx context.Context, email string, since time.Time) ([]time.Time, error) {
	rows, err := r.q.MembersSignInFailures(ctx, db.MembersSignInFailuresParams{Email: email, FailedAt: since})
	if err != nil {
		return nil, fmt.Errorf("count sign-in failures: %w", err)
	}
	for i := range rows {
		rows[i] = rows[i].UTC()
	}
	return rows, nil
}

// AddSignInFailure implements members.Repo.
func (r *MembersRepo) AddSignInFailure(ctx context.Context, email string, at time.Time) error {
	return wrapErr(r.q.MembersAddSignInFailure(ctx, db.MembersAddSignInFailureParams{Email: email, FailedAt: at}), "add sign-in failure")
}

// ClearSignInFailures implements members.Repo.
func (r *MembersRepo) ClearSignInFailures(ctx context.Context, email string) error {
	return wrapErr(r.q.MembersClearSignInFailures(ctx, email), "clear sign-in failures")
}

// PruneSignInFailures implements members.Repo.
func (r *MembersRepo) PruneSignInFailures(ctx context.Context, before time.Time) error {
	return wrapErr(r.q.MembersPruneSignInFailures(ctx, before), "prune sign-in failures")
}

// TOTPRequired implements members.Repo.
func (r *MembersRepo) TOTPRequired(ctx context.Context, studioID uuid.UUID) (bool, error) {
	on, err := r.q.MembersTOTPRequired(ctx, studioID)
	if err != nil {
		return false, fmt.Errorf("read the TOTP policy of studio %s: %w", studioID, err)
	}
	return on, nil
}

// SetTOTPRequired implements members.Repo.
func (r *MembersRepo) SetTOTPRequired(ctx context.Context, studioID uuid.UUID, on bool) error {
	err := r.q.MembersSetTOTPRequired(ctx, db.MembersSetTOTPRequiredParams{StudioID: studioID, RequireTotp: on})
	if pgCode(err) == "23503" {
		return studio.ErrStudioNotFound
	}
	if err != nil {
		return fmt.Errorf("set the TOTP policy of studio %s: %w", studioID, err)
	}
	return nil
}

// sortMembers orders members oldest first (ORDER BY created_at, id).
func sortMembers(ms []members.Member) {
	slices.SortFunc(ms, func(a, b members.Member) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return bytes.Compare(a.ID[:], b.ID[:])
	})
}
