package members_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
)

func TestTOTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	p := b.principal(t, "ada@studio.example", members.Owner)
	err := b.svc.ConfirmTOTP(b.ctx, p, "123456")
	require.ErrorIs(t, err, members.ErrTOTPInvalid, "nothing to confirm yet")

	setup, err := b.svc.BeginTOTP(b.ctx, p)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(setup.URL, "otpauth://totp/"))
	require.Contains(t, setup.URL, setup.Secret)
	wrong := "000000"
	if b.code(t, setup.Secret) == wrong {
		wrong = "111111"
	}
	require.ErrorIs(t, b.svc.ConfirmTOTP(b.ctx, p, wrong), members.ErrTOTPInvalid)
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.NoError(t, err, "not on until confirmed")

	require.NoError(t, b.svc.ConfirmTOTP(b.ctx, p, b.code(t, setup.Secret)))
	p, err = b.svc.Authenticate(b.ctx, mustSessionCode(t, b, "ada@studio.example", b.code(t, setup.Secret)))
	require.NoError(t, err)
	require.True(t, p.Member.TOTPEnabled)
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrSignInFailed)
	_, err = b.svc.BeginTOTP(b.ctx, p)
	require.ErrorIs(t, err, errs.ErrInvalid, "on already")

	b.clock.Advance(30 * time.Second) // the next code
	require.ErrorIs(t, b.svc.DisableTOTP(b.ctx, p, wrong), members.ErrTOTPInvalid)
	require.NoError(t, b.svc.DisableTOTP(b.ctx, p, b.code(t, setup.Secret)))
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.NoError(t, err)
}

func mustSessionCode(t *testing.T, b bundle, email, code string) string {
	t.Helper()
	s, _ := b.signIn(t, email, code)
	return s.Token
}

func TestAStudioCanRequireTOTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.principal(t, "owner@studio.example", members.Owner)
	b.member(t, b.studio, "dev@studio.example", members.Developer)
	devSession, dev := b.signIn(t, "dev@studio.example", "")
	tok, err := b.svc.CreateToken(b.ctx, dev, "ci", members.Developer, 30)
	require.NoError(t, err)
	require.False(t, dev.MustSetUpTOTP)

	require.NoError(t, b.svc.RequireTOTP(b.ctx, owner, true))
	on, err := b.svc.TOTPRequired(b.ctx, b.studio)
	require.NoError(t, err)
	require.True(t, on)
	dev, err = b.svc.Authenticate(b.ctx, devSession.Token)
	require.NoError(t, err)
	require.True(t, dev.MustSetUpTOTP, "at once, although the session was cached")
	require.ErrorIs(t, dev.Require(members.Viewer), members.ErrTOTPSetupRequired)
	_, err = b.svc.CreateToken(b.ctx, dev, "more", members.Viewer, 1)
	require.ErrorIs(t, err, members.ErrTOTPSetupRequired)
	_, p := b.signIn(t, "dev@studio.example", "")
	require.True(t, p.MustSetUpTOTP, "signed in only to set TOTP up")

	setup, err := b.svc.BeginTOTP(b.ctx, dev)
	require.NoError(t, err, "allowed while TOTP must be set up")
	require.NoError(t, b.svc.ConfirmTOTP(b.ctx, dev, b.code(t, setup.Secret)))
	dev, err = b.svc.Authenticate(b.ctx, devSession.Token)
	require.NoError(t, err)
	require.False(t, dev.MustSetUpTOTP)
	require.NoError(t, dev.Require(members.Developer))
	require.ErrorIs(t, b.svc.DisableTOTP(b.ctx, dev, b.code(t, setup.Secret)), errs.ErrInvalid, "required by the studio")

	tp, err := b.svc.Authenticate(b.ctx, tok.Secret)
	require.NoError(t, err)
	require.False(t, tp.MustSetUpTOTP, "an access token is not a person signing in")
	_, err = b.svc.BeginTOTP(b.ctx, tp)
	require.ErrorIs(t, err, members.ErrRoleForbidden)
}
