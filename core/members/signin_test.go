package members_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/members"
)

// The hash count is the sign-in's time: an unknown email costs the same argon2id hash as a
// wrong password. Not parallel: it swaps the package's hash function.
func TestUnknownEmailHashesLikeAWrongPassword(t *testing.T) {
	b := setup(t)
	b.member(t, b.studio, "ada@studio.example", members.Owner)
	b.member(t, b.studio, "ivy@studio.example", members.Viewer)
	_, err := b.svc.Invite(b.ctx, b.studio, nil, "invited@studio.example", members.Viewer)
	require.NoError(t, err)
	for _, email := range []string{"nobody@studio.example", "ada@studio.example", "invited@studio.example"} {
		n := members.CountHashes(func() {
			_, err := b.svc.SignIn(b.ctx, email, "wrong password!", "")
			require.ErrorIs(t, err, members.ErrSignInFailed)
		})
		require.Equal(t, 1, n, "%s: one argon2id hash", email)
	}
	n := members.CountHashes(func() { b.signIn(t, "ivy@studio.example", "") })
	require.Equal(t, 1, n)
}

func TestEveryRefusedSignInLooksTheSame(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.member(t, b.studio, "ada@studio.example", members.Owner)
	_, p := b.signIn(t, "ada@studio.example", "")
	setup, err := b.svc.BeginTOTP(b.ctx, p)
	require.NoError(t, err)
	require.NoError(t, b.svc.ConfirmTOTP(b.ctx, p, b.code(t, setup.Secret)))

	refusals := map[string]error{}
	_, refusals["unknown email"] = b.svc.SignIn(b.ctx, "nobody@studio.example", password, b.code(t, setup.Secret))
	_, refusals["wrong password"] = b.svc.SignIn(b.ctx, "ada@studio.example", password+"x", b.code(t, setup.Secret))
	_, refusals["missing code"] = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	wrong := "000000"
	if b.code(t, setup.Secret) == wrong {
		wrong = "111111"
	}
	_, refusals["wrong code"] = b.svc.SignIn(b.ctx, "ada@studio.example", password, wrong)
	for why, err := range refusals {
		e, ok := errs.As(err)
		require.True(t, ok, why)
		require.Equal(t, *members.ErrSignInFailed, *e, "%s: the same kind, code and message", why)
	}
	s, err := b.svc.SignIn(b.ctx, "ADA@studio.example", password, b.code(t, setup.Secret))
	require.NoError(t, err, "emails compare case-insensitively")
	require.True(t, strings.HasPrefix(s.Token, "rss_"))
	require.Len(t, s.Token, 4+43)
}

func TestTheSixthFailureIsThrottled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.member(t, b.studio, "ada@studio.example", members.Owner)
	for i := range members.MaxFailures {
		_, err := b.svc.SignIn(b.ctx, []string{"ada@studio.example", "Ada@Studio.Example"}[i%2], "wrong password!", "")
		require.ErrorIs(t, err, members.ErrSignInFailed, "failure %d", i+1)
		b.clock.Advance(time.Minute)
	}
	// Five failures at 0..4 min; now is 5 min: the first leaves the window at 15 min.
	_, err := b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrTooManyAttempts, "the sixth attempt is refused, right password or not")
	e, _ := errs.As(err)
	require.Equal(t, 10*time.Minute, e.RetryAfter)
	require.Equal(t, errs.RateLimited, e.Kind)

	b.clock.Advance(10*time.Minute - time.Second)
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrTooManyAttempts)
	b.clock.Advance(time.Second)
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.NoError(t, err, "once the oldest failure left the window")

	// A success forgets the failures: five more before the next refusal.
	for i := range members.MaxFailures {
		_, err := b.svc.SignIn(b.ctx, "ada@studio.example", "wrong password!", "")
		require.ErrorIs(t, err, members.ErrSignInFailed, "failure %d after a success", i+1)
	}
	_, err = b.svc.SignIn(b.ctx, "ada@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrTooManyAttempts)
}

func TestUnknownEmailsAreThrottledToo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for range members.MaxFailures {
		_, err := b.svc.SignIn(b.ctx, "nobody@studio.example", password, "")
		require.ErrorIs(t, err, members.ErrSignInFailed)
	}
	_, err := b.svc.SignIn(b.ctx, "nobody@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrTooManyAttempts, "else the 429 would tell a known email from an unknown one")
	_, err = b.svc.SignIn(b.ctx, "other@studio.example", password, "")
	require.ErrorIs(t, err, members.ErrSignInFailed, "counted per email")
}

func TestPasswordLength(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, c := range []struct {
		password string
		ok       bool
	}{
		{strings.Repeat("a", 11), false},
		{strings.Repeat("a", 12), true},
		{strings.Repeat("é", 128), true},
		{strings.Repeat("a", 129), false},
	} {
		email := "m" + string(rune('a'+len(c.password)%26)) + strings.Repeat("x", len(c.password)%7) + "@studio.example"
		_, err := b.svc.Invite(b.ctx, b.studio, nil, email, members.Viewer)
		require.NoError(t, err)
		_, err = b.svc.AcceptInvite(b.ctx, b.inbox.link(t, email, "/console/invite/"), "M", c.password)
		if c.ok {
			require.NoError(t, err, "%d characters", len([]rune(c.password)))
		} else {
			require.ErrorIs(t, err, errs.ErrInvalid, "%d characters", len([]rune(c.password)))
		}
	}
}
