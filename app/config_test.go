package app_test

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/app"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestDevelopmentDefaults(t *testing.T) {
	t.Parallel()
	c, err := app.LoadConfig(env(nil))
	require.NoError(t, err)
	require.Equal(t, app.Development, c.Mode)
	require.Equal(t, ":8080", c.HTTPAddr)
	require.True(t, c.DemoSeed)
	require.Equal(t, "log", c.SMSProvider)
	require.Equal(t, []string{"live.localhost"}, c.LiveHosts)
	require.Equal(t, []string{"localhost", "127.0.0.1", "::1", "dev.localhost"}, c.DevHosts)
	require.Equal(t, []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour}, c.WebhookRetryDelays)
	require.Equal(t, 168*time.Hour, c.PlayerTokenTTL)
}

func TestProductionRefusesLocalDefaults(t *testing.T) {
	t.Parallel()
	_, err := app.LoadConfig(env(map[string]string{"REWARDS_MODE": "production"}))
	require.ErrorContains(t, err, "DATABASE_URL is required")
	require.ErrorContains(t, err, "REWARDS_ADMIN_TOKEN is required")
	require.ErrorContains(t, err, "REWARDS_SECRET_KEY is required")
	require.ErrorContains(t, err, "REWARDS_SMS_ACCOUNT_SID")
	require.ErrorContains(t, err, "REWARDS_SMTP_URL is required")
	require.ErrorContains(t, err, "REWARDS_MAIL_FROM is required")

	ok := map[string]string{
		"REWARDS_MODE": "production", "DATABASE_URL": "postgres://x", "REWARDS_ADMIN_TOKEN": "operator-token-of-at-least-32-characters",
		"REWARDS_SECRET_KEY": "0123456789abcdef0123456789abcdef", "REWARDS_SMS_ACCOUNT_SID": "AC1",
		"REWARDS_SMS_AUTH_TOKEN": "tok", "REWARDS_SMS_FROM": "+15550000000",
		"REWARDS_SMTP_URL": "smtps://mailer:pw@smtp.example.com", "REWARDS_MAIL_FROM": "Rewards <no-reply@example.com>",
	}
	c, err := app.LoadConfig(env(ok))
	require.NoError(t, err)
	require.False(t, c.DemoSeed)
	require.Equal(t, "twilio", c.SMSProvider)

	for _, k := range []string{"REWARDS_WEBHOOK_ALLOW_HTTP", "REWARDS_WEBHOOK_ALLOW_PRIVATE"} {
		bad := map[string]string{k: "true"}
		for kk, v := range ok {
			bad[kk] = v
		}
		_, err := app.LoadConfig(env(bad))
		require.ErrorContains(t, err, "development and tests only", k)
	}

	// Stripe keys of the wrong mode: a test key on live, a live key on test.
	with := func(extra map[string]string) error {
		m := map[string]string{}
		for k, v := range ok {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		_, err := app.LoadConfig(env(m))
		return err
	}
	require.ErrorContains(t, with(map[string]string{"REWARDS_STRIPE_SECRET_KEY": "sk_test_abc"}), "REWARDS_STRIPE_SECRET_KEY must be a live key")
	require.ErrorContains(t, with(map[string]string{"REWARDS_TEST_STRIPE_SECRET_KEY": "sk_live_abc"}), "REWARDS_TEST_STRIPE_SECRET_KEY must be a test key")
	require.NoError(t, with(map[string]string{"REWARDS_STRIPE_SECRET_KEY": "sk_live_abc", "REWARDS_TEST_STRIPE_SECRET_KEY": "sk_test_abc"}))
	require.NoError(t, with(map[string]string{"REWARDS_STRIPE_SECRET_KEY": "rk_live_abc", "REWARDS_TEST_STRIPE_SECRET_KEY": "rk_test_abc",
		"REWARDS_CURRENCY": "USD", "REWARDS_STRIPE_WEBHOOK_SECRET": "whsec_live", "REWARDS_TEST_STRIPE_WEBHOOK_SECRET": "whsec_test"}))

	// The selected provider's webhook secret is required wherever its credentials are set.
	require.ErrorContains(t, with(map[string]string{"REWARDS_CURRENCY": "USD", "REWARDS_STRIPE_SECRET_KEY": "sk_live_abc"}),
		"REWARDS_STRIPE_WEBHOOK_SECRET is required")
	require.ErrorContains(t, with(map[string]string{"REWARDS_CURRENCY": "USD", "REWARDS_STRIPE_SECRET_KEY": "sk_live_abc", "REWARDS_STRIPE_WEBHOOK_SECRET": "whsec_live",
		"REWARDS_TEST_STRIPE_SECRET_KEY": "sk_test_abc"}), "REWARDS_TEST_STRIPE_WEBHOOK_SECRET is required")
	require.ErrorContains(t, with(map[string]string{"REWARDS_CASHFREE_CLIENT_ID": "cf"}), "REWARDS_CASHFREE_CLIENT_SECRET is required")
	require.NoError(t, with(map[string]string{"REWARDS_CASHFREE_CLIENT_ID": "cf", "REWARDS_CASHFREE_CLIENT_SECRET": "s"}))
}

func TestBadValuesAreRefused(t *testing.T) {
	t.Parallel()
	for k, v := range map[string]string{
		"REWARDS_MODE":                 "staging",
		"REWARDS_CURRENCY":             "EUR",
		"REWARDS_WEBHOOK_RETRY_DELAYS": "1s,2s",
		"REWARDS_PLAYER_TOKEN_TTL":     "forever",
		"REWARDS_SECRET_KEY":           "short",
		"REWARDS_WEBHOOK_WORKERS":      "0",
		"REWARDS_SMS_PROVIDER":         "pigeon",
	} {
		_, err := app.LoadConfig(env(map[string]string{k: v}))
		require.ErrorContains(t, err, k, "%s=%s", k, v)
	}
}

// Production never writes email to the log: invitation and reset links are ways in. The
// console's email needs an SMTP server and a From address there; in development, without them,
// it is logged.
func TestProductionRefusesToLogEmail(t *testing.T) {
	t.Parallel()
	base := map[string]string{"REWARDS_MODE": "production", "DATABASE_URL": "postgres://db/rewards",
		"REWARDS_ADMIN_TOKEN": strings.Repeat("x", 32), "REWARDS_SECRET_KEY": "production-secret-key-0123456789abcdef",
		"REWARDS_SMS_ACCOUNT_SID": "AC1", "REWARDS_SMS_AUTH_TOKEN": "t", "REWARDS_SMS_FROM": "+15550001111",
		"REWARDS_SMTP_URL": "smtp://mailer:pw@smtp.example.com:587", "REWARDS_MAIL_FROM": "Rewards <no-reply@example.com>"}
	with := func(changes map[string]string) error {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range changes {
			m[k] = v
		}
		_, err := app.LoadConfig(env(m))
		return err
	}
	require.NoError(t, with(nil))
	require.ErrorContains(t, with(map[string]string{"REWARDS_SMTP_URL": ""}), "REWARDS_SMTP_URL is required in production mode")
	require.ErrorContains(t, with(map[string]string{"REWARDS_MAIL_FROM": ""}), "REWARDS_MAIL_FROM is required in production mode")

	// In development both may be left out; given, they are checked, and the URL never repeated.
	c, err := app.LoadConfig(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.SMTPURL)
	c, err = app.LoadConfig(env(map[string]string{"REWARDS_SMTP_URL": "smtp://fakes:2525", "REWARDS_MAIL_FROM": "no-reply@example.com"}))
	require.NoError(t, err)
	require.Equal(t, "smtp://fakes:2525", c.SMTPURL)
	require.Equal(t, "no-reply@example.com", c.MailFrom)
	for v, want := range map[string]string{
		"https://mailer:hunter2@smtp.example.com": "REWARDS_SMTP_URL must start smtp://",
		"smtp://mailer:hunter2@":                  "REWARDS_SMTP_URL names no host",
	} {
		_, err := app.LoadConfig(env(map[string]string{"REWARDS_SMTP_URL": v, "REWARDS_MAIL_FROM": "no-reply@example.com"}))
		require.ErrorContains(t, err, want)
		require.NotContains(t, err.Error(), "hunter2")
	}
	_, err = app.LoadConfig(env(map[string]string{"REWARDS_SMTP_URL": "smtp://fakes:2525"}))
	require.ErrorContains(t, err, "REWARDS_SMTP_URL needs REWARDS_MAIL_FROM")
	_, err = app.LoadConfig(env(map[string]string{"REWARDS_MAIL_FROM": "nobody"}))
	require.ErrorContains(t, err, "REWARDS_MAIL_FROM must be an email address")
}

// The README's configuration table is the operator's reference: it must name every variable.
func TestREADMEListsEverySetting(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	for _, s := range app.Settings {
		require.Contains(t, string(readme), "`"+s.Name+"`", "README.md's configuration table lacks %s", s.Name)
	}
}

// In production the operator token must be long enough to resist guessing.
func TestProductionNeedsALongOperatorToken(t *testing.T) {
	t.Parallel()
	base := map[string]string{"REWARDS_MODE": "production", "DATABASE_URL": "postgres://db/rewards",
		"REWARDS_SECRET_KEY": "production-secret-key-0123456789abcdef", "REWARDS_SMS_ACCOUNT_SID": "AC1",
		"REWARDS_SMS_AUTH_TOKEN": "t", "REWARDS_SMS_FROM": "+15550001111",
		"REWARDS_SMTP_URL": "smtp://smtp.example.com", "REWARDS_MAIL_FROM": "no-reply@example.com"}
	short := map[string]string{"REWARDS_ADMIN_TOKEN": "short-token"}
	for k, v := range base {
		short[k] = v
	}
	_, err := app.LoadConfig(env(short))
	require.ErrorContains(t, err, "REWARDS_ADMIN_TOKEN must be at least 32 characters in production mode")
	long := map[string]string{"REWARDS_ADMIN_TOKEN": strings.Repeat("x", 32)}
	for k, v := range base {
		long[k] = v
	}
	_, err = app.LoadConfig(env(long))
	require.NoError(t, err)
}

// REWARDS_PUBLIC_URL defaults to http://localhost:<port> of REWARDS_HTTP_ADDR (left for Serve
// to fill from its listener when the port is 0); a value given wins, without its trailing
// slash, and must be an absolute http(s) address.
func TestPublicURLFollowsTheListenAddress(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{"": "http://localhost:8080", ":9090": "http://localhost:9090",
		"127.0.0.1:7070": "http://localhost:7070", "127.0.0.1:0": ""} {
		c, err := app.LoadConfig(env(map[string]string{"REWARDS_HTTP_ADDR": addr}))
		require.NoError(t, err)
		require.Equal(t, want, c.PublicURL, addr)
	}
	c, err := app.LoadConfig(env(map[string]string{"REWARDS_HTTP_ADDR": ":9090", "REWARDS_PUBLIC_URL": "https://rewards.example.com/"}))
	require.NoError(t, err)
	require.Equal(t, "https://rewards.example.com", c.PublicURL)
	for _, bad := range []string{"rewards.example.com", "javascript:alert(1)", "/store"} {
		_, err := app.LoadConfig(env(map[string]string{"REWARDS_PUBLIC_URL": bad}))
		require.ErrorContains(t, err, "REWARDS_PUBLIC_URL", bad)
	}
}

// A deployment that names a real provider but no mode used to start in development: printing
// the operator token and the live partner secret, paying through the in-process fake, logging
// OTPs. Development is chosen, never assumed then.
func TestDevelopmentIsNeverAssumedWithRealProviders(t *testing.T) {
	t.Parallel()
	for name, v := range map[string]string{
		"REWARDS_VOUCHER_BASE_URL":   "https://vouchers.example.com/vouchers",
		"REWARDS_STRIPE_SECRET_KEY":  "sk_live_abc",
		"REWARDS_CASHFREE_CLIENT_ID": "cf-live",
		"REWARDS_SMS_PROVIDER":       "twilio",
	} {
		_, err := app.LoadConfig(env(map[string]string{name: v}))
		require.ErrorContains(t, err, "REWARDS_MODE is unset but "+name, name)
		_, err = app.LoadConfig(env(map[string]string{name: v, "REWARDS_MODE": "development"}))
		require.NotContains(t, fmt.Sprint(err), "REWARDS_MODE is unset", "%s: development chosen", name)
	}
	// Local stand-ins are no real provider: a test Stripe key, Cashfree at a fake's address, the log.
	for _, m := range []map[string]string{
		{},
		{"REWARDS_STRIPE_SECRET_KEY": "sk_test_abc"},
		{"REWARDS_CASHFREE_CLIENT_ID": "cf", "REWARDS_CASHFREE_CLIENT_SECRET": "s", "REWARDS_CASHFREE_BASE_URL": "http://127.0.0.1:9090/cashfree"},
		{"REWARDS_SMS_PROVIDER": "log"},
	} {
		_, err := app.LoadConfig(env(m))
		require.NotContains(t, fmt.Sprint(err), "REWARDS_MODE is unset", "%v", m)
	}
}

// Each Config field is a setting written once, in its tags: a field without a variable or a
// description would be read from nowhere or missing from Settings, and so from the README.
func TestEveryConfigFieldIsADocumentedSetting(t *testing.T) {
	t.Parallel()
	listed := map[string]bool{}
	for _, s := range app.Settings {
		require.False(t, listed[s.Name], "%s is listed twice", s.Name)
		listed[s.Name] = true
	}
	for f := range reflect.TypeFor[app.Config]().Fields() {
		name := f.Tag.Get("env")
		require.NotEmpty(t, name, "Config.%s has no env tag naming its variable", f.Name)
		require.NotEmpty(t, f.Tag.Get("doc"), "Config.%s (%s) has no doc tag describing it", f.Name, name)
		require.True(t, listed[name], "app.Settings lacks %s", name)
	}
}
