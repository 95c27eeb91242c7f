// Command fakes serves the fakes of every external system on one port, for local runs and the
// e2e suite: the SMS gateway (fakes/sms) and the webhook receiver (fakes/webhooks). Environment: FAKES_ADDR (default :9090), FAKE_SMS_ACCOUNT_SID (default
// ACfake), FAKE_SMS_AUTH_TOKEN (default fake-token).
package main

import (
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/rewardsco/rewards/fakes/sms"
	"github.com/rewardsco/rewards/fakes/webhooks"
)

func main() {
	addr := env("FAKES_ADDR", ":9090")
	mux := http.NewServeMux()
	sms.New(env("FAKE_SMS_ACCOUNT_SID", "ACfake"), env("FAKE_SMS_AUTH_TOKEN", "fake-token")).Register(mux)
	webhooks.New().Register(mux)
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
