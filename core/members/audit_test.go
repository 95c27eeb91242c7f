package members_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/members"
)

// Every change writes its entry, with who made it, and no entry holds a secret.
func TestEveryChangeIsAuditedWithoutSecrets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := audit.WithActor(b.ctx, audit.Actor{Kind: audit.Operator, Name: "operator", IP: "10.0.0.1"})
	inv, err := b.svc.Invite(ctx, b.studio, nil, "owner@studio.example", members.Owner)
	require.NoError(t, err)
	secrets := []string{inv.URL[strings.LastIndex(inv.URL, "/")+1:], password}
	_, err = b.svc.AcceptInvite(b.ctx, secrets[0], "Owner", password)
	require.NoError(t, err)
	session, owner := b.signIn(t, "owner@studio.example", "")
	secrets = append(secrets, session.Token)

	dev, err := b.svc.Invite(b.ctx, b.studio, &owner, "dev@studio.example", members.Viewer)
	require.NoError(t, err)
	secrets = append(secrets, dev.URL[strings.LastIndex(dev.URL, "/")+1:])
	_, err = b.svc.ChangeRole(b.ctx, owner, dev.Member.ID, members.Developer)
	require.NoError(t, err)
	tok, err := b.svc.CreateToken(b.ctx, owner, "ci", members.Developer, 30)
	require.NoError(t, err)
	secrets = append(secrets, tok.Secret)
	require.NoError(t, b.svc.RevokeToken(b.ctx, owner, tok.ID))
	setup, err := b.svc.BeginTOTP(b.ctx, owner)
	require.NoError(t, err)
	secrets = append(secrets, setup.Secret)
	require.NoError(t, b.svc.ConfirmTOTP(b.ctx, owner, b.code(t, setup.Secret)))
	require.NoError(t, b.svc.DisableTOTP(b.ctx, owner, b.code(t, setup.Secret)))
	require.NoError(t, b.svc.RequireTOTP(b.ctx, owner, true))
	require.NoError(t, b.svc.RequireTOTP(b.ctx, owner, false))
	require.NoError(t, b.svc.RequestReset(b.ctx, "owner@studio.example"))
	reset := b.inbox.link(t, "owner@studio.example", "/console/reset/")
	secrets = append(secrets, reset, "a new password!")
	require.NoError(t, b.svc.ResetPassword(b.ctx, reset, "a new password!"))
	_, owner = b.signIn2(t, "owner@studio.example", "a new password!")
	require.NoError(t, b.svc.SignOutEverywhere(b.ctx, owner))
	require.NoError(t, b.svc.Remove(b.ctx, owner, dev.Member.ID))

	es := b.entries(t, b.studio)
	require.Equal(t, []string{"member.invite", "member.accept", "member.invite", "member.role_change", "token.create",
		"token.revoke", "totp.enable", "totp.disable", "studio.require_totp", "studio.require_totp",
		"member.password_reset", "session.end_all", "member.remove"}, actions(es))

	require.Equal(t, audit.Operator, es[0].Actor.Kind, "the operator's invitation")
	require.Equal(t, "10.0.0.1", es[0].Actor.IP)
	require.Equal(t, map[string]string{"email": "owner@studio.example", "role": "OWNER"}, es[0].Details)
	require.Equal(t, audit.Member, es[1].Actor.Kind, "the member accepts for themselves")
	require.Equal(t, owner.Member.ID, *es[1].Actor.ID)
	require.Equal(t, "owner@studio.example", es[2].Actor.Name, "an owner's invitation")
	require.Equal(t, dev.Member.ID.String(), es[3].TargetID)
	require.Equal(t, map[string]string{"email": "dev@studio.example", "from": "VIEWER", "to": "DEVELOPER"}, es[3].Details)
	require.Equal(t, tok.ID.String(), es[4].TargetID)
	require.Equal(t, "true", es[8].Details["required"])

	for _, e := range es {
		require.Equal(t, b.studio, e.StudioID)
		all := e.Action + e.TargetID + e.Actor.Name
		for k, v := range e.Details {
			all += k + v
		}
		for _, s := range secrets {
			require.NotContains(t, all, s, "%s holds a secret", e.Action)
		}
	}
}

func (b bundle) signIn2(t *testing.T, email, pw string) (members.Session, members.Principal) {
	t.Helper()
	s, err := b.svc.SignIn(b.ctx, email, pw, "")
	require.NoError(t, err)
	p, err := b.svc.Authenticate(b.ctx, s.Token)
	require.NoError(t, err)
	return s, p
}

func TestARefusedChangeLeavesNoEntry(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	before := len(b.entries(t, b.studio))
	_, err := b.svc.ChangeRole(b.ctx, owner, owner.Member.ID, members.Viewer)
	require.ErrorIs(t, err, members.ErrLastOwner)
	require.Len(t, b.entries(t, b.studio), before)
}

func TestNotifyOwnersEmailsActiveOwners(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	b.member(t, b.studio, "dev@studio.example", members.Developer)
	_, err := b.svc.Invite(b.ctx, b.studio, &owner, "invited@studio.example", members.Owner)
	require.NoError(t, err)
	require.NoError(t, b.svc.NotifyOwners(b.ctx, b.studio, "Webhook disabled", "It failed for 5 days."))
	for email, want := range map[string]int{"owner@studio.example": 2, "dev@studio.example": 1, "invited@studio.example": 1} {
		require.Len(t, b.inbox.to(email), want, email) // the invitation, and the notice for the owner
	}
	last := b.inbox.to("owner@studio.example")[1]
	require.Equal(t, "Webhook disabled", last.Subject)
}
