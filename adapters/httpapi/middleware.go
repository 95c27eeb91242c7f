package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"slices"
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

// nulMessage is what a request carrying a NUL character is told.
const nulMessage = "text must not contain the NUL character (\\u0000 in JSON, %00 in a URL)"

// refuseNUL answers 400 VALIDATION_FAILED to a request with a NUL character (U+0000) in its
// path, a query parameter, a header or a JSON or form body: PostgreSQL stores no NUL in text
// (nor \u0000 in jsonb), so such a value would otherwise fail as a 500 wherever it reached the
// database. Other bodies (multipart uploads, binary data) pass untouched.
func refuseNUL(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		location := nulInURL(r)
		if location == "" {
			for name, values := range r.Header {
				if strings.ContainsRune(name, 0) || slices.ContainsFunc(values, func(v string) bool { return strings.ContainsRune(v, 0) }) {
					location = "header." + name // r.Header keys are canonical, as Huma's header locations are
					break
				}
			}
		}
		if location == "" && r.Body != nil && r.Body != http.NoBody {
			check := bodyNULCheck(r.Header.Get("Content-Type"))
			if check != nil {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					var tooLarge *http.MaxBytesError
					if errors.As(err, &tooLarge) {
						writeError(w, NewError(r.Context(), http.StatusRequestEntityTooLarge, "",
							fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)))
						return
					}
					writeError(w, NewError(r.Context(), http.StatusBadRequest, "", "could not read the request body"))
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				if check(body) {
					location = "body"
				}
			}
		}
		if location != "" {
			e := NewError(r.Context(), http.StatusBadRequest, "VALIDATION_FAILED", nulMessage)
			e.Details = []ErrorDetail{{Location: location, Message: "must not contain the NUL character"}}
			writeError(w, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// nulInURL returns where the request's path or query holds a NUL, or "".
func nulInURL(r *http.Request) string {
	if strings.ContainsRune(r.URL.Path, 0) {
		return "path"
	}
	if r.URL.RawQuery == "" {
		return ""
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		// Malformed escapes elsewhere in the query: look for an escaped NUL directly.
		if strings.Contains(r.URL.RawQuery, "%00") || strings.ContainsRune(r.URL.RawQuery, 0) {
			return "query"
		}
		return ""
	}
	for name, values := range q {
		if strings.ContainsRune(name, 0) {
			return "query"
		}
		if slices.ContainsFunc(values, func(v string) bool { return strings.ContainsRune(v, 0) }) {
			return "query." + name
		}
	}
	return ""
}

// bodyNULCheck returns how to find a NUL in a body of contentType, or nil for a body that is
// not text (a multipart upload, binary data), which may hold NUL bytes legitimately. A body with
// no Content-Type is read as JSON, as Huma reads it.
func bodyNULCheck(contentType string) func([]byte) bool {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		mediaType = "application/json"
	}
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return jsonHasNUL
	case mediaType == "application/x-www-form-urlencoded":
		return func(b []byte) bool {
			q, err := url.ParseQuery(string(b))
			if err != nil {
				return bytes.Contains(b, []byte("%00")) || bytes.IndexByte(b, 0) >= 0
			}
			for name, values := range q {
				if strings.ContainsRune(name, 0) || slices.ContainsFunc(values, func(v string) bool { return strings.ContainsRune(v, 0) }) {
					return true
				}
			}
			return false
		}
	case strings.HasPrefix(mediaType, "text/"):
		return func(b []byte) bool { return bytes.IndexByte(b, 0) >= 0 }
	}
	return nil
}

// jsonHasNUL reports whether JSON text holds a NUL: a raw zero byte or the escape \u0000 (its
// u in either case). An escaped backslash followed by u0000 is text, not a NUL.
func jsonHasNUL(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0:
			return true
		case '\\':
			if i+5 < len(b) && b[i+1]|0x20 == 'u' && string(b[i+2:i+6]) == "0000" {
				return true
			}
			i++ // the escaped character
		}
	}
	return false
}

// Headers of every response under /files/: the files are uploads, served as the type their
// content was checked to be; nosniff stops a browser from guessing another, and the sandboxing
// policy keeps anything that would render as a document from running script on this origin.
const (
	filesPrefix = "/files/"
	filesCSP    = "sandbox; default-src 'none'"
)

// sandboxFiles sets the headers of filesPrefix on every response under it, errors included.
func sandboxFiles(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, filesPrefix) {
			w.Header().Set("X-Content-Type-Options", "nosniff")
			w.Header().Set("Content-Security-Policy", filesCSP)
		}
		next.ServeHTTP(w, r)
	})
}
