// Command fakes serves the fakes of every external system on one port, for local runs and the
// e2e suite: the SMS gateway (fakes/sms), the webhook receiver (fakes/webhooks), the voucher
// provider (fakes/vouchers, API root /vouchers), Stripe (fakes/stripe, the stripe-go backend URL
// /stripe), Cashfree PG (fakes/cashfree, API root /cashfree) and the mail server (fakes/smtp,
// its inbox at /smtp/messages; SMTP on a port of its own). Environment: FAKES_ADDR (default
// :9090), FAKE_SMTP_ADDR (where SMTP listens; default :2525), FAKE_SMS_ACCOUNT_SID (default
// ACfake), FAKE_SMS_AUTH_TOKEN (default fake-token), FAKE_VOUCHER_API_KEY (the only X-Api-Key
// the voucher provider accepts; default any), FAKE_VOUCHER_SANDBOX_DELAY (how long SANDBOX_SLOW
// orders stay pending, a Go duration; default 10s), FAKE_WEBHOOK_TARGET (the service's base URL
// the payment fakes send their webhooks to, at /webhooks/stripe and /webhooks/cashfree; default
// none: events are recorded, not sent), FAKE_STRIPE_SECRET_KEY (the only bearer key the Stripe
// fake accepts; default any), FAKE_STRIPE_WEBHOOK_SECRET (signs Stripe events; default
// whsec_fake), FAKE_CASHFREE_CLIENT_ID and FAKE_CASHFREE_CLIENT_SECRET (the only credentials the
// Cashfree fake accepts, the secret also signing its webhooks; default any, webhooks signed with
// the secret each order was created with), FAKE_WEBHOOK_TRIES and FAKE_WEBHOOK_BACKOFF (how many
// times a payment webhook is tried and how long apart, a Go duration; default 5 and 1s).
package main

import (
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/rewardsco/rewards/fakes/cashfree"
	"github.com/rewardsco/rewards/fakes/sms"
	"github.com/rewardsco/rewards/fakes/smtp"
	"github.com/rewardsco/rewards/fakes/stripe"
	"github.com/rewardsco/rewards/fakes/vouchers"
	"github.com/rewardsco/rewards/fakes/webhooks"
)

func main() {
	addr := env("FAKES_ADDR", ":9090")
	mux := http.NewServeMux()
	sms.New(env("FAKE_SMS_ACCOUNT_SID", "ACfake"), env("FAKE_SMS_AUTH_TOKEN", "fake-token")).Register(mux)
	webhooks.New().Register(mux)
	delay, err := time.ParseDuration(env("FAKE_VOUCHER_SANDBOX_DELAY", "10s"))
	if err != nil || delay < 0 {
		slog.Error("FAKE_VOUCHER_SANDBOX_DELAY must be a duration such as 10s", "value", os.Getenv("FAKE_VOUCHER_SANDBOX_DELAY"))
		os.Exit(1)
	}
	vouchers.New(vouchers.WithAPIKey(os.Getenv("FAKE_VOUCHER_API_KEY")), vouchers.WithSandboxDelay(delay)).Register(mux)
	tries, err := strconv.Atoi(env("FAKE_WEBHOOK_TRIES", "5"))
	if err != nil || tries < 1 {
		slog.Error("FAKE_WEBHOOK_TRIES must be a positive number", "value", os.Getenv("FAKE_WEBHOOK_TRIES"))
		os.Exit(1)
	}
	backoff, err := time.ParseDuration(env("FAKE_WEBHOOK_BACKOFF", "1s"))
	if err != nil || backoff < 0 {
		slog.Error("FAKE_WEBHOOK_BACKOFF must be a duration such as 1s", "value", os.Getenv("FAKE_WEBHOOK_BACKOFF"))
		os.Exit(1)
	}
	target := os.Getenv("FAKE_WEBHOOK_TARGET")
	stripe.New(stripe.WithSecretKey(os.Getenv("FAKE_STRIPE_SECRET_KEY")),
		stripe.WithWebhookSecret(os.Getenv("FAKE_STRIPE_WEBHOOK_SECRET")),
		stripe.WithWebhookTarget(target), stripe.WithWebhookRetries(tries, backoff)).Register(mux)
	cashfree.New(cashfree.WithClientID(os.Getenv("FAKE_CASHFREE_CLIENT_ID")),
		cashfree.WithClientSecret(os.Getenv("FAKE_CASHFREE_CLIENT_SECRET")),
		cashfree.WithWebhookTarget(target), cashfree.WithWebhookRetries(tries, backoff)).Register(mux)
	mailServer := smtp.New()
	mailServer.Register(mux)
	smtpAddr := env("FAKE_SMTP_ADDR", ":2525")
	smtpListener, err := net.Listen("tcp", smtpAddr)
	if err != nil {
		slog.Error("fake SMTP cannot listen", "addr", smtpAddr, "err", err)
		os.Exit(1)
	}
	go func() {
		if err := mailServer.Serve(smtpListener); err != nil {
			slog.Error("fake SMTP stopped", "err", err)
			os.Exit(1)
		}
	}()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	slog.Info("fakes listening", "addr", addr, "smtp", smtpAddr)
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		slog.Error("fakes stopped", "err", err)
		os.Exit(1)
	}
}

func env(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
