// Package app wires the Rewards service: configuration, logging, the database (external or a
// private local PostgreSQL), the core services, the HTTP server and its lifecycle.
package app

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/weburl"
)

// Mode is how the process runs: development allows local defaults (a private PostgreSQL,
// generated operator token, demo data, logging adapters); production requires everything to be
// configured.
type Mode string

const (
	// Development is the default mode.
	Development Mode = "development"
	// Production refuses local defaults.
	Production Mode = "production"
)

// Config is the service configuration, read from environment variables.
type Config struct {
	Mode            Mode          // REWARDS_MODE
	HTTPAddr        string        // REWARDS_HTTP_ADDR
	DatabaseURL     string        // DATABASE_URL
	DataDir         string        // REWARDS_DATA_DIR
	AdminToken      string        // REWARDS_ADMIN_TOKEN
	Currency        string        // REWARDS_CURRENCY
	LiveHosts       []string      // REWARDS_LIVE_HOSTS
	DevHosts        []string      // REWARDS_DEV_HOSTS
	DemoSeed        bool          // REWARDS_DEMO_SEED
	LogFormat       string        // REWARDS_LOG_FORMAT
	LogLevel        string        // REWARDS_LOG_LEVEL
	MaxBodyBytes    int64         // REWARDS_MAX_BODY_BYTES
	ShutdownTimeout time.Duration // REWARDS_SHUTDOWN_TIMEOUT
	SecretKey       string        // REWARDS_SECRET_KEY
	PlayerTokenTTL  time.Duration // REWARDS_PLAYER_TOKEN_TTL
	UploadDir       string        // REWARDS_UPLOAD_DIR
	SMSProvider     string        // REWARDS_SMS_PROVIDER
	SMSBaseURL      string        // REWARDS_SMS_BASE_URL
	SMSAccountSID   string        // REWARDS_SMS_ACCOUNT_SID
	SMSAuthToken    string        // REWARDS_SMS_AUTH_TOKEN
	SMSFrom         string        // REWARDS_SMS_FROM
	OTPSendsPerHour int           // REWARDS_OTP_SENDS_PER_HOUR
	// Webhook delivery.
	WebhookRetryDelays  []time.Duration // REWARDS_WEBHOOK_RETRY_DELAYS
	WebhookAllowHTTP    bool            // REWARDS_WEBHOOK_ALLOW_HTTP
	WebhookAllowPrivate bool            // REWARDS_WEBHOOK_ALLOW_PRIVATE
	WebhookWorkers      int             // REWARDS_WEBHOOK_WORKERS

	// PublicURL is REWARDS_PUBLIC_URL, or http://localhost:<port> of HTTPAddr; "" until Serve
	// listens when the port is 0.
	PublicURL      string // REWARDS_PUBLIC_URL
	VoucherBaseURL string // REWARDS_VOUCHER_BASE_URL
	VoucherAPIKey  string // REWARDS_VOUCHER_API_KEY
	// The test environment's voucher provider (a provider's sandbox); unset: the built-in one.
	TestVoucherBaseURL string // REWARDS_TEST_VOUCHER_BASE_URL
	TestVoucherAPIKey  string // REWARDS_TEST_VOUCHER_API_KEY

	VoucherWait     time.Duration // REWARDS_VOUCHER_WAIT
	VoucherPoll     time.Duration // REWARDS_VOUCHER_POLL
	VoucherDeadline time.Duration // REWARDS_VOUCHER_DEADLINE
	JobRescueAfter  time.Duration // REWARDS_JOB_RESCUE_AFTER

	// Payment providers of partner CASH orders.
	PaymentProvider      string        // REWARDS_PAYMENT_PROVIDER
	PaymentSessionTTL    time.Duration // REWARDS_PAYMENT_SESSION_TTL
	StripeSecretKey      string        // REWARDS_STRIPE_SECRET_KEY
	StripeWebhookSecret  string        // REWARDS_STRIPE_WEBHOOK_SECRET
	StripeBaseURL        string        // REWARDS_STRIPE_BASE_URL
	CashfreeClientID     string        // REWARDS_CASHFREE_CLIENT_ID
	CashfreeClientSecret string        // REWARDS_CASHFREE_CLIENT_SECRET
	CashfreeBaseURL      string        // REWARDS_CASHFREE_BASE_URL
	// The test environment's payment credentials (a provider's test mode); unset: the built-in
	// sandbox payment page.
	TestStripeSecretKey      string // REWARDS_TEST_STRIPE_SECRET_KEY
	TestStripeWebhookSecret  string // REWARDS_TEST_STRIPE_WEBHOOK_SECRET
	TestStripeBaseURL        string // REWARDS_TEST_STRIPE_BASE_URL
	TestCashfreeClientID     string // REWARDS_TEST_CASHFREE_CLIENT_ID
	TestCashfreeClientSecret string // REWARDS_TEST_CASHFREE_CLIENT_SECRET
	TestCashfreeBaseURL      string // REWARDS_TEST_CASHFREE_BASE_URL
	// Retention.
	OTPRetention      time.Duration // REWARDS_OTP_RETENTION
	DeliveryRetention time.Duration // REWARDS_DELIVERY_RETENTION
}

// Setting documents one environment variable; README's configuration table lists the same.
type Setting struct {
	Name, Default, Meaning string
}

// Settings are every environment variable the service reads.
var Settings = []Setting{
	{"REWARDS_MODE", "development", "development or production. Production requires DATABASE_URL and REWARDS_ADMIN_TOKEN and never seeds demo data. Left unset, it is development only when no setting names a real provider (REWARDS_VOUCHER_BASE_URL, a live Stripe key, Cashfree credentials for its live API, an SMS provider other than log): with one, the service refuses to start until REWARDS_MODE is set."},
	{"REWARDS_HTTP_ADDR", ":8080", "Address the HTTP server listens on."},
	{"DATABASE_URL", "(unset)", "PostgreSQL connection URL. Unset in development: a private PostgreSQL is started from the machine's binaries with its data under REWARDS_DATA_DIR."},
	{"REWARDS_DATA_DIR", ".data", "Local state in development: the private PostgreSQL, the generated operator token, the demo credentials."},
	{"REWARDS_ADMIN_TOKEN", "(generated in development)", "Bearer token of the operator API. Required in production."},
	{"REWARDS_CURRENCY", "INR", "Deployment currency: INR or USD."},
	{"REWARDS_LIVE_HOSTS", "live.localhost", "Comma list of hosts that serve the live environment."},
	{"REWARDS_DEV_HOSTS", "localhost,127.0.0.1,::1,dev.localhost", "Comma list of hosts that serve the test environment."},
	{"REWARDS_DEMO_SEED", "true in development", "Seed a demo studio, game and coin once, and print their keys."},
	{"REWARDS_LOG_FORMAT", "auto", "auto (coloured text on a terminal, JSON otherwise), text or json."},
	{"REWARDS_LOG_LEVEL", "info", "debug, info, warn or error."},
	{"REWARDS_MAX_BODY_BYTES", "8388608", "Hard cap on any request body, multipart included; JSON operations allow 1 MiB."},
	{"REWARDS_SHUTDOWN_TIMEOUT", "15s", "How long in-flight requests get to finish on SIGINT/SIGTERM."},
	{"REWARDS_SECRET_KEY", "(generated in development)", "Master secret (at least 32 characters): player tokens are signed and OTPs hashed with keys derived from it. Required in production."},
	{"REWARDS_PLAYER_TOKEN_TTL", "168h", "Lifetime of a player token."},
	{"REWARDS_UPLOAD_DIR", "<REWARDS_DATA_DIR>/uploads", "Where uploaded profile pictures are kept."},
	{"REWARDS_SMS_PROVIDER", "log in development", "log (the OTP is written to the log; not for production) or twilio (a Twilio-style Messages API)."},
	{"REWARDS_SMS_BASE_URL", "https://api.twilio.com", "Base URL of the Messages API; point it at the fake gateway in fakes/ for tests."},
	{"REWARDS_SMS_ACCOUNT_SID", "(unset)", "Account SID for the Messages API (basic-auth user)."},
	{"REWARDS_SMS_AUTH_TOKEN", "(unset)", "Auth token for the Messages API (basic-auth password)."},
	{"REWARDS_SMS_FROM", "(unset)", "Sender number or id of OTP messages."},
	{"REWARDS_OTP_SENDS_PER_HOUR", "1000", "OTP codes sent per game and environment in any hour, across all phones (against SMS pumping); beyond it request-otp answers 429 OTP_GAME_RATE_LIMITED."},
	{"REWARDS_WEBHOOK_RETRY_DELAYS", "1m,5m,15m,1h", "Waits after failed webhook attempts 1 to 4 (5 attempts in all, then FAILED)."},
	{"REWARDS_WEBHOOK_ALLOW_HTTP", "false", "Local development and tests only: allow plain http webhook URLs."},
	{"REWARDS_WEBHOOK_ALLOW_PRIVATE", "false", "Local development and tests only: allow webhook targets on loopback, private and other non-public addresses."},
	{"REWARDS_WEBHOOK_WORKERS", "50", "Webhook deliveries in flight at once, per instance."},
	{"REWARDS_PUBLIC_URL", "http://localhost:<port of REWARDS_HTTP_ADDR>", "The address players and clients reach the service at, which the service's own links use: short links /r/{code}, the sandbox payment pages, the store pages {REWARDS_PUBLIC_URL}/store/rewards/{id} (the store of a game without a storeUrl, and of the demo game, whose storeUrl follows this setting at each start), and in development the logos of the in-process fake voucher provider."},
	{"REWARDS_VOUCHER_BASE_URL", "(unset: in development, the in-process fake)", "Base URL of the voucher provider's API, e.g. https://vouchers.example.com/vouchers. Unset in development: the fake provider of fakes/vouchers runs in-process on a loopback port and its catalogue is synced into the demo (not for production). Unset in production: no provider (catalogue sync answers 503)."},
	{"REWARDS_VOUCHER_API_KEY", "(unset)", "API key sent to the voucher provider (X-Api-Key)."},
	{"REWARDS_TEST_VOUCHER_BASE_URL", "(unset: the built-in sandbox)", "Base URL of the voucher provider's sandbox, used by every test-environment order (store purchases and partner orders); live orders never use it, and test orders never use REWARDS_VOUCHER_BASE_URL. Unset, in every mode: the built-in sandbox provider, in-process, fulfils every catalogue product with SANDBOX- codes, reports unlimited stock and honours the sandbox brands (SANDBOX_FAIL, SANDBOX_SLOW, SANDBOX_SLOW_FAIL, SANDBOX_NO_STOCK)."},
	{"REWARDS_TEST_VOUCHER_API_KEY", "(unset)", "API key sent to the test environment's voucher provider (X-Api-Key)."},
	{"REWARDS_PAYMENT_PROVIDER", "stripe on USD, cashfree on INR", "The payment provider of partner CASH orders: `stripe` or `cashfree`."},
	{"REWARDS_PAYMENT_SESSION_TTL", "30m", "How long a CASH order's payment session stays open (1s to 24h; real Stripe needs at least 30m, so its adapter pushes a shorter expiry to 31m); unpaid at expiry, the order is REFUNDED."},
	{"REWARDS_STRIPE_SECRET_KEY", "(unset)", "Stripe's secret API key. Unset in development with no REWARDS_STRIPE_BASE_URL: the fake of fakes/stripe runs in-process (not for production)."},
	{"REWARDS_STRIPE_WEBHOOK_SECRET", "(unset)", "The signing secret of the Stripe endpoint POST /webhooks/stripe (whsec_…)."},
	{"REWARDS_STRIPE_BASE_URL", "(unset: api.stripe.com)", "Base URL of the Stripe API (without /v1), for a fake or a proxy."},
	{"REWARDS_CASHFREE_CLIENT_ID", "(unset)", "Cashfree PG x-client-id. Unset in development with no REWARDS_CASHFREE_BASE_URL: the fake of fakes/cashfree runs in-process (not for production)."},
	{"REWARDS_CASHFREE_CLIENT_SECRET", "(unset)", "Cashfree PG x-client-secret; it also verifies Cashfree's webhooks at POST /webhooks/cashfree."},
	{"REWARDS_TEST_STRIPE_SECRET_KEY", "(unset: the built-in sandbox payment)", "Stripe's test-mode secret key for the test environment's CASH orders (sk_test_… or rk_test_… in production). Test orders never use the live credentials."},
	{"REWARDS_TEST_STRIPE_WEBHOOK_SECRET", "(unset)", "The signing secret of the test-mode Stripe endpoint (same route, POST /webhooks/stripe): an event counts only when it verifies with the secret of its order's environment."},
	{"REWARDS_TEST_STRIPE_BASE_URL", "(unset: api.stripe.com)", "Base URL of the Stripe API for the test environment, for a fake or a proxy."},
	{"REWARDS_TEST_CASHFREE_CLIENT_ID", "(unset: the built-in sandbox payment)", "Cashfree's sandbox x-client-id for the test environment's CASH orders."},
	{"REWARDS_TEST_CASHFREE_CLIENT_SECRET", "(unset)", "Cashfree's sandbox x-client-secret; it also verifies the test environment's Cashfree webhooks."},
	{"REWARDS_TEST_CASHFREE_BASE_URL", "(unset: sandbox.cashfree.com)", "Base URL of Cashfree PG for the test environment (without /pg)."},
	{"REWARDS_CASHFREE_BASE_URL", "(unset: api.cashfree.com)", "Base URL of Cashfree PG (without /pg), for the sandbox, a fake or a proxy."},
	{"REWARDS_VOUCHER_WAIT", "5s", "How long a purchase waits for the voucher provider's final answer before answering TIMEOUT."},
	{"REWARDS_VOUCHER_POLL", "30s", "How often an unfinished provider order is asked again."},
	{"REWARDS_VOUCHER_DEADLINE", "24h", "When a provider order still unfinished is failed and its coins refunded."},
	{"REWARDS_JOB_RESCUE_AFTER", "2m", "How long a background job may run before it is taken for orphaned (its instance died) and worked again; at least 50s, above the longest job's timeout."},
	{"REWARDS_OTP_RETENTION", "72h", "How long OTP records (codes, failed checks, spent failure runs) are kept before the hourly purge deletes them; at least 48h, a day beyond the 24-hour lock."},
	{"REWARDS_DELIVERY_RETENTION", "720h", "How long finished (SUCCESS or FAILED) webhook deliveries are kept before the hourly purge deletes them; at least 24h. Pending ones are never deleted."},
	{"OTEL_EXPORTER_OTLP_ENDPOINT", "(unset)", "OpenTelemetry's standard variable: when it (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, traces are exported over OTLP/HTTP; unset, nothing is traced. The other OTEL_EXPORTER_OTLP_* variables and OTEL_SERVICE_NAME apply."},
	{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "(unset)", "OpenTelemetry's standard variable: the traces endpoint alone (a full URL, e.g. http://collector:4318/v1/traces)."},
}

// liveSettings names the settings of getenv that point at a real provider: a voucher provider's
// address, a live Stripe key, Cashfree credentials for its live API, an SMS provider other than
// the log.
func liveSettings(getenv func(string) string) []string {
	set := func(name string) string { return strings.TrimSpace(getenv(name)) }
	var out []string
	if set("REWARDS_VOUCHER_BASE_URL") != "" {
		out = append(out, "REWARDS_VOUCHER_BASE_URL")
	}
	if k := set("REWARDS_STRIPE_SECRET_KEY"); strings.HasPrefix(k, "sk_live_") || strings.HasPrefix(k, "rk_live_") {
		out = append(out, "REWARDS_STRIPE_SECRET_KEY")
	}
	if set("REWARDS_CASHFREE_CLIENT_ID") != "" && set("REWARDS_CASHFREE_BASE_URL") == "" {
		out = append(out, "REWARDS_CASHFREE_CLIENT_ID")
	}
	if p := set("REWARDS_SMS_PROVIDER"); p != "" && p != "log" {
		out = append(out, "REWARDS_SMS_PROVIDER")
	}
	return out
}

// LoadConfig reads the configuration from getenv (os.Getenv in production use).
func LoadConfig(getenv func(string) string) (Config, error) {
	get := func(name, def string) string {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Mode:        Mode(get("REWARDS_MODE", string(Development))),
		HTTPAddr:    get("REWARDS_HTTP_ADDR", ":8080"),
		DatabaseURL: get("DATABASE_URL", ""),
		DataDir:     get("REWARDS_DATA_DIR", ".data"),
		AdminToken:  get("REWARDS_ADMIN_TOKEN", ""),
		Currency:    strings.ToUpper(get("REWARDS_CURRENCY", "INR")),
		LiveHosts:   splitList(get("REWARDS_LIVE_HOSTS", "live.localhost")),
		DevHosts:    splitList(get("REWARDS_DEV_HOSTS", "localhost,127.0.0.1,::1,dev.localhost")),
		LogFormat:   get("REWARDS_LOG_FORMAT", "auto"),
		LogLevel:    get("REWARDS_LOG_LEVEL", "info"),
	}
	c.SecretKey = get("REWARDS_SECRET_KEY", "")
	c.UploadDir = get("REWARDS_UPLOAD_DIR", filepath.Join(c.DataDir, "uploads"))
	c.SMSProvider = get("REWARDS_SMS_PROVIDER", "")
	c.SMSBaseURL = get("REWARDS_SMS_BASE_URL", "https://api.twilio.com")
	c.SMSAccountSID = get("REWARDS_SMS_ACCOUNT_SID", "")
	c.SMSAuthToken = get("REWARDS_SMS_AUTH_TOKEN", "")
	c.SMSFrom = get("REWARDS_SMS_FROM", "")
	c.PublicURL = strings.TrimSuffix(get("REWARDS_PUBLIC_URL", defaultPublicURL(c.HTTPAddr)), "/")
	c.VoucherBaseURL = strings.TrimSuffix(get("REWARDS_VOUCHER_BASE_URL", ""), "/")
	c.VoucherAPIKey = get("REWARDS_VOUCHER_API_KEY", "")
	c.TestVoucherBaseURL = strings.TrimSuffix(get("REWARDS_TEST_VOUCHER_BASE_URL", ""), "/")
	c.TestVoucherAPIKey = get("REWARDS_TEST_VOUCHER_API_KEY", "")
	c.StripeSecretKey = get("REWARDS_STRIPE_SECRET_KEY", "")
	c.StripeWebhookSecret = get("REWARDS_STRIPE_WEBHOOK_SECRET", "")
	c.StripeBaseURL = strings.TrimSuffix(get("REWARDS_STRIPE_BASE_URL", ""), "/")
	c.CashfreeClientID = get("REWARDS_CASHFREE_CLIENT_ID", "")
	c.CashfreeClientSecret = get("REWARDS_CASHFREE_CLIENT_SECRET", "")
	c.CashfreeBaseURL = strings.TrimSuffix(get("REWARDS_CASHFREE_BASE_URL", ""), "/")
	c.TestStripeSecretKey = get("REWARDS_TEST_STRIPE_SECRET_KEY", "")
	c.TestStripeWebhookSecret = get("REWARDS_TEST_STRIPE_WEBHOOK_SECRET", "")
	c.TestStripeBaseURL = strings.TrimSuffix(get("REWARDS_TEST_STRIPE_BASE_URL", ""), "/")
	c.TestCashfreeClientID = get("REWARDS_TEST_CASHFREE_CLIENT_ID", "")
	c.TestCashfreeClientSecret = get("REWARDS_TEST_CASHFREE_CLIENT_SECRET", "")
	c.TestCashfreeBaseURL = strings.TrimSuffix(get("REWARDS_TEST_CASHFREE_BASE_URL", ""), "/")
	var errs []string
	c.PaymentProvider = get("REWARDS_PAYMENT_PROVIDER", "")
	if c.PaymentProvider == "" {
		c.PaymentProvider = "cashfree"
		if c.Currency == "USD" {
			c.PaymentProvider = "stripe"
		}
	}
	if c.PaymentProvider != "stripe" && c.PaymentProvider != "cashfree" {
		errs = append(errs, "REWARDS_PAYMENT_PROVIDER must be stripe or cashfree")
	}
	if c.SMSProvider == "" {
		c.SMSProvider = "log"
		if c.Mode == Production {
			c.SMSProvider = "twilio"
		}
	}
	switch c.SMSProvider {
	case "log":
		if c.Mode == Production {
			errs = append(errs, "REWARDS_SMS_PROVIDER=log is for development only")
		}
	case "twilio":
		if c.SMSAccountSID == "" || c.SMSAuthToken == "" || c.SMSFrom == "" {
			errs = append(errs, "REWARDS_SMS_PROVIDER=twilio needs REWARDS_SMS_ACCOUNT_SID, REWARDS_SMS_AUTH_TOKEN and REWARDS_SMS_FROM")
		}
	default:
		errs = append(errs, fmt.Sprintf("REWARDS_SMS_PROVIDER must be log or twilio, not %q", c.SMSProvider))
	}
	if c.SecretKey != "" && len(c.SecretKey) < 32 {
		errs = append(errs, "REWARDS_SECRET_KEY must be at least 32 characters")
	}
	if c.Mode != Development && c.Mode != Production {
		errs = append(errs, fmt.Sprintf("REWARDS_MODE must be development or production, not %q", c.Mode))
	}
	if live := liveSettings(getenv); strings.TrimSpace(getenv("REWARDS_MODE")) == "" && len(live) > 0 {
		// Development prints the operator token and secrets, pays through in-process fakes and
		// logs OTPs: a deployment that names a real provider must say which mode it means.
		errs = append(errs, fmt.Sprintf("REWARDS_MODE is unset but %s names a real provider: set REWARDS_MODE=production (or development, to run against it locally)",
			strings.Join(live, ", ")))
	}
	if c.Currency != "INR" && c.Currency != "USD" {
		errs = append(errs, fmt.Sprintf("REWARDS_CURRENCY must be INR or USD, not %q", c.Currency))
	}
	var err error
	if c.DemoSeed, err = strconv.ParseBool(get("REWARDS_DEMO_SEED", strconv.FormatBool(c.Mode == Development))); err != nil {
		errs = append(errs, "REWARDS_DEMO_SEED must be true or false")
	}
	if c.MaxBodyBytes, err = strconv.ParseInt(get("REWARDS_MAX_BODY_BYTES", "8388608"), 10, 64); err != nil || c.MaxBodyBytes < 1024 {
		errs = append(errs, "REWARDS_MAX_BODY_BYTES must be a whole number of bytes, at least 1024")
	}
	if c.ShutdownTimeout, err = time.ParseDuration(get("REWARDS_SHUTDOWN_TIMEOUT", "15s")); err != nil {
		errs = append(errs, "REWARDS_SHUTDOWN_TIMEOUT must be a duration such as 15s")
	}
	for _, part := range splitList(get("REWARDS_WEBHOOK_RETRY_DELAYS", "1m,5m,15m,1h")) {
		d, perr := time.ParseDuration(part)
		if perr != nil || d <= 0 {
			errs = append(errs, fmt.Sprintf("REWARDS_WEBHOOK_RETRY_DELAYS: %q is not a positive duration", part))
		}
		c.WebhookRetryDelays = append(c.WebhookRetryDelays, d)
	}
	if len(c.WebhookRetryDelays) != 4 {
		errs = append(errs, "REWARDS_WEBHOOK_RETRY_DELAYS must list 4 durations, the waits after failed attempts 1 to 4")
	}
	if c.WebhookAllowHTTP, err = strconv.ParseBool(get("REWARDS_WEBHOOK_ALLOW_HTTP", "false")); err != nil {
		errs = append(errs, "REWARDS_WEBHOOK_ALLOW_HTTP must be true or false")
	}
	if c.WebhookAllowPrivate, err = strconv.ParseBool(get("REWARDS_WEBHOOK_ALLOW_PRIVATE", "false")); err != nil {
		errs = append(errs, "REWARDS_WEBHOOK_ALLOW_PRIVATE must be true or false")
	}
	if c.WebhookWorkers, err = strconv.Atoi(get("REWARDS_WEBHOOK_WORKERS", "50")); err != nil || c.WebhookWorkers < 1 || c.WebhookWorkers > 1000 {
		errs = append(errs, "REWARDS_WEBHOOK_WORKERS must be a whole number from 1 to 1000")
	}
	if c.OTPSendsPerHour, err = strconv.Atoi(get("REWARDS_OTP_SENDS_PER_HOUR", "1000")); err != nil || c.OTPSendsPerHour < 1 {
		errs = append(errs, "REWARDS_OTP_SENDS_PER_HOUR must be a whole number, at least 1")
	}
	if c.PlayerTokenTTL, err = time.ParseDuration(get("REWARDS_PLAYER_TOKEN_TTL", "168h")); err != nil || c.PlayerTokenTTL < time.Minute {
		errs = append(errs, "REWARDS_PLAYER_TOKEN_TTL must be a duration of at least 1m, such as 168h")
	}
	for _, d := range []struct {
		name, def string
		min, max  time.Duration
		into      *time.Duration
	}{
		{"REWARDS_VOUCHER_WAIT", "5s", 0, time.Minute, &c.VoucherWait},
		{"REWARDS_VOUCHER_POLL", "30s", 100 * time.Millisecond, time.Hour, &c.VoucherPoll},
		{"REWARDS_VOUCHER_DEADLINE", "24h", time.Second, 30 * 24 * time.Hour, &c.VoucherDeadline},
		{"REWARDS_JOB_RESCUE_AFTER", "2m", 50 * time.Second, time.Hour, &c.JobRescueAfter},
		{"REWARDS_PAYMENT_SESSION_TTL", "30m", time.Second, 24 * time.Hour, &c.PaymentSessionTTL},
		// OTP records stay at least a day beyond the longest window the limits count (the
		// 24-hour lock), so a purge never loosens a limit.
		{"REWARDS_OTP_RETENTION", "72h", players.OTPLockout + 24*time.Hour, 365 * 24 * time.Hour, &c.OTPRetention},
		{"REWARDS_DELIVERY_RETENTION", "720h", 24 * time.Hour, 365 * 24 * time.Hour, &c.DeliveryRetention},
	} {
		v, perr := time.ParseDuration(get(d.name, d.def))
		if perr != nil || v < d.min || v > d.max {
			errs = append(errs, fmt.Sprintf("%s must be a duration from %s to %s", d.name, d.min, d.max))
		}
		*d.into = v
	}
	if c.Mode == Production {
		if c.SecretKey == "" {
			errs = append(errs, "REWARDS_SECRET_KEY is required in production mode")
		}
		if c.DatabaseURL == "" {
			errs = append(errs, "DATABASE_URL is required in production mode")
		}
		if c.AdminToken == "" {
			errs = append(errs, "REWARDS_ADMIN_TOKEN is required in production mode")
		} else if len(c.AdminToken) < 32 {
			errs = append(errs, "REWARDS_ADMIN_TOKEN must be at least 32 characters in production mode")
		}
		if c.DemoSeed {
			errs = append(errs, "REWARDS_DEMO_SEED cannot be true in production mode")
		}
		if c.WebhookAllowHTTP || c.WebhookAllowPrivate {
			errs = append(errs, "REWARDS_WEBHOOK_ALLOW_HTTP and REWARDS_WEBHOOK_ALLOW_PRIVATE are for development and tests only")
		}
		// A Stripe key of the wrong mode would charge real cards for test orders, or take live
		// orders in test mode.
		if k := c.StripeSecretKey; k != "" && !strings.HasPrefix(k, "sk_live_") && !strings.HasPrefix(k, "rk_live_") {
			errs = append(errs, "REWARDS_STRIPE_SECRET_KEY must be a live key (sk_live_… or rk_live_…) in production mode")
		}
		if k := c.TestStripeSecretKey; k != "" && !strings.HasPrefix(k, "sk_test_") && !strings.HasPrefix(k, "rk_test_") {
			errs = append(errs, "REWARDS_TEST_STRIPE_SECRET_KEY must be a test key (sk_test_… or rk_test_…)")
		}
		// A provider without its webhook secret would take events anyone can sign.
		for _, w := range []struct {
			provider, key, secret, keyName, secretName string
		}{
			{"stripe", c.StripeSecretKey + c.StripeBaseURL, c.StripeWebhookSecret, "REWARDS_STRIPE_SECRET_KEY", "REWARDS_STRIPE_WEBHOOK_SECRET"},
			{"stripe", c.TestStripeSecretKey + c.TestStripeBaseURL, c.TestStripeWebhookSecret, "REWARDS_TEST_STRIPE_SECRET_KEY", "REWARDS_TEST_STRIPE_WEBHOOK_SECRET"},
			{"cashfree", c.CashfreeClientID + c.CashfreeBaseURL, c.CashfreeClientSecret, "REWARDS_CASHFREE_CLIENT_ID", "REWARDS_CASHFREE_CLIENT_SECRET"},
			{"cashfree", c.TestCashfreeClientID + c.TestCashfreeBaseURL, c.TestCashfreeClientSecret, "REWARDS_TEST_CASHFREE_CLIENT_ID", "REWARDS_TEST_CASHFREE_CLIENT_SECRET"},
		} {
			if w.provider == c.PaymentProvider && w.key != "" && w.secret == "" {
				errs = append(errs, fmt.Sprintf("%s is required in production mode when %s is set: it verifies the provider's webhooks", w.secretName, w.keyName))
			}
		}
	}
	if c.PublicURL != "" && !weburl.Valid(c.PublicURL, true) {
		errs = append(errs, "REWARDS_PUBLIC_URL must be an absolute http or https address, such as https://rewards.example.com")
	}
	if len(c.LiveHosts) == 0 || len(c.DevHosts) == 0 {
		errs = append(errs, "REWARDS_LIVE_HOSTS and REWARDS_DEV_HOSTS must each name at least one host")
	}
	if len(errs) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// defaultPublicURL is http://localhost:<port> of the listen address; "" when the port is not
// known before listening (":0"), for Serve to fill in from the listener.
func defaultPublicURL(httpAddr string) string {
	_, port, err := net.SplitHostPort(httpAddr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n <= 0 {
		return ""
	}
	return "http://localhost:" + port
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, strings.ToLower(p))
		}
	}
	return out
}
