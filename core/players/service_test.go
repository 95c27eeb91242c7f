package players_test

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/players/playersfake"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

const (
	phone    = "+919876543210"
	tokenTTL = time.Hour
)

var tokenKey = []byte("token-key-for-tests-0123456789ab")

// clock is a controlled Config.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// sender is an OTPSender that keeps every message.
type sender struct {
	mu   sync.Mutex
	sent map[string][]string // messages by phone
}

func (s *sender) SendOTP(_ context.Context, phone, message string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent[phone] = append(s.sent[phone], message)
	return nil
}

func (s *sender) count(phone string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sent[phone])
}

// lastCode is the code of the last message sent to phone.
func (s *sender) lastCode(t *testing.T, phone string) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	msgs := s.sent[phone]
	require.NotEmpty(t, msgs, "no code was sent to %s", phone)
	code, _, ok := strings.Cut(msgs[len(msgs)-1], " is your login code.")
	require.True(t, ok, "message %q", msgs[len(msgs)-1])
	require.Len(t, code, players.OTPDigits)
	return code
}

type bundle struct {
	svc    *players.Service
	audit  *auditfake.Repo
	clock  *clock
	sms    *sender
	caller studio.Caller
}

// setup builds the service on the fakes; opts change its Config.
func setup(t *testing.T, opts ...func(*players.Config)) *bundle {
	t.Helper()
	ctx := context.Background()
	runner := &memstore.Runner{}
	games := studiofake.New()
	s, err := games.CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	g, err := games.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Tower Tactics"})
	require.NoError(t, err)

	b := &bundle{
		clock:  &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)},
		sms:    &sender{sent: map[string][]string{}},
		caller: studio.Caller{GameID: g.ID, StudioID: s.ID, GameName: g.Name, Environment: studio.Test},
	}
	var log *audit.Log
	log, b.audit = auditfake.NewLog(runner, games)
	cfg := players.Config{
		TokenKey: tokenKey, OTPKey: []byte("otp-key"), TokenTTL: tokenTTL, Sender: b.sms, Now: b.clock.Now, Audit: log,
	}
	for _, o := range opts {
		o(&cfg)
	}
	b.svc = players.NewService(runner, memstore.New[players.Repo](runner, playersfake.New()),
		memstore.New[studio.Repo](runner, games), cfg)
	return b
}

// requestCode asks for a code for phone and returns it.
func (b *bundle) requestCode(t *testing.T, phone string) string {
	t.Helper()
	sent, err := b.svc.RequestOTP(context.Background(), b.caller, phone)
	require.NoError(t, err)
	require.Equal(t, players.OTPSent{ExpiresIn: players.OTPLifetime, ResendAfter: players.OTPResendGap}, sent)
	return b.sms.lastCode(t, phone)
}

func (b *bundle) login(code string) (players.Token, error) {
	return b.svc.Login(context.Background(), b.caller, phone, code)
}

// failLogins makes n logins with a wrong code, each refused as invalid.
func (b *bundle) failLogins(t *testing.T, right string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		_, err := b.login(wrong(right))
		require.ErrorIs(t, err, players.ErrOTPInvalid, "wrong try %d", i+1)
	}
}

// wrong is a code that is not code.
func wrong(code string) string {
	if code == "000000" {
		return "111111"
	}
	return "000000"
}

// retryAfter is the RetryAfter of err's coded error.
func retryAfter(t *testing.T, err error) time.Duration {
	t.Helper()
	e, ok := errs.As(err)
	require.True(t, ok, "%v is not a coded error", err)
	require.Equal(t, errs.RateLimited, e.Kind)
	return e.RetryAfter
}

func TestRequestOTPResendGap(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.requestCode(t, phone)

	_, err := b.svc.RequestOTP(context.Background(), b.caller, phone)
	require.ErrorIs(t, err, players.ErrOTPResendTooSoon)
	require.Equal(t, players.OTPResendGap, retryAfter(t, err))

	b.clock.Advance(10 * time.Second)
	_, err = b.svc.RequestOTP(context.Background(), b.caller, phone)
	require.ErrorIs(t, err, players.ErrOTPResendTooSoon)
	require.Equal(t, 20*time.Second, retryAfter(t, err), "the wait counts down")
	require.Equal(t, 1, b.sms.count(phone), "a refused request sends nothing")

	b.requestCode(t, "+14155550123") // another phone is not held back
	b.clock.Advance(20 * time.Second)
	b.requestCode(t, phone)
	require.Equal(t, 2, b.sms.count(phone))
}

func TestRequestOTPHourlySends(t *testing.T) {
	t.Parallel()
	b := setup(t)
	gap := players.OTPResendGap + time.Second
	for i := 0; i < players.OTPMaxSendsHour; i++ {
		b.requestCode(t, phone)
		b.clock.Advance(gap)
	}
	_, err := b.svc.RequestOTP(context.Background(), b.caller, phone)
	require.ErrorIs(t, err, players.ErrOTPRateLimited)
	elapsed := players.OTPMaxSendsHour * gap
	require.Equal(t, time.Hour-elapsed, retryAfter(t, err), "until the first send leaves the hour")
	require.Equal(t, players.OTPMaxSendsHour, b.sms.count(phone))

	b.clock.Advance(time.Hour - elapsed + time.Second)
	b.requestCode(t, phone)
}

func TestRequestOTPRefusesBadPhone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, p := range []string{"", "9876543210", "+0123456789", "+91 98765 43210", "+1234567"} {
		_, err := b.svc.RequestOTP(context.Background(), b.caller, p)
		require.ErrorIs(t, err, errs.ErrInvalid, "phone %q", p)
	}
}

func TestLoginRules(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// prepare requests codes and makes earlier attempts; it returns the code to log in with.
		prepare func(t *testing.T, b *bundle) string
		want    error
	}{
		{name: "right code", want: nil, prepare: func(t *testing.T, b *bundle) string {
			return b.requestCode(t, phone)
		}},
		{name: "no code requested", want: players.ErrOTPInvalid, prepare: func(*testing.T, *bundle) string {
			return "123456"
		}},
		{name: "wrong code", want: players.ErrOTPInvalid, prepare: func(t *testing.T, b *bundle) string {
			return wrong(b.requestCode(t, phone))
		}},
		{name: "code of another game's phone", want: players.ErrOTPInvalid, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			b.caller.GameID = uuid.New()
			return code
		}},
		{name: "used code", want: players.ErrOTPUsed, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			_, err := b.login(code)
			require.NoError(t, err)
			return code
		}},
		{name: "just before expiry", want: nil, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			b.clock.Advance(players.OTPLifetime - time.Second)
			return code
		}},
		{name: "expired after five minutes", want: players.ErrOTPExpired, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			b.clock.Advance(players.OTPLifetime)
			return code
		}},
		{name: "four wrong tries leave the code alive", want: nil, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			b.failLogins(t, code, players.OTPMaxAttempts-1)
			return code
		}},
		{name: "five wrong tries kill the code", want: players.ErrOTPExhausted, prepare: func(t *testing.T, b *bundle) string {
			code := b.requestCode(t, phone)
			b.failLogins(t, code, players.OTPMaxAttempts)
			return code
		}},
		{name: "ten failed checks an hour lock the phone", want: players.ErrOTPRateLimited, prepare: func(t *testing.T, b *bundle) string {
			for i := 0; i < players.OTPMaxFailureHour/players.OTPMaxAttempts; i++ {
				b.failLogins(t, b.requestCode(t, phone), players.OTPMaxAttempts)
				b.clock.Advance(players.OTPResendGap)
			}
			return b.requestCode(t, phone)
		}},
		{name: "failed checks leave the hour", want: nil, prepare: func(t *testing.T, b *bundle) string {
			for i := 0; i < players.OTPMaxFailureHour/players.OTPMaxAttempts; i++ {
				b.failLogins(t, b.requestCode(t, phone), players.OTPMaxAttempts)
				b.clock.Advance(players.OTPResendGap)
			}
			b.clock.Advance(time.Hour)
			return b.requestCode(t, phone)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			code := tc.prepare(t, b)
			tok, err := b.login(code)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				require.Empty(t, tok.AccessToken)
				if tc.want == players.ErrOTPRateLimited {
					require.Equal(t, time.Hour, retryAfter(t, err))
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, tokenTTL, tok.ExpiresIn)
			p, err := b.svc.Authenticate(context.Background(), b.caller, tok.AccessToken, "")
			require.NoError(t, err)
			require.NotNil(t, p.Phone)
			require.Equal(t, phone, *p.Phone, "the first login of a phone creates its player")
			require.Nil(t, p.UUID)
		})
	}
}

func TestLoginKeepsOnePlayerPerPhone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	tok1, err := b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	b.clock.Advance(players.OTPResendGap)
	tok2, err := b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	p1, err := b.svc.Authenticate(ctx, b.caller, tok1.AccessToken, "")
	require.NoError(t, err)
	p2, err := b.svc.Authenticate(ctx, b.caller, tok2.AccessToken, "")
	require.NoError(t, err)
	require.Equal(t, p1.ID, p2.ID)
}

// sign makes a token as the service does, with key.
func sign(t *testing.T, key []byte, player, game uuid.UUID, env studio.Environment, exp time.Time) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"gid": game.String(), "env": string(env), "iss": "rewards", "sub": player.String(), "exp": exp.Unix(),
	}).SignedString(key)
	require.NoError(t, err)
	return tok
}

func TestAuthenticateTokens(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// token and caller change the token and caller of the request; nil keeps them.
		token    func(t *testing.T, b *bundle, tok string, p players.Player) string
		caller   func(c studio.Caller) studio.Caller
		gameUUID string
		wait     time.Duration
		want     error
	}{
		{name: "valid"},
		{name: "valid with the player's x-game-uuid", gameUUID: "hero-1"},
		{name: "a token from the service's own key", token: func(t *testing.T, b *bundle, _ string, p players.Player) string {
			return sign(t, tokenKey, p.ID, b.caller.GameID, b.caller.Environment, b.clock.Now().Add(time.Minute))
		}},
		{name: "missing", want: players.ErrTokenMissing, token: func(*testing.T, *bundle, string, players.Player) string { return "" }},
		{name: "x-game-uuid of another player", gameUUID: "hero-2", want: players.ErrPlayerMismatch},
		{name: "another game", want: players.ErrTokenOtherGame, caller: func(c studio.Caller) studio.Caller {
			c.GameID = uuid.New()
			return c
		}},
		{name: "another environment", want: players.ErrTokenOtherGame, caller: func(c studio.Caller) studio.Caller {
			c.Environment = studio.Live
			return c
		}},
		{name: "tampered", want: players.ErrTokenInvalid, token: func(t *testing.T, _ *bundle, tok string, p players.Player) string {
			// The claims now name another player; the signature is the original one.
			parts := strings.Split(tok, ".")
			require.Len(t, parts, 3)
			claims, err := base64.RawURLEncoding.DecodeString(parts[1])
			require.NoError(t, err)
			forged := strings.Replace(string(claims), p.ID.String(), uuid.NewString(), 1)
			require.NotEqual(t, string(claims), forged)
			return parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(forged)) + "." + parts[2]
		}},
		{name: "signed with another key", want: players.ErrTokenInvalid, token: func(t *testing.T, b *bundle, _ string, p players.Player) string {
			return sign(t, []byte("another-key"), p.ID, b.caller.GameID, b.caller.Environment, b.clock.Now().Add(time.Minute))
		}},
		{name: "unknown player", want: players.ErrTokenInvalid, token: func(t *testing.T, b *bundle, _ string, _ players.Player) string {
			return sign(t, tokenKey, uuid.New(), b.caller.GameID, b.caller.Environment, b.clock.Now().Add(time.Minute))
		}},
		{name: "garbage", want: players.ErrTokenInvalid, token: func(*testing.T, *bundle, string, players.Player) string { return "not.a.token" }},
		{name: "just before expiry", wait: tokenTTL - time.Second},
		{name: "expired", wait: tokenTTL + time.Second, want: players.ErrTokenInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx := context.Background()
			created, err := b.svc.CreateWithUUID(ctx, b.caller, "hero-1")
			require.NoError(t, err)
			require.True(t, created.Created)
			_, err = b.svc.CreateWithUUID(ctx, b.caller, "hero-2")
			require.NoError(t, err)
			tok, err := b.svc.FederatedLogin(ctx, b.caller, "hero-1")
			require.NoError(t, err)

			raw := tok.AccessToken
			if tc.token != nil {
				raw = tc.token(t, b, raw, created.Player)
			}
			caller := b.caller
			if tc.caller != nil {
				caller = tc.caller(caller)
			}
			b.clock.Advance(tc.wait)
			p, err := b.svc.Authenticate(ctx, caller, raw, tc.gameUUID)
			if tc.want != nil {
				require.ErrorIs(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, created.ID, p.ID)
		})
	}
}

// A token verified once is kept for the player's next requests, but never past its expiry, by
// the service's clock, nor past a not-before time it carries.
func TestAuthenticateKeepsATokenUntilItExpires(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	created, err := b.svc.CreateWithUUID(ctx, b.caller, "hero-1")
	require.NoError(t, err)
	tok, err := b.svc.FederatedLogin(ctx, b.caller, "hero-1")
	require.NoError(t, err)

	for _, wait := range []time.Duration{0, 0, tokenTTL - time.Second} {
		b.clock.Advance(wait)
		p, err := b.svc.Authenticate(ctx, b.caller, tok.AccessToken, "")
		require.NoError(t, err)
		require.Equal(t, created.ID, p.ID)
	}
	b.clock.Advance(time.Second)
	_, err = b.svc.Authenticate(ctx, b.caller, tok.AccessToken, "")
	require.ErrorIs(t, err, players.ErrTokenInvalid, "expired, though verified a moment before")

	// A not-before time is checked at every request, never taken from an earlier one.
	early, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"gid": b.caller.GameID.String(), "env": string(b.caller.Environment), "iss": "rewards", "sub": created.ID.String(),
		"exp": b.clock.Now().Add(time.Hour).Unix(), "nbf": b.clock.Now().Add(time.Minute).Unix(),
	}).SignedString(tokenKey)
	require.NoError(t, err)
	b.clock.Advance(2 * time.Minute)
	_, err = b.svc.Authenticate(ctx, b.caller, early, "")
	require.NoError(t, err)
	b.clock.Advance(-2 * time.Minute)
	_, err = b.svc.Authenticate(ctx, b.caller, early, "")
	require.ErrorIs(t, err, players.ErrTokenInvalid, "not valid yet")
}

func TestPhonePlayerHasNoGameUUID(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tok, err := b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	_, err = b.svc.Authenticate(context.Background(), b.caller, tok.AccessToken, "hero-1")
	require.ErrorIs(t, err, players.ErrPlayerMismatch)
}

func TestDisabledPlayerIsLockedOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	// A player the studio knows by uuid.
	hero, err := b.svc.CreateWithUUID(ctx, b.caller, "hero-1")
	require.NoError(t, err)
	heroTok, err := b.svc.FederatedLogin(ctx, b.caller, "hero-1")
	require.NoError(t, err)
	// A player who logs in by phone, with a fresh code requested before it is disabled.
	phoneTok, err := b.login(b.requestCode(t, phone))
	require.NoError(t, err)
	byPhone, err := b.svc.Authenticate(ctx, b.caller, phoneTok.AccessToken, "")
	require.NoError(t, err)
	b.clock.Advance(players.OTPResendGap)
	pending := b.requestCode(t, phone)
	// A bystander.
	_, err = b.svc.CreateWithUUID(ctx, b.caller, "hero-2")
	require.NoError(t, err)

	for _, p := range []players.Player{hero.Player, byPhone} {
		disabled, err := b.svc.Disable(ctx, p)
		require.NoError(t, err)
		require.True(t, disabled.IsBlocked)
	}

	for _, tok := range []string{heroTok.AccessToken, phoneTok.AccessToken} {
		_, err = b.svc.Authenticate(ctx, b.caller, tok, "")
		require.ErrorIs(t, err, players.ErrPlayerDisabled, "issued tokens stop working")
	}
	_, err = b.svc.FederatedLogin(ctx, b.caller, "hero-1")
	require.ErrorIs(t, err, players.ErrPlayerDisabled)
	_, err = b.login(pending)
	require.ErrorIs(t, err, players.ErrPlayerDisabled, "a code sent before disabling logs no one in")
	b.clock.Advance(players.OTPResendGap)
	_, err = b.svc.RequestOTP(ctx, b.caller, phone)
	require.ErrorIs(t, err, players.ErrPlayerDisabled)
	require.Equal(t, 2, b.sms.count(phone), "no code is sent to a disabled player")

	_, err = b.svc.FederatedLogin(ctx, b.caller, "hero-2")
	require.NoError(t, err, "other players are not affected")
}

func TestChangeStoreSettings(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	off, on, page := false, true, "gcommerce"

	missing := uuid.New()
	_, err := b.svc.ChangeStoreSettings(ctx, missing, players.SettingsChange{RewardsEnabled: &off, Theme: []byte(`{"x":1}`)})
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	got, err := b.svc.StoreSettings(ctx, missing)
	require.NoError(t, err)
	require.Equal(t, players.DefaultStoreSettings, got, "nothing was saved for the unknown game")

	got, err = b.svc.StoreSettings(ctx, b.caller.GameID)
	require.NoError(t, err)
	require.Equal(t, players.DefaultStoreSettings, got, "a game starts with the defaults")

	got, err = b.svc.ChangeStoreSettings(ctx, b.caller.GameID, players.SettingsChange{GcommerceEnabled: &on, Theme: []byte(`{"accent":"#ff0"}`)})
	require.NoError(t, err)
	want := players.StoreSettings{RewardsEnabled: true, GcommerceEnabled: true, DefaultLandingPage: "rewards", Theme: []byte(`{"accent":"#ff0"}`)}
	require.Equal(t, want, got)

	got, err = b.svc.ChangeStoreSettings(ctx, b.caller.GameID, players.SettingsChange{DefaultLandingPage: &page})
	require.NoError(t, err)
	want.DefaultLandingPage = page
	require.Equal(t, want, got, "fields left out keep their values")
	got, err = b.svc.StoreSettings(ctx, b.caller.GameID)
	require.NoError(t, err)
	require.Equal(t, want, got)

	for _, theme := range []string{`[1]`, `null`, `"dark"`, `{`} {
		_, err = b.svc.ChangeStoreSettings(ctx, b.caller.GameID, players.SettingsChange{RewardsEnabled: &off, Theme: []byte(theme)})
		require.ErrorIs(t, err, errs.ErrInvalid, "theme %s", theme)
	}
	got, err = b.svc.StoreSettings(ctx, b.caller.GameID)
	require.NoError(t, err)
	require.Equal(t, want, got, "refused changes change nothing")

	// Each change is audited with the actor of the context; the unknown game's and the refused
	// ones wrote nothing.
	entries := b.audit.Entries()
	require.Len(t, entries, 2)
	require.Equal(t, "store_settings.change", entries[0].Action)
	require.Equal(t, b.caller.StudioID, entries[0].StudioID)
	require.Equal(t, b.caller.GameID, *entries[0].GameID)
	require.Equal(t, map[string]string{"gcommerceEnabled": "true", "theme": "changed"}, entries[0].Details)
	require.Equal(t, map[string]string{"defaultLandingPage": "gcommerce"}, entries[1].Details)
	require.Equal(t, audit.System, entries[1].Actor.Kind)
}
