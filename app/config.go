package app

import (
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/rewardsco/rewards/adapters/mail"
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

// Config is the service configuration, read from environment variables. Each field is one
// setting: env names its variable, envDefault its default, doc what it means, and docDefault
// the default as the operator reads it where a rule in LoadConfig derives it. Settings lists
// them, and README.md's configuration table is checked against that list.
type Config struct {
	Mode            Mode          `env:"REWARDS_MODE" envDefault:"development" doc:"development or production. Production requires DATABASE_URL and REWARDS_ADMIN_TOKEN and never seeds demo data. Left unset, it is development only when no setting names a real provider (REWARDS_VOUCHER_BASE_URL, a live Stripe key, Cashfree credentials for its live API, an SMS provider other than log): with one, the service refuses to start until REWARDS_MODE is set."`
	HTTPAddr        string        `env:"REWARDS_HTTP_ADDR" envDefault:":8080" doc:"Address the HTTP server listens on."`
	DatabaseURL     string        `env:"DATABASE_URL" doc:"PostgreSQL connection URL. Unset in development: a private PostgreSQL is started from the machine's binaries with its data under REWARDS_DATA_DIR."`
	DataDir         string        `env:"REWARDS_DATA_DIR" envDefault:".data" doc:"Local state in development: the private PostgreSQL, the generated operator token, the demo credentials."`
	AdminToken      string        `env:"REWARDS_ADMIN_TOKEN" docDefault:"(generated in development)" doc:"Bearer token of the operator API. Required in production."`
	Currency        string        `env:"REWARDS_CURRENCY" envDefault:"INR" doc:"Deployment currency: INR or USD."`
	LiveHosts       []string      `env:"REWARDS_LIVE_HOSTS" envDefault:"live.localhost" doc:"Comma list of hosts that serve the live environment."`
	DevHosts        []string      `env:"REWARDS_DEV_HOSTS" envDefault:"localhost,127.0.0.1,::1,dev.localhost" doc:"Comma list of hosts that serve the test environment."`
	DemoSeed        bool          `env:"REWARDS_DEMO_SEED" docDefault:"true in development" doc:"Seed a demo studio, game and coin once, and print their keys."`
	LogFormat       string        `env:"REWARDS_LOG_FORMAT" envDefault:"auto" doc:"auto (coloured text on a terminal, JSON otherwise), text or json."`
	LogLevel        string        `env:"REWARDS_LOG_LEVEL" envDefault:"info" doc:"debug, info, warn or error."`
	MaxBodyBytes    int64         `env:"REWARDS_MAX_BODY_BYTES" envDefault:"8388608" doc:"Hard cap on any request body, multipart included; JSON operations allow 1 MiB."`
	ShutdownTimeout time.Duration `env:"REWARDS_SHUTDOWN_TIMEOUT" envDefault:"15s" doc:"How long in-flight requests get to finish on SIGINT/SIGTERM."`
	SecretKey       string        `env:"REWARDS_SECRET_KEY" docDefault:"(generated in development)" doc:"Master secret (at least 32 characters): player tokens are signed and OTPs hashed with keys derived from it. Required in production."`
	PlayerTokenTTL  time.Duration `env:"REWARDS_PLAYER_TOKEN_TTL" envDefault:"168h" doc:"Lifetime of a player token."`
	UploadDir       string        `env:"REWARDS_UPLOAD_DIR" docDefault:"<REWARDS_DATA_DIR>/uploads" doc:"Where uploaded profile pictures are kept."`
	SMSProvider     string        `env:"REWARDS_SMS_PROVIDER" docDefault:"log in development, twilio in production" doc:"log (the OTP is written to the log; not for production) or twilio (a Twilio-style Messages API)."`
	SMSBaseURL      string        `env:"REWARDS_SMS_BASE_URL" envDefault:"https://api.twilio.com" doc:"Base URL of the Messages API; point it at the fake gateway in fakes/ for tests."`
	SMSAccountSID   string        `env:"REWARDS_SMS_ACCOUNT_SID" doc:"Account SID for the Messages API (basic-auth user)."`
	SMSAuthToken    string        `env:"REWARDS_SMS_AUTH_TOKEN" doc:"Auth token for the Messages API (basic-auth password)."`
	SMSFrom         string        `env:"REWARDS_SMS_FROM" doc:"Sender number or id of OTP messages."`
	SMTPURL         string        `env:"REWARDS_SMTP_URL" docDefault:"(unset: email is written to the log, in development only)" doc:"The SMTP server that sends the studio console's email (invitations, password resets, notices to owners): smtp://user:pass@host:port (port 587 by default; STARTTLS when the server offers it, and then the password only over TLS) or smtps://user:pass@host:port (TLS from the start, port 465 by default), the user and password percent-encoded. Required in production; unset in development, each email, links included, is written to the log."`
	MailFrom        string        `env:"REWARDS_MAIL_FROM" doc:"The From address of that email, such as Rewards <no-reply@rewards.example.com>. Required with REWARDS_SMTP_URL."`
	OTPSendsPerHour int           `env:"REWARDS_OTP_SENDS_PER_HOUR" envDefault:"1000" doc:"OTP codes sent per game and environment in any hour, across all phones (against SMS pumping); beyond it request-otp answers 429 OTP_GAME_RATE_LIMITED."`

	// Webhook delivery.
	WebhookRetryDelays  []time.Duration `env:"REWARDS_WEBHOOK_RETRY_DELAYS" envDefault:"1m,5m,15m,1h" doc:"Waits after failed webhook attempts 1 to 4 (5 attempts in all, then FAILED)."`
	WebhookAllowHTTP    bool            `env:"REWARDS_WEBHOOK_ALLOW_HTTP" envDefault:"false" doc:"Local development and tests only: allow plain http webhook URLs."`
	WebhookAllowPrivate bool            `env:"REWARDS_WEBHOOK_ALLOW_PRIVATE" envDefault:"false" doc:"Local development and tests only: allow webhook targets on loopback, private and other non-public addresses."`
	WebhookWorkers      int             `env:"REWARDS_WEBHOOK_WORKERS" envDefault:"50" doc:"Webhook deliveries in flight at once, per instance."`

	// PublicURL is "" until Serve listens when the port of HTTPAddr is 0.
	PublicURL      string `env:"REWARDS_PUBLIC_URL" docDefault:"http://localhost:<port of REWARDS_HTTP_ADDR>" doc:"The address players and clients reach the service at, which the service's own links use: short links /r/{code}, the sandbox payment pages, the store pages {REWARDS_PUBLIC_URL}/store/rewards/{id} (the store of a game without a storeUrl, and of the demo game, whose storeUrl follows this setting at each start), and in development the logos of the in-process fake voucher provider."`
	VoucherBaseURL string `env:"REWARDS_VOUCHER_BASE_URL" docDefault:"(unset: in development, the in-process fake)" doc:"Base URL of the voucher provider's API, e.g. https://vouchers.example.com/vouchers. Unset in development: the fake provider of fakes/vouchers runs in-process on a loopback port and its catalogue is synced into the demo (not for production). Unset in production: no provider (catalogue sync answers 503)."`
	VoucherAPIKey  string `env:"REWARDS_VOUCHER_API_KEY" doc:"API key sent to the voucher provider (X-Api-Key)."`
	// The test environment's voucher provider (a provider's sandbox); unset: the built-in one.
	TestVoucherBaseURL string `env:"REWARDS_TEST_VOUCHER_BASE_URL" docDefault:"(unset: the built-in sandbox)" doc:"Base URL of the voucher provider's sandbox, used by every test-environment order (store purchases and partner orders); live orders never use it, and test orders never use REWARDS_VOUCHER_BASE_URL. Unset, in every mode: the built-in sandbox provider, in-process, fulfils every catalogue product with SANDBOX- codes, reports unlimited stock and honours the sandbox brands (SANDBOX_FAIL, SANDBOX_SLOW, SANDBOX_SLOW_FAIL, SANDBOX_NO_STOCK)."`
	TestVoucherAPIKey  string `env:"REWARDS_TEST_VOUCHER_API_KEY" doc:"API key sent to the test environment's voucher provider (X-Api-Key)."`

	VoucherWait     time.Duration `env:"REWARDS_VOUCHER_WAIT" envDefault:"5s" doc:"How long a purchase waits for the voucher provider's final answer before answering TIMEOUT."`
	VoucherPoll     time.Duration `env:"REWARDS_VOUCHER_POLL" envDefault:"30s" doc:"How often an unfinished provider order is asked again."`
	VoucherDeadline time.Duration `env:"REWARDS_VOUCHER_DEADLINE" envDefault:"24h" doc:"When a provider order still unfinished is failed and its coins refunded."`
	JobRescueAfter  time.Duration `env:"REWARDS_JOB_RESCUE_AFTER" envDefault:"2m" doc:"How long a background job may run before it is taken for orphaned (its instance died) and worked again; at least 50s, above the longest job's timeout."`

	// Payment providers of partner CASH orders.
	PaymentProvider      string        `env:"REWARDS_PAYMENT_PROVIDER" docDefault:"stripe on USD, cashfree on INR" doc:"The payment provider of partner CASH orders: stripe or cashfree."`
	PaymentSessionTTL    time.Duration `env:"REWARDS_PAYMENT_SESSION_TTL" envDefault:"30m" doc:"How long a CASH order's payment session stays open (1s to 24h; real Stripe needs at least 30m, so its adapter pushes a shorter expiry to 31m); unpaid at expiry, the order is REFUNDED."`
	StripeSecretKey      string        `env:"REWARDS_STRIPE_SECRET_KEY" doc:"Stripe's secret API key. Unset in development with no REWARDS_STRIPE_BASE_URL: the fake of fakes/stripe runs in-process (not for production)."`
	StripeWebhookSecret  string        `env:"REWARDS_STRIPE_WEBHOOK_SECRET" doc:"The signing secret of the Stripe endpoint POST /webhooks/stripe (whsec_…)."`
	StripeBaseURL        string        `env:"REWARDS_STRIPE_BASE_URL" docDefault:"(unset: api.stripe.com)" doc:"Base URL of the Stripe API (without /v1), for a fake or a proxy."`
	CashfreeClientID     string        `env:"REWARDS_CASHFREE_CLIENT_ID" doc:"Cashfree PG x-client-id. Unset in development with no REWARDS_CASHFREE_BASE_URL: the fake of fakes/cashfree runs in-process (not for production)."`
	CashfreeClientSecret string        `env:"REWARDS_CASHFREE_CLIENT_SECRET" doc:"Cashfree PG x-client-secret; it also verifies Cashfree's webhooks at POST /webhooks/cashfree."`
	CashfreeBaseURL      string        `env:"REWARDS_CASHFREE_BASE_URL" docDefault:"(unset: api.cashfree.com)" doc:"Base URL of Cashfree PG (without /pg), for the sandbox, a fake or a proxy."`
	// The test environment's payment credentials (a provider's test mode); unset: the built-in
	// sandbox payment page.
	TestStripeSecretKey      string `env:"REWARDS_TEST_STRIPE_SECRET_KEY" docDefault:"(unset: the built-in sandbox payment)" doc:"Stripe's test-mode secret key for the test environment's CASH orders (sk_test_… or rk_test_… in production). Test orders never use the live credentials."`
	TestStripeWebhookSecret  string `env:"REWARDS_TEST_STRIPE_WEBHOOK_SECRET" doc:"The signing secret of the test-mode Stripe endpoint (same route, POST /webhooks/stripe): an event counts only when it verifies with the secret of its order's environment."`
	TestStripeBaseURL        string `env:"REWARDS_TEST_STRIPE_BASE_URL" docDefault:"(unset: api.stripe.com)" doc:"Base URL of the Stripe API for the test environment, for a fake or a proxy."`
	TestCashfreeClientID     string `env:"REWARDS_TEST_CASHFREE_CLIENT_ID" docDefault:"(unset: the built-in sandbox payment)" doc:"Cashfree's sandbox x-client-id for the test environment's CASH orders."`
	TestCashfreeClientSecret string `env:"REWARDS_TEST_CASHFREE_CLIENT_SECRET" doc:"Cashfree's sandbox x-client-secret; it also verifies the test environment's Cashfree webhooks."`
	TestCashfreeBaseURL      string `env:"REWARDS_TEST_CASHFREE_BASE_URL" docDefault:"(unset: sandbox.cashfree.com)" doc:"Base URL of Cashfree PG for the test environment (without /pg)."`

	// Retention.
	OTPRetention      time.Duration `env:"REWARDS_OTP_RETENTION" envDefault:"72h" doc:"How long OTP records (codes, failed checks, spent failure runs) are kept before the hourly purge deletes them; at least 48h, a day beyond the 24-hour lock."`
	DeliveryRetention time.Duration `env:"REWARDS_DELIVERY_RETENTION" envDefault:"720h" doc:"How long finished (SUCCESS or FAILED) webhook deliveries are kept before the hourly purge deletes them; at least 24h. Pending ones are never deleted."`
}

// Setting documents one environment variable; README's configuration table lists the same.
type Setting struct {
	Name, Default, Meaning string
}

// configSettings are Config's fields as settings, in field order.
var configSettings = func() []Setting {
	var out []Setting
	for f := range reflect.TypeFor[Config]().Fields() {
		s := Setting{Name: f.Tag.Get("env"), Default: "(unset)", Meaning: f.Tag.Get("doc")}
		if d, ok := f.Tag.Lookup("envDefault"); ok {
			s.Default = d
		}
		if d, ok := f.Tag.Lookup("docDefault"); ok {
			s.Default = d
		}
		out = append(out, s)
	}
	return out
}()

// Settings are every environment variable the service reads: Config's, then the OpenTelemetry
// ones that SetupTracing reads.
var Settings = append(slices.Clip(configSettings), tracingSettings...)

// parsers read the settings' types as LoadConfig takes them; a parser's error completes the
// sentence that starts with the setting's name.
var parsers = map[reflect.Type]env.ParserFunc{
	reflect.TypeFor[bool](): func(v string) (any, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, errors.New("must be true or false")
		}
		return b, nil
	},
	reflect.TypeFor[int](): func(v string) (any, error) {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, errors.New("must be a whole number")
		}
		return n, nil
	},
	reflect.TypeFor[int64](): func(v string) (any, error) {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, errors.New("must be a whole number")
		}
		return n, nil
	},
	reflect.TypeFor[time.Duration](): func(v string) (any, error) {
		d, err := time.ParseDuration(v)
		if err != nil {
			return nil, errors.New("must be a duration such as 15s")
		}
		return d, nil
	},
	reflect.TypeFor[[]string](): func(v string) (any, error) { return splitList(v), nil },
	reflect.TypeFor[[]time.Duration](): func(v string) (any, error) {
		var out []time.Duration
		for _, part := range splitList(v) {
			d, err := time.ParseDuration(part)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("must list positive durations, and %q is not one", part)
			}
			out = append(out, d)
		}
		return out, nil
	},
}

// LoadConfig reads the configuration from getenv (os.Getenv in production use). Values are
// trimmed, and an empty one means the default.
func LoadConfig(getenv func(string) string) (Config, error) {
	given := map[string]string{} // never nil: env reads the process environment for a nil map
	for _, s := range configSettings {
		if v := strings.TrimSpace(getenv(s.Name)); v != "" {
			given[s.Name] = v
		}
	}
	var c Config
	unparsed := map[string]error{}
	if err := env.ParseWithOptions(&c, env.Options{Environment: given, FuncMap: parsers}); err != nil {
		var all env.AggregateError
		if !errors.As(err, &all) {
			return Config{}, fmt.Errorf("configuration: %w", err)
		}
		for _, e := range all.Errors {
			var pe env.ParseError
			if !errors.As(e, &pe) {
				return Config{}, fmt.Errorf("configuration: %w", err)
			}
			f, _ := reflect.TypeFor[Config]().FieldByName(pe.Name)
			unparsed[f.Tag.Get("env")] = pe.Err
		}
	}
	c.deriveDefaults(given)
	if errs := c.problems(given, unparsed); len(errs) > 0 {
		return Config{}, fmt.Errorf("configuration: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

// deriveDefaults applies the defaults that follow other settings, and normalises values.
func (c *Config) deriveDefaults(given map[string]string) {
	c.Currency = strings.ToUpper(c.Currency)
	if c.UploadDir == "" {
		c.UploadDir = filepath.Join(c.DataDir, "uploads")
	}
	if c.PublicURL == "" {
		c.PublicURL = defaultPublicURL(c.HTTPAddr)
	}
	// Paths are appended to these addresses.
	for _, u := range []*string{&c.PublicURL, &c.VoucherBaseURL, &c.TestVoucherBaseURL, &c.StripeBaseURL,
		&c.CashfreeBaseURL, &c.TestStripeBaseURL, &c.TestCashfreeBaseURL} {
		*u = strings.TrimSuffix(*u, "/")
	}
	if c.PaymentProvider == "" {
		c.PaymentProvider = "cashfree"
		if c.Currency == "USD" {
			c.PaymentProvider = "stripe"
		}
	}
	if c.SMSProvider == "" {
		c.SMSProvider = "log"
		if c.Mode == Production {
			c.SMSProvider = "twilio"
		}
	}
	if given["REWARDS_DEMO_SEED"] == "" {
		c.DemoSeed = c.Mode == Development
	}
}

// problems lists what is wrong with c: each setting's own rule (a value that did not parse
// breaks it too), then the rules across settings.
func (c *Config) problems(given map[string]string, unparsed map[string]error) []string {
	var errs []string
	between := func(name string, d, lo, hi time.Duration) rule {
		return rule{name, lo <= d && d <= hi, fmt.Sprintf("must be a duration from %s to %s", lo, hi)}
	}
	for _, r := range []rule{
		{"REWARDS_MODE", c.Mode == Development || c.Mode == Production, fmt.Sprintf("must be development or production, not %q", c.Mode)},
		{"REWARDS_CURRENCY", c.Currency == "INR" || c.Currency == "USD", fmt.Sprintf("must be INR or USD, not %q", c.Currency)},
		{"REWARDS_PAYMENT_PROVIDER", c.PaymentProvider == "stripe" || c.PaymentProvider == "cashfree", "must be stripe or cashfree"},
		{"REWARDS_SECRET_KEY", c.SecretKey == "" || len(c.SecretKey) >= 32, "must be at least 32 characters"},
		{"REWARDS_MAX_BODY_BYTES", c.MaxBodyBytes >= 1024, "must be a whole number of bytes, at least 1024"},
		{"REWARDS_WEBHOOK_WORKERS", c.WebhookWorkers >= 1 && c.WebhookWorkers <= 1000, "must be a whole number from 1 to 1000"},
		{"REWARDS_OTP_SENDS_PER_HOUR", c.OTPSendsPerHour >= 1, "must be a whole number, at least 1"},
		{"REWARDS_PLAYER_TOKEN_TTL", c.PlayerTokenTTL >= time.Minute, "must be a duration of at least 1m, such as 168h"},
		{"REWARDS_PUBLIC_URL", c.PublicURL == "" || weburl.Valid(c.PublicURL, true),
			"must be an absolute http or https address, such as https://rewards.example.com"},
		between("REWARDS_VOUCHER_WAIT", c.VoucherWait, 0, time.Minute),
		between("REWARDS_VOUCHER_POLL", c.VoucherPoll, 100*time.Millisecond, time.Hour),
		between("REWARDS_VOUCHER_DEADLINE", c.VoucherDeadline, time.Second, 30*24*time.Hour),
		between("REWARDS_JOB_RESCUE_AFTER", c.JobRescueAfter, 50*time.Second, time.Hour),
		between("REWARDS_PAYMENT_SESSION_TTL", c.PaymentSessionTTL, time.Second, 24*time.Hour),
		// OTP records stay at least a day beyond the longest window the limits count (the
		// 24-hour lock), so a purge never loosens a limit.
		between("REWARDS_OTP_RETENTION", c.OTPRetention, players.OTPLockout+24*time.Hour, 365*24*time.Hour),
		between("REWARDS_DELIVERY_RETENTION", c.DeliveryRetention, 24*time.Hour, 365*24*time.Hour),
	} {
		if !r.ok || unparsed[r.name] != nil {
			errs = append(errs, r.name+" "+r.message)
			delete(unparsed, r.name)
		}
	}
	for _, s := range configSettings {
		if err := unparsed[s.Name]; err != nil {
			errs = append(errs, s.Name+" "+err.Error())
		}
	}
	if unparsed["REWARDS_WEBHOOK_RETRY_DELAYS"] == nil && len(c.WebhookRetryDelays) != 4 {
		errs = append(errs, "REWARDS_WEBHOOK_RETRY_DELAYS must list 4 durations, the waits after failed attempts 1 to 4")
	}
	if len(c.LiveHosts) == 0 || len(c.DevHosts) == 0 {
		errs = append(errs, "REWARDS_LIVE_HOSTS and REWARDS_DEV_HOSTS must each name at least one host")
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
	if c.SMTPURL != "" {
		if err := mail.CheckURL(c.SMTPURL); err != nil {
			errs = append(errs, "REWARDS_SMTP_URL "+err.Error())
		}
		if c.MailFrom == "" {
			errs = append(errs, "REWARDS_SMTP_URL needs REWARDS_MAIL_FROM, the From address of the email it sends")
		}
	}
	if c.MailFrom != "" {
		if err := mail.CheckFrom(c.MailFrom); err != nil {
			errs = append(errs, "REWARDS_MAIL_FROM "+err.Error())
		}
	}
	if live := liveSettings(given); given["REWARDS_MODE"] == "" && len(live) > 0 {
		// Development prints the operator token and secrets, pays through in-process fakes and
		// logs OTPs: a deployment that names a real provider must say which mode it means.
		errs = append(errs, fmt.Sprintf("REWARDS_MODE is unset but %s names a real provider: set REWARDS_MODE=production (or development, to run against it locally)",
			strings.Join(live, ", ")))
	}
	if c.Mode == Production {
		errs = append(errs, c.productionProblems()...)
	}
	return errs
}

// rule is one setting's own rule: ok says whether its value keeps it, message completes the
// sentence that starts with its name.
type rule struct {
	name    string
	ok      bool
	message string
}

// productionProblems lists what production mode refuses of c.
func (c *Config) productionProblems() []string {
	var errs []string
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
	if c.SMTPURL == "" {
		// The log sender would write invitation and reset links, each one a way in, to the log.
		errs = append(errs, "REWARDS_SMTP_URL is required in production mode: the console's invitations and password resets are emailed")
	}
	if c.MailFrom == "" {
		errs = append(errs, "REWARDS_MAIL_FROM is required in production mode")
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
	return errs
}

// liveSettings names the given settings that point at a real provider: a voucher provider's
// address, a live Stripe key, Cashfree credentials for its live API, an SMS provider other than
// the log.
func liveSettings(given map[string]string) []string {
	var out []string
	if given["REWARDS_VOUCHER_BASE_URL"] != "" {
		out = append(out, "REWARDS_VOUCHER_BASE_URL")
	}
	if k := given["REWARDS_STRIPE_SECRET_KEY"]; strings.HasPrefix(k, "sk_live_") || strings.HasPrefix(k, "rk_live_") {
		out = append(out, "REWARDS_STRIPE_SECRET_KEY")
	}
	if given["REWARDS_CASHFREE_CLIENT_ID"] != "" && given["REWARDS_CASHFREE_BASE_URL"] == "" {
		out = append(out, "REWARDS_CASHFREE_CLIENT_ID")
	}
	if p := given["REWARDS_SMS_PROVIDER"]; p != "" && p != "log" {
		out = append(out, "REWARDS_SMS_PROVIDER")
	}
	return out
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
