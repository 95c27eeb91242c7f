// Package membersfake is an in-memory members.Repo that behaves like the PostgreSQL one
// (adapters/postgres/members.go), for core tests: the same errors for missing rows, the same
// ordering, the same uniqueness of emails per studio, deleting a member with its sessions,
// links and tokens. Register it with a memstore.Runner (memstore.New) and a failed transaction
// leaves it as it was. memberstest.Run is the contract it passes with PostgreSQL.
//
// Unlike PostgreSQL it knows no studios: a member of any studio id may be inserted.
package membersfake

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// Repo is the fake. The zero value is not ready; use New.
type Repo struct{ *memstore.Table[state] }

var _ members.Repo = (*Repo)(nil)

type state struct {
	accounts     map[uuid.UUID]members.Account
	links        []link
	sessions     map[uuid.UUID]members.SessionRecord
	tokens       map[uuid.UUID]members.TokenRecord
	failures     []failure
	totpRequired map[uuid.UUID]bool
}

type link struct {
	members.Link
	used bool
}

type failure struct {
	email string
	at    time.Time
}

// New returns an empty fake.
func New() *Repo {
	return &Repo{Table: memstore.NewTable(state{accounts: map[uuid.UUID]members.Account{},
		sessions: map[uuid.UUID]members.SessionRecord{}, tokens: map[uuid.UUID]members.TokenRecord{},
		totpRequired: map[uuid.UUID]bool{}}, state.clone)}
}

func cloneAccount(a members.Account) members.Account {
	a.TOTPSecret, a.TOTPPending = bytes.Clone(a.TOTPSecret), bytes.Clone(a.TOTPPending)
	return a
}

func (s state) clone() state {
	return state{accounts: memstore.CloneMap(s.accounts, cloneAccount),
		links:    memstore.CloneSlice(s.links, func(l link) link { l.Hash = bytes.Clone(l.Hash); return l }),
		sessions: memstore.CloneMap(s.sessions, func(r members.SessionRecord) members.SessionRecord { r.Hash = bytes.Clone(r.Hash); return r }),
		tokens: memstore.CloneMap(s.tokens, func(t members.TokenRecord) members.TokenRecord {
			t.Hash, t.LastUsedAt = bytes.Clone(t.Hash), memstore.ClonePtr(t.LastUsedAt)
			return t
		}),
		failures:     memstore.CloneSlice(s.failures, nil),
		totpRequired: memstore.CloneMap(s.totpRequired, nil)}
}

// pg is t as a timestamptz keeps it.
func pg(t time.Time) time.Time { return memstore.PGTime(t).UTC() }

func byCreated(a, b members.Member) int {
	return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
}

// InsertMember implements members.Repo.
func (r *Repo) InsertMember(_ context.Context, m members.Member) (members.Member, error) {
	st := r.Lock()
	defer r.Unlock()
	m.Email = strings.ToLower(m.Email)
	for _, a := range st.accounts {
		if a.StudioID == m.StudioID && a.Email == m.Email {
			return members.Member{}, members.ErrMemberExists
		}
	}
	m.ID, m.CreatedAt, m.TOTPEnabled = uuid.New(), pg(r.Now()), false
	st.accounts[m.ID] = members.Account{Member: m}
	return m, nil
}

// GetAccount implements members.Repo.
func (r *Repo) GetAccount(_ context.Context, id uuid.UUID) (members.Account, error) {
	st := r.Lock()
	defer r.Unlock()
	a, err := memstore.Get(st.accounts, id, members.ErrMemberNotFound)
	return cloneAccount(a), err
}

// AccountsByEmail implements members.Repo: oldest first.
func (r *Repo) AccountsByEmail(_ context.Context, email string) ([]members.Account, error) {
	st := r.Lock()
	defer r.Unlock()
	out := []members.Account{}
	for _, a := range st.accounts {
		if a.Email == strings.ToLower(email) {
			out = append(out, cloneAccount(a))
		}
	}
	slices.SortFunc(out, func(a, b members.Account) int { return byCreated(a.Member, b.Member) })
	return out, nil
}

// ListMembers implements members.Repo: oldest first.
func (r *Repo) ListMembers(_ context.Context, studioID uuid.UUID) ([]members.Member, error) {
	st := r.Lock()
	defer r.Unlock()
	out := []members.Member{}
	for _, a := range st.accounts {
		if a.StudioID == studioID {
			out = append(out, a.Member)
		}
	}
	slices.SortFunc(out, byCreated)
	return out, nil
}

// LockMembers implements members.Repo. memstore runs transactions one at a time, so reading
// is all there is to it.
func (r *Repo) LockMembers(ctx context.Context, studioID uuid.UUID) ([]members.Member, error) {
	return r.ListMembers(ctx, studioID)
}

// change applies f to the stored account, as a one-row UPDATE … RETURNING does.
func (r *Repo) change(id uuid.UUID, f func(*members.Account)) (members.Member, error) {
	st := r.Lock()
	defer r.Unlock()
	a, ok := st.accounts[id]
	if !ok {
		return members.Member{}, members.ErrMemberNotFound
	}
	f(&a)
	a.TOTPEnabled = a.TOTPSecret != nil
	st.accounts[id] = a
	return a.Member, nil
}

// ActivateMember implements members.Repo.
func (r *Repo) ActivateMember(_ context.Context, id uuid.UUID, name, passwordHash string) (members.Member, error) {
	return r.change(id, func(a *members.Account) { a.Name, a.PasswordHash, a.Status = name, passwordHash, members.Active })
}

// SetRole implements members.Repo.
func (r *Repo) SetRole(_ context.Context, id uuid.UUID, role members.Role) (members.Member, error) {
	return r.change(id, func(a *members.Account) { a.Role = role })
}

// SetPassword implements members.Repo.
func (r *Repo) SetPassword(_ context.Context, id uuid.UUID, passwordHash string) error {
	_, err := r.change(id, func(a *members.Account) { a.PasswordHash = passwordHash })
	return err
}

// SetTOTP implements members.Repo.
func (r *Repo) SetTOTP(_ context.Context, id uuid.UUID, secret, pending []byte) error {
	_, err := r.change(id, func(a *members.Account) { a.TOTPSecret, a.TOTPPending = bytes.Clone(secret), bytes.Clone(pending) })
	return err
}

// DeleteMember implements members.Repo, as the foreign keys' ON DELETE CASCADE does.
func (r *Repo) DeleteMember(_ context.Context, id uuid.UUID) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.accounts[id]; !ok {
		return members.ErrMemberNotFound
	}
	delete(st.accounts, id)
	st.links = slices.DeleteFunc(st.links, func(l link) bool { return l.MemberID == id })
	maps.DeleteFunc(st.sessions, func(_ uuid.UUID, s members.SessionRecord) bool { return s.MemberID == id })
	maps.DeleteFunc(st.tokens, func(_ uuid.UUID, t members.TokenRecord) bool { return t.MemberID == id })
	return nil
}

// InsertLink implements members.Repo.
func (r *Repo) InsertLink(_ context.Context, l members.Link) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.accounts[l.MemberID]; !ok {
		return errForeignKey("member_links", l.MemberID)
	}
	l.Hash, l.ExpiresAt = bytes.Clone(l.Hash), pg(l.ExpiresAt)
	st.links = append(st.links, link{Link: l})
	return nil
}

// UseLink implements members.Repo.
func (r *Repo) UseLink(_ context.Context, hash []byte, purpose members.LinkPurpose, now time.Time) (uuid.UUID, error) {
	st := r.Lock()
	defer r.Unlock()
	for i := range st.links {
		l := &st.links[i]
		if bytes.Equal(l.Hash, hash) && l.Purpose == purpose && !l.used && l.ExpiresAt.After(pg(now)) {
			l.used = true
			return l.MemberID, nil
		}
	}
	return uuid.Nil, members.ErrLinkInvalid
}

// InsertSession implements members.Repo.
func (r *Repo) InsertSession(_ context.Context, s members.SessionRecord) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.accounts[s.MemberID]; !ok {
		return errForeignKey("member_sessions", s.MemberID)
	}
	s.Hash = bytes.Clone(s.Hash)
	s.CreatedAt, s.LastSeenAt, s.ExpiresAt = pg(s.CreatedAt), pg(s.LastSeenAt), pg(s.ExpiresAt)
	st.sessions[s.ID] = s
	return nil
}

// FindSession implements members.Repo.
func (r *Repo) FindSession(_ context.Context, hash []byte) (members.SessionRecord, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, s := range st.sessions {
		if bytes.Equal(s.Hash, hash) {
			s.Hash = bytes.Clone(s.Hash)
			return s, nil
		}
	}
	return members.SessionRecord{}, members.ErrUnauthenticated
}

// TouchSession implements members.Repo.
func (r *Repo) TouchSession(_ context.Context, id uuid.UUID, at time.Time) error {
	st := r.Lock()
	defer r.Unlock()
	if s, ok := st.sessions[id]; ok {
		s.LastSeenAt = pg(at)
		st.sessions[id] = s
	}
	return nil
}

// DeleteSession implements members.Repo.
func (r *Repo) DeleteSession(_ context.Context, id uuid.UUID) error {
	st := r.Lock()
	defer r.Unlock()
	delete(st.sessions, id)
	return nil
}

// DeleteSessions implements members.Repo.
func (r *Repo) DeleteSessions(_ context.Context, memberID uuid.UUID) error {
	st := r.Lock()
	defer r.Unlock()
	maps.DeleteFunc(st.sessions, func(_ uuid.UUID, s members.SessionRecord) bool { return s.MemberID == memberID })
	return nil
}

// InsertToken implements members.Repo.
func (r *Repo) InsertToken(_ context.Context, t members.TokenRecord) error {
	st := r.Lock()
	defer r.Unlock()
	if a, ok := st.accounts[t.MemberID]; !ok || a.StudioID != t.StudioID {
		return errForeignKey("studio_access_tokens", t.MemberID)
	}
	t.Hash, t.LastUsedAt = bytes.Clone(t.Hash), nil
	t.CreatedAt, t.ExpiresAt = pg(t.CreatedAt), pg(t.ExpiresAt)
	st.tokens[t.ID] = t
	return nil
}

// FindToken implements members.Repo.
func (r *Repo) FindToken(_ context.Context, hash []byte) (members.AccessToken, error) {
	st := r.Lock()
	defer r.Unlock()
	for _, t := range st.tokens {
		if bytes.Equal(t.Hash, hash) {
			return copyToken(t), nil
		}
	}
	return members.AccessToken{}, members.ErrUnauthenticated
}

func copyToken(t members.TokenRecord) members.AccessToken {
	out := t.AccessToken
	out.LastUsedAt = memstore.ClonePtr(t.LastUsedAt)
	return out
}

// GetToken implements members.Repo.
func (r *Repo) GetToken(_ context.Context, id uuid.UUID) (members.AccessToken, error) {
	st := r.Lock()
	defer r.Unlock()
	t, err := memstore.Get(st.tokens, id, members.ErrTokenNotFound)
	return copyToken(t), err
}

// ListTokens implements members.Repo: oldest first.
func (r *Repo) ListTokens(_ context.Context, studioID uuid.UUID) ([]members.AccessToken, error) {
	st := r.Lock()
	defer r.Unlock()
	out := []members.AccessToken{}
	for _, t := range st.tokens {
		if t.StudioID == studioID {
			out = append(out, copyToken(t))
		}
	}
	slices.SortFunc(out, func(a, b members.AccessToken) int {
		return memstore.CompareCreated(a.CreatedAt, a.ID, b.CreatedAt, b.ID)
	})
	return out, nil
}

// TouchToken implements members.Repo.
func (r *Repo) TouchToken(_ context.Context, id uuid.UUID, at time.Time) error {
	st := r.Lock()
	defer r.Unlock()
	if t, ok := st.tokens[id]; ok {
		at = pg(at)
		t.LastUsedAt = &at
		st.tokens[id] = t
	}
	return nil
}

// DeleteToken implements members.Repo.
func (r *Repo) DeleteToken(_ context.Context, id uuid.UUID) error {
	st := r.Lock()
	defer r.Unlock()
	if _, ok := st.tokens[id]; !ok {
		return members.ErrTokenNotFound
	}
	delete(st.tokens, id)
	return nil
}

// LockSignIn implements members.Repo: memstore runs transactions one at a time.
func (r *Repo) LockSignIn(context.Context, string) error { return nil }

// SignInFailures implements members.Repo.
func (r *Repo) SignInFailures(_ context.Context, email string, since time.Time) ([]time.Time, error) {
	st := r.Lock()
	defer r.Unlock()
	out := []time.Time{}
	for _, f := range st.failures {
		if f.email == strings.ToLower(email) && !f.at.Before(pg(since)) {
			out = append(out, f.at)
		}
	}
	slices.SortFunc(out, time.Time.Compare)
	return out, nil
}

// AddSignInFailure implements members.Repo.
func (r *Repo) AddSignInFailure(_ context.Context, email string, at time.Time) error {
	st := r.Lock()
	defer r.Unlock()
	st.failures = append(st.failures, failure{email: strings.ToLower(email), at: pg(at)})
	return nil
}

// ClearSignInFailures implements members.Repo.
func (r *Repo) ClearSignInFailures(_ context.Context, email string) error {
	st := r.Lock()
	defer r.Unlock()
	st.failures = slices.DeleteFunc(st.failures, func(f failure) bool { return f.email == strings.ToLower(email) })
	return nil
}

// PruneSignInFailures implements members.Repo.
func (r *Repo) PruneSignInFailures(_ context.Context, before time.Time) error {
	st := r.Lock()
	defer r.Unlock()
	st.failures = slices.DeleteFunc(st.failures, func(f failure) bool { return f.at.Before(pg(before)) })
	return nil
}

// TOTPRequired implements members.Repo.
func (r *Repo) TOTPRequired(_ context.Context, studioID uuid.UUID) (bool, error) {
	st := r.Lock()
	defer r.Unlock()
	return st.totpRequired[studioID], nil
}

// SetTOTPRequired implements members.Repo.
func (r *Repo) SetTOTPRequired(_ context.Context, studioID uuid.UUID, on bool) error {
	st := r.Lock()
	defer r.Unlock()
	st.totpRequired[studioID] = on
	return nil
}
