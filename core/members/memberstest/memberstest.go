// Package memberstest is the contract of members.Repo: one suite of cases that every
// implementation passes, run on the in-memory fake (membersfake) and on PostgreSQL
// (adapters/postgres), so that core tests on the fake hold on the database too. Its last case
// runs the Service on the storage: the last owner of a studio survives concurrent removals and
// demotions, which only row locks of the storage can make true.
package memberstest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/store/contract"
)

// Harness is one fresh storage for a case.
type Harness struct {
	// Runner opens the transactions of Store.
	Runner store.Runner
	Store  store.Of[members.Repo]
	// NewStudio returns the id of a new studio.
	NewStudio func(t *testing.T) uuid.UUID
}

// Run runs every case of the contract, each on a storage of its own from open.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	contract.Run(t, func(t *testing.T) bundle { return bundle{Harness: open(t), ctx: context.Background()} }, cases)
}

type bundle struct {
	Harness
	ctx context.Context
}

func (b bundle) repo() members.Repo { return b.Store.Repo() }

func (b bundle) member(t *testing.T, studioID uuid.UUID, email string, role members.Role) members.Member {
	t.Helper()
	m, err := b.repo().InsertMember(b.ctx, members.Member{StudioID: studioID, Email: email, Role: role, Status: members.Invited})
	require.NoError(t, err)
	return m
}

func (b bundle) active(t *testing.T, studioID uuid.UUID, email string, role members.Role) members.Member {
	t.Helper()
	m := b.member(t, studioID, email, role)
	m, err := b.repo().ActivateMember(b.ctx, m.ID, "Name of "+email, "$argon2id$hash")
	require.NoError(t, err)
	return m
}

func hash(s string) []byte { return bytes.Repeat([]byte(s), 32)[:32] }

// at is a time as the storage keeps it.
func at(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

var cases = []contract.Case[bundle]{
	{Name: "MembersUniquePerStudioByEmail", Run: func(t *testing.T, b bundle) {
		s1, s2 := b.NewStudio(t), b.NewStudio(t)
		first := b.member(t, s1, "ada@studio.example", members.Owner)
		require.NotEqual(t, uuid.Nil, first.ID)
		require.Equal(t, members.Member{ID: first.ID, StudioID: s1, Email: "ada@studio.example", Role: members.Owner,
			Status: members.Invited, CreatedAt: first.CreatedAt}, first)
		require.False(t, first.CreatedAt.IsZero())
		_, err := b.repo().InsertMember(b.ctx, members.Member{StudioID: s1, Email: "ada@studio.example", Role: members.Viewer, Status: members.Invited})
		require.ErrorIs(t, err, members.ErrMemberExists)
		other := b.member(t, s2, "ada@studio.example", members.Viewer)
		second := b.member(t, s1, "bob@studio.example", members.Developer)

		list, err := b.repo().ListMembers(b.ctx, s1)
		require.NoError(t, err)
		require.Equal(t, []members.Member{first, second}, list)
		accounts, err := b.repo().AccountsByEmail(b.ctx, "ADA@Studio.Example")
		require.NoError(t, err)
		require.Len(t, accounts, 2)
		require.Equal(t, first, accounts[0].Member, "oldest first, compared case-insensitively")
		require.Equal(t, other, accounts[1].Member)
		none, err := b.repo().AccountsByEmail(b.ctx, "nobody@studio.example")
		require.NoError(t, err)
		require.Empty(t, none)
		list, err = b.repo().ListMembers(b.ctx, uuid.New())
		require.NoError(t, err)
		require.Empty(t, list)
		_, err = b.repo().GetAccount(b.ctx, uuid.New())
		require.ErrorIs(t, err, members.ErrMemberNotFound)
	}},
	{Name: "AccountChanges", Run: func(t *testing.T, b bundle) {
		s := b.NewStudio(t)
		m := b.member(t, s, "ada@studio.example", members.Developer)
		got, err := b.repo().ActivateMember(b.ctx, m.ID, "Ada", "$argon2id$one")
		require.NoError(t, err)
		require.Equal(t, "Ada", got.Name)
		require.Equal(t, members.Active, got.Status)
		got, err = b.repo().SetRole(b.ctx, m.ID, members.Owner)
		require.NoError(t, err)
		require.Equal(t, members.Owner, got.Role)
		require.NoError(t, b.repo().SetPassword(b.ctx, m.ID, "$argon2id$two"))
		require.NoError(t, b.repo().SetTOTP(b.ctx, m.ID, nil, []byte("pending")))
		acc, err := b.repo().GetAccount(b.ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, "$argon2id$two", acc.PasswordHash)
		require.Nil(t, acc.TOTPSecret)
		require.Equal(t, []byte("pending"), acc.TOTPPending)
		require.False(t, acc.TOTPEnabled)
		require.NoError(t, b.repo().SetTOTP(b.ctx, m.ID, []byte("secret"), nil))
		acc, err = b.repo().GetAccount(b.ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, []byte("secret"), acc.TOTPSecret)
		require.Nil(t, acc.TOTPPending)
		require.True(t, acc.TOTPEnabled)
		require.Equal(t, members.Member{ID: m.ID, StudioID: s, Email: m.Email, Name: "Ada", Role: members.Owner,
			Status: members.Active, TOTPEnabled: true, CreatedAt: m.CreatedAt}, acc.Member)

		missing := uuid.New()
		_, err = b.repo().ActivateMember(b.ctx, missing, "x", "y")
		require.ErrorIs(t, err, members.ErrMemberNotFound)
		_, err = b.repo().SetRole(b.ctx, missing, members.Owner)
		require.ErrorIs(t, err, members.ErrMemberNotFound)
		require.ErrorIs(t, b.repo().SetPassword(b.ctx, missing, "x"), members.ErrMemberNotFound)
		require.ErrorIs(t, b.repo().SetTOTP(b.ctx, missing, nil, nil), members.ErrMemberNotFound)
		require.ErrorIs(t, b.repo().DeleteMember(b.ctx, missing), members.ErrMemberNotFound)
	}},
	{Name: "LinksWorkOnceBeforeTheyExpire", Run: func(t *testing.T, b bundle) {
		m := b.member(t, b.NewStudio(t), "ada@studio.example", members.Owner)
		now := time.Now()
		require.NoError(t, b.repo().InsertLink(b.ctx, members.Link{Hash: hash("a"), MemberID: m.ID, Purpose: members.InviteLink, ExpiresAt: now.Add(time.Hour)}))
		require.NoError(t, b.repo().InsertLink(b.ctx, members.Link{Hash: hash("b"), MemberID: m.ID, Purpose: members.ResetLink, ExpiresAt: now.Add(time.Hour)}))

		_, err := b.repo().UseLink(b.ctx, hash("a"), members.ResetLink, now)
		require.ErrorIs(t, err, members.ErrLinkInvalid, "an invitation is not a reset link")
		_, err = b.repo().UseLink(b.ctx, hash("b"), members.ResetLink, now.Add(time.Hour))
		require.ErrorIs(t, err, members.ErrLinkInvalid, "expired at its expiry")
		_, err = b.repo().UseLink(b.ctx, hash("z"), members.InviteLink, now)
		require.ErrorIs(t, err, members.ErrLinkInvalid)

		// Of concurrent uses, exactly one wins.
		var wins, refusals int
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				id, err := b.repo().UseLink(b.ctx, hash("a"), members.InviteLink, now)
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					require.Equal(t, m.ID, id)
					wins++
				} else {
					require.ErrorIs(t, err, members.ErrLinkInvalid)
					refusals++
				}
			})
		}
		wg.Wait()
		require.Equal(t, 1, wins)
		require.Equal(t, 7, refusals)
		id, err := b.repo().UseLink(b.ctx, hash("b"), members.ResetLink, now.Add(time.Hour-time.Second))
		require.NoError(t, err)
		require.Equal(t, m.ID, id)
	}},
	{Name: "Sessions", Run: func(t *testing.T, b bundle) {
		s := b.NewStudio(t)
		ada, bob := b.active(t, s, "ada@studio.example", members.Owner), b.active(t, s, "bob@studio.example", members.Viewer)
		now := at(time.Now())
		rec := members.SessionRecord{ID: uuid.New(), MemberID: ada.ID, Hash: hash("1"), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}
		require.NoError(t, b.repo().InsertSession(b.ctx, rec))
		require.NoError(t, b.repo().InsertSession(b.ctx, members.SessionRecord{ID: uuid.New(), MemberID: ada.ID, Hash: hash("2"), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}))
		require.NoError(t, b.repo().InsertSession(b.ctx, members.SessionRecord{ID: uuid.New(), MemberID: bob.ID, Hash: hash("3"), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}))
		got, err := b.repo().FindSession(b.ctx, hash("1"))
		require.NoError(t, err)
		require.Equal(t, rec, got)
		require.NoError(t, b.repo().TouchSession(b.ctx, rec.ID, now.Add(time.Minute)))
		got, err = b.repo().FindSession(b.ctx, hash("1"))
		require.NoError(t, err)
		require.Equal(t, now.Add(time.Minute), got.LastSeenAt)
		require.NoError(t, b.repo().DeleteSession(b.ctx, rec.ID))
		_, err = b.repo().FindSession(b.ctx, hash("1"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
		require.NoError(t, b.repo().DeleteSession(b.ctx, rec.ID), "ending an ended session is no error")
		require.NoError(t, b.repo().DeleteSessions(b.ctx, ada.ID))
		_, err = b.repo().FindSession(b.ctx, hash("2"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
		_, err = b.repo().FindSession(b.ctx, hash("3"))
		require.NoError(t, err, "another member's session stays")
	}},
	{Name: "Tokens", Run: func(t *testing.T, b bundle) {
		s1, s2 := b.NewStudio(t), b.NewStudio(t)
		ada := b.active(t, s1, "ada@studio.example", members.Owner)
		eve := b.active(t, s2, "eve@studio.example", members.Owner)
		now := at(time.Now())
		tok := func(studioID, memberID uuid.UUID, name string, created time.Time) members.AccessToken {
			t.Helper()
			a := members.AccessToken{ID: uuid.New(), StudioID: studioID, MemberID: memberID, Name: name, Role: members.Developer,
				CreatedAt: created, ExpiresAt: created.Add(24 * time.Hour)}
			require.NoError(t, b.repo().InsertToken(b.ctx, members.TokenRecord{AccessToken: a, Hash: hash(name)}))
			return a
		}
		second := tok(s1, ada.ID, "2", now.Add(time.Second))
		first := tok(s1, ada.ID, "1", now)
		tok(s2, eve.ID, "3", now)
		list, err := b.repo().ListTokens(b.ctx, s1)
		require.NoError(t, err)
		require.Equal(t, []members.AccessToken{first, second}, list, "oldest first, the studio's only")
		got, err := b.repo().FindToken(b.ctx, hash("2"))
		require.NoError(t, err)
		require.Equal(t, second, got)
		_, err = b.repo().FindToken(b.ctx, hash("x"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
		require.NoError(t, b.repo().TouchToken(b.ctx, first.ID, now.Add(time.Minute)))
		got, err = b.repo().GetToken(b.ctx, first.ID)
		require.NoError(t, err)
		require.NotNil(t, got.LastUsedAt)
		require.Equal(t, now.Add(time.Minute), *got.LastUsedAt)
		_, err = b.repo().GetToken(b.ctx, uuid.New())
		require.ErrorIs(t, err, members.ErrTokenNotFound)
		require.NoError(t, b.repo().DeleteToken(b.ctx, first.ID))
		require.ErrorIs(t, b.repo().DeleteToken(b.ctx, first.ID), members.ErrTokenNotFound)
		_, err = b.repo().FindToken(b.ctx, hash("1"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
	}},
	{Name: "DeletingAMemberEndsWhatIsTheirs", Run: func(t *testing.T, b bundle) {
		s := b.NewStudio(t)
		ada, bob := b.active(t, s, "ada@studio.example", members.Owner), b.active(t, s, "bob@studio.example", members.Developer)
		now := at(time.Now())
		for i, m := range []members.Member{ada, bob} {
			n := string(rune('a' + i))
			require.NoError(t, b.repo().InsertSession(b.ctx, members.SessionRecord{ID: uuid.New(), MemberID: m.ID, Hash: hash("s" + n), CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(time.Hour)}))
			require.NoError(t, b.repo().InsertToken(b.ctx, members.TokenRecord{Hash: hash("t" + n), AccessToken: members.AccessToken{ID: uuid.New(),
				StudioID: s, MemberID: m.ID, Name: n, Role: members.Viewer, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}}))
			require.NoError(t, b.repo().InsertLink(b.ctx, members.Link{Hash: hash("l" + n), MemberID: m.ID, Purpose: members.ResetLink, ExpiresAt: now.Add(time.Hour)}))
		}
		require.NoError(t, b.repo().DeleteMember(b.ctx, bob.ID))
		_, err := b.repo().GetAccount(b.ctx, bob.ID)
		require.ErrorIs(t, err, members.ErrMemberNotFound)
		_, err = b.repo().FindSession(b.ctx, hash("sb"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
		_, err = b.repo().FindToken(b.ctx, hash("tb"))
		require.ErrorIs(t, err, members.ErrUnauthenticated)
		_, err = b.repo().UseLink(b.ctx, hash("lb"), members.ResetLink, now)
		require.ErrorIs(t, err, members.ErrLinkInvalid)

		_, err = b.repo().FindSession(b.ctx, hash("sa"))
		require.NoError(t, err)
		_, err = b.repo().FindToken(b.ctx, hash("ta"))
		require.NoError(t, err)
		_, err = b.repo().UseLink(b.ctx, hash("la"), members.ResetLink, now)
		require.NoError(t, err)
	}},
	{Name: "SignInFailures", Run: func(t *testing.T, b bundle) {
		now := at(time.Now())
		for i, d := range []time.Duration{-20 * time.Minute, -10 * time.Minute, -time.Minute} {
			require.NoError(t, b.repo().AddSignInFailure(b.ctx, "ada@studio.example", now.Add(d)))
			require.NoError(t, b.repo().AddSignInFailure(b.ctx, "bob@studio.example", now.Add(d+time.Duration(i))))
		}
		got, err := b.repo().SignInFailures(b.ctx, "ada@studio.example", now.Add(-10*time.Minute))
		require.NoError(t, err)
		require.Equal(t, []time.Time{now.Add(-10 * time.Minute), now.Add(-time.Minute)}, got, "since, inclusive, oldest first")
		require.NoError(t, b.repo().ClearSignInFailures(b.ctx, "ada@studio.example"))
		got, err = b.repo().SignInFailures(b.ctx, "ada@studio.example", now.Add(-time.Hour))
		require.NoError(t, err)
		require.Empty(t, got)
		got, err = b.repo().SignInFailures(b.ctx, "bob@studio.example", now.Add(-time.Hour))
		require.NoError(t, err)
		require.Len(t, got, 3, "another email's failures stay")
		require.NoError(t, b.repo().PruneSignInFailures(b.ctx, now.Add(-15*time.Minute)))
		got, err = b.repo().SignInFailures(b.ctx, "bob@studio.example", now.Add(-time.Hour))
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.NoError(t, b.Store.InTx(b.ctx, func(r members.Repo) error { return r.LockSignIn(b.ctx, "bob@studio.example") }))
	}},
	{Name: "TOTPPolicy", Run: func(t *testing.T, b bundle) {
		s1, s2 := b.NewStudio(t), b.NewStudio(t)
		on, err := b.repo().TOTPRequired(b.ctx, s1)
		require.NoError(t, err)
		require.False(t, on, "off by default")
		require.NoError(t, b.repo().SetTOTPRequired(b.ctx, s1, true))
		on, err = b.repo().TOTPRequired(b.ctx, s1)
		require.NoError(t, err)
		require.True(t, on)
		on, err = b.repo().TOTPRequired(b.ctx, s2)
		require.NoError(t, err)
		require.False(t, on)
		require.NoError(t, b.repo().SetTOTPRequired(b.ctx, s1, false))
		on, err = b.repo().TOTPRequired(b.ctx, s1)
		require.NoError(t, err)
		require.False(t, on)
	}},
	{Name: "RollbackLeavesNothing", Run: func(t *testing.T, b bundle) {
		s := b.NewStudio(t)
		err := b.Store.InTx(b.ctx, func(r members.Repo) error {
			m, err := r.InsertMember(b.ctx, members.Member{StudioID: s, Email: "ada@studio.example", Role: members.Owner, Status: members.Invited})
			require.NoError(t, err)
			require.NoError(t, r.AddSignInFailure(b.ctx, "ada@studio.example", time.Now()))
			_, err = r.SetRole(b.ctx, m.ID, members.Viewer)
			require.NoError(t, err)
			return contract.ErrRollback
		})
		require.ErrorIs(t, err, contract.ErrRollback)
		list, err := b.repo().ListMembers(b.ctx, s)
		require.NoError(t, err)
		require.Empty(t, list)
		fails, err := b.repo().SignInFailures(b.ctx, "ada@studio.example", time.Now().Add(-time.Hour))
		require.NoError(t, err)
		require.Empty(t, fails)
	}},
	{Name: "LastOwnerSurvivesConcurrentRemovals", Run: lastOwnerUnderConcurrency},
	{Name: "ConcurrentGuessesAreAllCounted", Run: concurrentGuesses},
}

// concurrentGuesses sends many wrong sign-ins of one email at once: exactly MaxFailures are
// answered (and counted), the rest are throttled, as the storage's lock of the email makes
// sure.
func concurrentGuesses(t *testing.T, b bundle) {
	svc := members.NewService(b.Runner, b.Store, audit.New(b.Runner, nopAudit{}), members.Config{})
	b.active(t, b.NewStudio(t), "ada@studio.example", members.Owner)
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[string]int{}
	for range 3 * members.MaxFailures {
		wg.Go(func() {
			_, err := svc.SignIn(b.ctx, "ada@studio.example", "a wrong password", "")
			mu.Lock()
			defer mu.Unlock()
			switch {
			case errors.Is(err, members.ErrSignInFailed):
				counts["failed"]++
			case errors.Is(err, members.ErrTooManyAttempts):
				counts["throttled"]++
			default:
				t.Errorf("sign-in: %v", err)
			}
		})
	}
	wg.Wait()
	require.Equal(t, map[string]int{"failed": members.MaxFailures, "throttled": 2 * members.MaxFailures}, counts)
}

// lastOwnerUnderConcurrency has each of a studio's owners remove or demote the others, all at
// once, many times: at least one active owner always remains.
func lastOwnerUnderConcurrency(t *testing.T, b bundle) {
	svc := members.NewService(b.Runner, b.Store, audit.New(b.Runner, nopAudit{}), members.Config{})
	for round := range 5 {
		s := b.NewStudio(t)
		const owners = 4
		ps := make([]members.Principal, owners)
		for i := range owners {
			m := b.active(t, s, string(rune('a'+i))+"@studio.example", members.Owner)
			ps[i] = members.Principal{StudioID: s, Member: m, Role: members.Owner}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var lastOwner, done int
		for i := range owners {
			for j := range owners {
				wg.Go(func() {
					var err error
					if (round+i+j)%2 == 0 {
						err = svc.Remove(b.ctx, ps[i], ps[j].Member.ID)
					} else {
						_, err = svc.ChangeRole(b.ctx, ps[i], ps[j].Member.ID, members.Viewer)
					}
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err == nil:
						done++
					case errors.Is(err, members.ErrLastOwner):
						lastOwner++
					default:
						// Removed or demoted already: the member is gone (not found).
						require.ErrorIs(t, err, members.ErrMemberNotFound)
					}
				})
			}
		}
		wg.Wait()
		list, err := svc.List(b.ctx, s)
		require.NoError(t, err)
		active := 0
		for _, m := range list {
			if m.Role == members.Owner && m.Status == members.Active {
				active++
			}
		}
		require.Equal(t, 1, active, "round %d: exactly one owner is left (done %d, refused %d)", round, done, lastOwner)
		require.Positive(t, lastOwner)
	}
}

// nopAudit is audit storage that keeps nothing: the contract is about members.
type nopAudit struct{}

func (nopAudit) Append(context.Context, audit.Entry) error                 { return nil }
func (nopAudit) List(context.Context, audit.Filter) ([]audit.Entry, error) { return nil, nil }

func (n nopAudit) Repo() audit.Repo                                          { return n }
func (n nopAudit) WithTx(store.Tx) audit.Repo                                { return n }
func (n nopAudit) InTx(ctx context.Context, fn func(audit.Repo) error) error { return fn(n) }
