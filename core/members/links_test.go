package members_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/members"
)

func TestInvitationWorksOnceWithin72Hours(t *testing.T) {
	t.Parallel()
	b := setup(t)
	inv, err := b.svc.Invite(b.ctx, b.studio, nil, " Ada@Studio.Example ", members.Owner)
	require.NoError(t, err)
	require.Equal(t, "ada@studio.example", inv.Member.Email)
	require.Equal(t, members.Invited, inv.Member.Status)
	msgs := b.inbox.to("ada@studio.example")
	require.Len(t, msgs, 1)
	token := b.inbox.link(t, "ada@studio.example", "/console/invite/")
	require.Equal(t, publicURL+"/console/invite/"+token, inv.URL)
	require.Contains(t, msgs[0].Text, inv.URL)

	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrSignInFailed, "an invited member has no password yet")
	_, err = b.svc.Invite(b.ctx, b.studio, nil, "ADA@studio.example", members.Viewer)
	require.ErrorIs(t, err, members.ErrMemberExists)
	_, err = b.svc.Invite(b.ctx, uuid.New(), nil, "ada@studio.example", members.Viewer)
	require.NoError(t, err, "unique per studio")

	b.clock.Advance(members.InviteTTL - time.Second)
	m, err := b.svc.AcceptInvite(b.ctx, token, " Ada ", password)
	require.NoError(t, err)
	require.Equal(t, "Ada", m.Name)
	require.Equal(t, members.Active, m.Status)
	_, err = b.svc.AcceptInvite(b.ctx, token, "Mallory", "another password")
	require.ErrorIs(t, err, members.ErrLinkInvalid, "used once")
	b.signIn(t, "ada@studio.example", "")

	_, err = b.svc.Invite(b.ctx, b.studio, nil, "bob@studio.example", members.Viewer)
	require.NoError(t, err)
	b.clock.Advance(members.InviteTTL)
	_, err = b.svc.AcceptInvite(b.ctx, b.inbox.link(t, "bob@studio.example", "/console/invite/"), "Bob", password)
	require.ErrorIs(t, err, members.ErrLinkInvalid, "late")
	_, err = b.svc.AcceptInvite(b.ctx, "not-a-token", "Bob", password)
	require.ErrorIs(t, err, members.ErrLinkInvalid)
}

func TestResetWorksOnceWithinAnHourAndEndsEverySession(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.member(t, b.studio, "ada@studio.example", members.Owner)
	first, _ := b.signIn(t, "ada@studio.example", "")
	second, _ := b.signIn(t, "ada@studio.example", "")

	require.NoError(t, b.svc.RequestReset(b.ctx, "nobody@studio.example"), "the same answer for an unknown email")
	require.Empty(t, b.inbox.to("nobody@studio.example"))
	require.NoError(t, b.svc.RequestReset(b.ctx, "ADA@studio.example"))
	token := b.inbox.link(t, "ada@studio.example", "/console/reset/")

	b.clock.Advance(members.ResetTTL - time.Second)
	require.NoError(t, b.svc.ResetPassword(b.ctx, token, "a brand new password"))
	for _, s := range []members.Session{first, second} {
		_, err := b.svc.Authenticate(b.ctx, s.Token)
		require.ErrorIs(t, err, members.ErrUnauthenticated, "a reset ends every session, at once")
	}
	_, err := b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrSignInFailed)
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", "a brand new password", "")
	require.NoError(t, err)
	require.ErrorIs(t, b.svc.ResetPassword(b.ctx, token, "yet another password"), members.ErrLinkInvalid, "used once")

	require.NoError(t, b.svc.RequestReset(b.ctx, "ada@studio.example"))
	late := b.inbox.link(t, "ada@studio.example", "/console/reset/")
	require.NotEqual(t, token, late)
	b.clock.Advance(members.ResetTTL)
	require.ErrorIs(t, b.svc.ResetPassword(b.ctx, late, "yet another password"), members.ErrLinkInvalid, "late")
}

func TestSessionsEnd(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	b.member(t, b.studio, "ada@studio.example", members.Developer)
	one, p := b.signIn(t, "ada@studio.example", "")
	two, _ := b.signIn(t, "ada@studio.example", "")
	three, _ := b.signIn(t, "ada@studio.example", "")
	tok, err := b.svc.CreateToken(b.ctx, p, "ci", members.Viewer, 30)
	require.NoError(t, err)

	require.NoError(t, b.svc.SignOut(b.ctx, p))
	_, err = b.svc.Authenticate(b.ctx, one.Token)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "signed out at once, although Authenticate had cached it")
	_, err = b.svc.Authenticate(b.ctx, two.Token)
	require.NoError(t, err, "sign-out ends one session")

	_, p = b.signIn(t, "ada@studio.example", "")
	require.NoError(t, b.svc.SignOutEverywhere(b.ctx, p))
	for _, s := range []members.Session{two, three} {
		_, err = b.svc.Authenticate(b.ctx, s.Token)
		require.ErrorIs(t, err, members.ErrUnauthenticated)
	}
	_, err = b.svc.Authenticate(b.ctx, tok.Secret)
	require.NoError(t, err, "access tokens are not sessions")

	four, p := b.signIn(t, "ada@studio.example", "")
	require.NoError(t, b.svc.Remove(b.ctx, owner, p.Member.ID))
	_, err = b.svc.Authenticate(b.ctx, four.Token)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "removal ends sessions")
	_, err = b.svc.Authenticate(b.ctx, tok.Secret)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "and the member's tokens")

	for _, bearer := range []string{"", "rss_short", "Bearer x", strings.Replace(four.Token, "rss_", "rst_", 1)} {
		_, err = b.svc.Authenticate(b.ctx, bearer)
		require.ErrorIs(t, err, members.ErrUnauthenticated, bearer)
	}
}

func TestSessionTimeouts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.member(t, b.studio, "ada@studio.example", members.Developer)
	idle, _ := b.signIn(t, "ada@studio.example", "")
	busy, p := b.signIn(t, "ada@studio.example", "")
	require.Equal(t, b.clock.Now().Add(members.SessionLifetime), busy.ExpiresAt)
	require.Equal(t, p.Member.ID, busy.Member.ID)

	b.clock.Advance(members.IdleTimeout - time.Second)
	_, err := b.svc.Authenticate(b.ctx, busy.Token)
	require.NoError(t, err)
	b.clock.Advance(time.Second)
	_, err = b.svc.Authenticate(b.ctx, idle.Token)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "idle for 12 h")

	// Used every 11 h, the busy session lives 7 days, not a second more.
	for b.clock.Now().Add(11 * time.Hour).Before(busy.ExpiresAt) {
		b.clock.Advance(11 * time.Hour)
		_, err = b.svc.Authenticate(b.ctx, busy.Token)
		require.NoError(t, err)
	}
	b.clock.Advance(busy.ExpiresAt.Sub(b.clock.Now()))
	_, err = b.svc.Authenticate(b.ctx, busy.Token)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "7 days at most")
}
