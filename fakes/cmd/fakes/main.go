// Command fakes serves the fakes of every external system on one port, for local runs and the
// e2e suite: the SMS gateway (fakes/sms), the webhook receiver (fakes/webhooks) and the voucher
// provider (fakes/vouchers, API root /vouchers). Environment: FAKES_ADDR (default :9090),
// FAKE_SMS_ACCOUNT_SID (default ACfake), FAKE_SMS_AUTH_TOKEN (default fake-token),
// FAKE_VOUCHER_API_KEY (the only X-Api-Key the voucher provider accepts; default any),
// FAKE_VOUCHER_SANDBOX_DELAY (how long SANDBOX_SLOW orders stay pending, a Go duration; default
// 10s).
package main

import (
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/rewardsco/rewards/fakes/sms"
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
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	slog.Info("fakes listening", "addr", addr)
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
