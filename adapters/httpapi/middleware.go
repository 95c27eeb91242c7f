package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/go-chi/chi/v5/middleware"

	"github.com/rewardsco/rewards/core/studio"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
	callerKey
)

// requestIDPattern is what an incoming x-request-id must look like to be echoed; anything else
// is replaced, so logs never carry a client's arbitrary bytes.
var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

func loggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

func newRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// withRequestContext gives every request an id (echoing a valid x-request-id, else a new one),
// a logger carrying it, and an access-log line when it ends. Panics become opaque 500s.
func withRequestContext(log *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			id := r.Header.Get("x-request-id")
			if !requestIDPattern.MatchString(id) {
				id = newRequestID()
			}
			w.Header().Set("x-request-id", id)
			reqLog := log.With("request_id", id)
			ctx := context.WithValue(r.Context(), requestIDKey, id)
			ctx = context.WithValue(ctx, loggerKey, reqLog)
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			defer func() {
				if p := recover(); p != nil {
					if p == http.ErrAbortHandler {
						panic(p)
					}
					reqLog.ErrorContext(ctx, "panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
					if ww.Status() == 0 {
						writeError(ww, NewError(ctx, http.StatusInternalServerError, "", ""))
					}
				}
				level := slog.LevelInfo
				if ww.Status() >= 500 {
					level = slog.LevelError
				}
				reqLog.Log(ctx, level, "request",
					"method", r.Method, "path", r.URL.Path, "host", r.Host, "status", ww.Status(),
					"bytes", ww.BytesWritten(), "duration", time.Since(start), "remote", r.RemoteAddr)
			}()
			next.ServeHTTP(ww, r.WithContext(ctx))
		})
	}
}

// limitBody caps every request body at max bytes, multipart uploads included; Huma applies its
// tighter per-operation limits inside that.
func limitBody(max int64) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.ContentLength > max {
				writeError(w, NewError(r.Context(), http.StatusRequestEntityTooLarge, "",
					fmt.Sprintf("request body is larger than %d bytes", max)))
				return
			}
			r.Body = http.MaxBytesReader(w, r.Body, max)
			next.ServeHTTP(w, r)
		})
	}
}

// Hosts maps a request's Host to its environment, per REWARDS_LIVE_HOSTS and REWARDS_DEV_HOSTS.
type Hosts struct {
	Live []string
	Dev  []string
}

// Environment returns the environment of host (the port is ignored), and false for a host in
// neither list.
func (h Hosts) Environment(host string) (studio.Environment, bool) {
	name := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		name = hh
	}
	name = strings.ToLower(strings.Trim(name, "[]"))
	for _, l := range h.Live {
		if strings.EqualFold(l, name) {
			return studio.Live, true
		}
	}
	for _, d := range h.Dev {
		if strings.EqualFold(d, name) {
			return studio.Test, true
		}
	}
	return "", false
}

func (h Hosts) unknownHostMessage(host string) string {
	return fmt.Sprintf("host %q is not served here; live hosts: %s; development hosts: %s",
		host, strings.Join(h.Live, ", "), strings.Join(h.Dev, ", "))
}
