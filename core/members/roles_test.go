package members_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
)

func TestRoles(t *testing.T) {
	t.Parallel()
	require.True(t, members.Owner.AtLeast(members.Developer))
	require.True(t, members.Developer.AtLeast(members.Developer))
	require.False(t, members.Viewer.AtLeast(members.Developer))
	require.False(t, members.Role("ADMIN").AtLeast(members.Viewer))
	require.False(t, members.Role("").Valid())

	p := members.Principal{Role: members.Developer}
	require.NoError(t, p.Require(members.Viewer))
	require.ErrorIs(t, p.Require(members.Owner), members.ErrRoleForbidden)
	p.MustSetUpTOTP = true
	require.ErrorIs(t, p.Require(members.Viewer), members.ErrTOTPSetupRequired)
}

func TestOnlyOwnersManageMembers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	dev := b.principal(t, "dev@studio.example", members.Developer)
	viewer := b.principal(t, "viewer@studio.example", members.Viewer)
	for _, p := range []members.Principal{dev, viewer} {
		_, err := b.svc.Invite(b.ctx, b.studio, &p, "new@studio.example", members.Viewer)
		require.ErrorIs(t, err, members.ErrRoleForbidden)
		_, err = b.svc.ChangeRole(b.ctx, p, viewer.Member.ID, members.Developer)
		require.ErrorIs(t, err, members.ErrRoleForbidden)
		require.ErrorIs(t, b.svc.Remove(b.ctx, p, viewer.Member.ID), members.ErrRoleForbidden)
		require.ErrorIs(t, b.svc.RequireTOTP(b.ctx, p, true), members.ErrRoleForbidden)
	}
	list, err := b.svc.List(b.ctx, b.studio)
	require.NoError(t, err)
	require.Len(t, list, 3, "nothing changed")

	inv, err := b.svc.Invite(b.ctx, b.studio, &owner, "new@studio.example", members.Viewer)
	require.NoError(t, err)
	_, err = b.svc.Invite(b.ctx, uuid.New(), &owner, "new@studio.example", members.Viewer)
	require.ErrorIs(t, err, members.ErrRoleForbidden, "an owner invites into their own studio only")
	m, err := b.svc.ChangeRole(b.ctx, owner, viewer.Member.ID, members.Developer)
	require.NoError(t, err)
	require.Equal(t, members.Developer, m.Role)
	p, err := b.svc.Authenticate(b.ctx, mustSession(t, b, "viewer@studio.example"))
	require.NoError(t, err)
	require.Equal(t, members.Developer, p.Role)
	require.NoError(t, b.svc.Remove(b.ctx, owner, inv.Member.ID), "an invitation can be withdrawn")
	_, err = b.svc.ChangeRole(b.ctx, owner, viewer.Member.ID, members.Role("ADMIN"))
	require.ErrorIs(t, err, errs.ErrInvalid)
}

func mustSession(t *testing.T, b bundle, email string) string {
	t.Helper()
	s, _ := b.signIn(t, email, "")
	return s.Token
}

func TestAnotherStudiosMembersAndTokensAreNotFound(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	other := uuid.New()
	stranger := b.member(t, other, "stranger@elsewhere.example", members.Owner)
	_, sp := b.signIn(t, "stranger@elsewhere.example", "")
	theirs, err := b.svc.CreateToken(b.ctx, sp, "theirs", members.Viewer, 10)
	require.NoError(t, err)

	_, err = b.svc.ChangeRole(b.ctx, owner, stranger.ID, members.Viewer)
	require.ErrorIs(t, err, members.ErrMemberNotFound)
	require.ErrorIs(t, b.svc.Remove(b.ctx, owner, stranger.ID), members.ErrMemberNotFound)
	require.ErrorIs(t, b.svc.Remove(b.ctx, owner, uuid.New()), members.ErrMemberNotFound)
	require.ErrorIs(t, b.svc.RevokeToken(b.ctx, owner, theirs.ID), members.ErrTokenNotFound)
	require.ErrorIs(t, b.svc.RevokeToken(b.ctx, owner, uuid.New()), members.ErrTokenNotFound)
	list, err := b.svc.ListTokens(b.ctx, owner)
	require.NoError(t, err)
	require.Empty(t, list)
	_, err = b.svc.Authenticate(b.ctx, theirs.Secret)
	require.NoError(t, err, "untouched")
}

func TestTheLastOwnerStays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	_, err := b.svc.Invite(b.ctx, b.studio, &owner, "invited-owner@studio.example", members.Owner)
	require.NoError(t, err)
	_, err = b.svc.ChangeRole(b.ctx, owner, owner.Member.ID, members.Developer)
	require.ErrorIs(t, err, members.ErrLastOwner, "an invited owner is not an owner yet")
	require.ErrorIs(t, b.svc.Remove(b.ctx, owner, owner.Member.ID), members.ErrLastOwner)
	e, _ := errs.As(members.ErrLastOwner)
	require.Equal(t, errs.Conflict, e.Kind)

	second := b.principal(t, "second@studio.example", members.Owner)
	_, err = b.svc.ChangeRole(b.ctx, second, owner.Member.ID, members.Viewer)
	require.NoError(t, err)
	require.ErrorIs(t, b.svc.Remove(b.ctx, second, second.Member.ID), members.ErrLastOwner)
	_, err = b.svc.ChangeRole(b.ctx, second, owner.Member.ID, members.Owner)
	require.NoError(t, err)
	require.NoError(t, b.svc.Remove(b.ctx, second, second.Member.ID), "with another owner, an owner may leave")
}

func TestTokensNeverOutrankTheirMaker(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	dev := b.principal(t, "dev@studio.example", members.Developer)
	viewer := b.principal(t, "viewer@studio.example", members.Viewer)

	for _, c := range []struct {
		p    members.Principal
		role members.Role
		err  error
	}{
		{owner, members.Owner, nil},
		{owner, members.Viewer, nil},
		{dev, members.Owner, members.ErrRoleForbidden},
		{dev, members.Developer, nil},
		{dev, members.Viewer, nil},
		{viewer, members.Viewer, members.ErrRoleForbidden},
	} {
		tok, err := b.svc.CreateToken(b.ctx, c.p, "t", c.role, 30)
		if c.err != nil {
			require.ErrorIs(t, err, c.err, "%s makes %s", c.p.Role, c.role)
			continue
		}
		require.NoError(t, err, "%s makes %s", c.p.Role, c.role)
		require.True(t, strings.HasPrefix(tok.Secret, "rst_"))
		require.Len(t, tok.Secret, 44)
		p, err := b.svc.Authenticate(b.ctx, tok.Secret)
		require.NoError(t, err)
		require.Equal(t, c.role, p.Role)
		require.Equal(t, c.p.Member.ID, p.Member.ID)
		require.Equal(t, tok.ID, *p.TokenID)
		require.Nil(t, p.SessionID)
	}
	for _, days := range []int{0, 366, -1} {
		_, err := b.svc.CreateToken(b.ctx, owner, "t", members.Viewer, days)
		require.ErrorIs(t, err, errs.ErrInvalid, "%d days", days)
	}
	_, err := b.svc.CreateToken(b.ctx, owner, " ", members.Viewer, 1)
	require.ErrorIs(t, err, errs.ErrInvalid)

	// A token made by a member who is demoted later acts with the member's new role at most.
	devOwnerish, err := b.svc.CreateToken(b.ctx, owner, "deploys", members.Owner, 1)
	require.NoError(t, err)
	_, err = b.svc.Authenticate(b.ctx, devOwnerish.Secret)
	require.NoError(t, err)
	second := b.principal(t, "second@studio.example", members.Owner)
	_, err = b.svc.ChangeRole(b.ctx, second, owner.Member.ID, members.Developer)
	require.NoError(t, err)
	p, err := b.svc.Authenticate(b.ctx, devOwnerish.Secret)
	require.NoError(t, err)
	require.Equal(t, members.Developer, p.Role, "at once, although it was cached")

	// Tokens expire after their days.
	b.clock.Advance(24*time.Hour - time.Second)
	_, err = b.svc.Authenticate(b.ctx, devOwnerish.Secret)
	require.NoError(t, err)
	b.clock.Advance(time.Second)
	_, err = b.svc.Authenticate(b.ctx, devOwnerish.Secret)
	require.ErrorIs(t, err, members.ErrUnauthenticated)
}

func TestRevokingTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	dev := b.principal(t, "dev@studio.example", members.Developer)
	viewer := b.principal(t, "viewer@studio.example", members.Viewer)
	ownerTok, err := b.svc.CreateToken(b.ctx, owner, "owner's", members.Owner, 30)
	require.NoError(t, err)
	b.clock.Advance(time.Second)
	devTok, err := b.svc.CreateToken(b.ctx, owner, "dev's", members.Developer, 30)
	require.NoError(t, err)

	list, err := b.svc.ListTokens(b.ctx, viewer)
	require.NoError(t, err, "a viewer reads the list")
	require.Len(t, list, 2)
	require.Equal(t, ownerTok.AccessToken, list[0])

	require.ErrorIs(t, b.svc.RevokeToken(b.ctx, viewer, devTok.ID), members.ErrRoleForbidden)
	require.ErrorIs(t, b.svc.RevokeToken(b.ctx, dev, ownerTok.ID), members.ErrRoleForbidden)
	_, err = b.svc.Authenticate(b.ctx, devTok.Secret)
	require.NoError(t, err)
	require.NoError(t, b.svc.RevokeToken(b.ctx, dev, devTok.ID))
	_, err = b.svc.Authenticate(b.ctx, devTok.Secret)
	require.ErrorIs(t, err, members.ErrUnauthenticated, "revoked at once, although it was cached")
	require.ErrorIs(t, b.svc.RevokeToken(b.ctx, owner, devTok.ID), members.ErrTokenNotFound)
	require.NoError(t, b.svc.RevokeToken(b.ctx, owner, ownerTok.ID))
}
