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
	"math"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/rewardsco/rewards/core/studio"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	loggerKey
	callerKey
	keyLookupKey
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

// Messages of the text refuseBadText refuses.
const (
	nulMessage  = "text must not contain the NUL character (\\u0000 in JSON, %00 in a URL)"
	utf8Message = "text must be UTF-8"
	nulProblem  = "must not contain the NUL character"
	utf8Problem = "must be valid UTF-8"
	unreadable  = "could not read the request body"
)

// refuseBadText answers 400 VALIDATION_FAILED to a request with text that no column can hold: a
// NUL character (U+0000) in its path, a query parameter, a header or a JSON, form or text body
// (PostgreSQL stores no NUL in text, nor \u0000 in jsonb), or bytes that are not UTF-8 in its
// path, query or such a body (PostgreSQL refuses them in a UTF-8 database, and encoding/json
// would turn them into U+FFFD behind the client's back). Either would otherwise fail as a 500
// wherever it reached the database. Other bodies (multipart uploads, binary data) pass
// untouched; so do headers that are not UTF-8, which HTTP allows and which reach storage only
// as an operation's declared parameters (checked by refuseBadParams).
func refuseBadText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		location, problem := badURLText(r)
		if location == "" {
			for name, values := range r.Header {
				if strings.ContainsRune(name, 0) || slices.ContainsFunc(values, func(v string) bool { return strings.ContainsRune(v, 0) }) {
					location, problem = "header."+name, nulProblem // r.Header keys are canonical, as Huma's header locations are
					break
				}
			}
		}
		if location == "" && r.Body != nil && r.Body != http.NoBody {
			check := bodyTextCheck(r.Header.Get("Content-Type"))
			if check != nil {
				body, err := io.ReadAll(r.Body)
				if err != nil {
					var tooLarge *http.MaxBytesError
					if errors.As(err, &tooLarge) {
						writeError(w, NewError(r.Context(), http.StatusRequestEntityTooLarge, "",
							fmt.Sprintf("request body is larger than %d bytes", tooLarge.Limit)))
						return
					}
					writeError(w, NewError(r.Context(), http.StatusBadRequest, "VALIDATION_FAILED", unreadable))
					return
				}
				r.Body = io.NopCloser(bytes.NewReader(body))
				if problem = check(body); problem != "" {
					location = "body"
				}
			}
		}
		if location != "" {
			message := nulMessage
			if problem == utf8Problem {
				message = utf8Message
			}
			e := NewError(r.Context(), http.StatusBadRequest, "VALIDATION_FAILED", message)
			e.Details = []ErrorDetail{boundedDetail(location, problem, nil)}
			writeError(w, e)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// textProblem says what is wrong with s as text: a NUL, bytes that are not UTF-8, or "".
func textProblem(s string) string {
	switch {
	case strings.ContainsRune(s, 0):
		return nulProblem
	case !utf8.ValidString(s):
		return utf8Problem
	}
	return ""
}

// badURLText returns where the request's path or query holds bad text and what is wrong, or "".
func badURLText(r *http.Request) (location, problem string) {
	if p := textProblem(r.URL.Path); p != "" {
		return "path", p
	}
	if r.URL.RawQuery == "" {
		return "", ""
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		// Malformed escapes elsewhere in the query: look at the escapes that parse.
		if strings.Contains(r.URL.RawQuery, "%00") || strings.ContainsRune(r.URL.RawQuery, 0) {
			return "query", nulProblem
		}
		if unescaped, err := url.QueryUnescape(r.URL.RawQuery); err == nil && !utf8.ValidString(unescaped) {
			return "query", utf8Problem
		}
		return "", ""
	}
	for name, values := range q {
		if p := textProblem(name); p != "" {
			return "query", p
		}
		for _, v := range values {
			if p := textProblem(v); p != "" {
				if fieldName.MatchString(name) {
					return "query." + name, p
				}
				return "query", p
			}
		}
	}
	return "", ""
}

// bodyTextCheck returns how to find bad text in a body of contentType, or nil for a body that
// is not text (a multipart upload, binary data), which may hold any bytes legitimately. A body
// with no Content-Type is read as JSON, as Huma reads it.
func bodyTextCheck(contentType string) func([]byte) string {
	mediaType, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil {
		mediaType = "application/json"
	}
	switch {
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return func(b []byte) string {
			if jsonHasNUL(b) {
				return nulProblem
			}
			if !utf8.Valid(b) {
				return utf8Problem
			}
			return ""
		}
	case mediaType == "application/x-www-form-urlencoded":
		return func(b []byte) string {
			q, err := url.ParseQuery(string(b))
			if err != nil {
				if bytes.Contains(b, []byte("%00")) || bytes.IndexByte(b, 0) >= 0 {
					return nulProblem
				}
				return ""
			}
			for name, values := range q {
				if p := textProblem(name); p != "" {
					return p
				}
				for _, v := range values {
					if p := textProblem(v); p != "" {
						return p
					}
				}
			}
			return ""
		}
	case strings.HasPrefix(mediaType, "text/"):
		return func(b []byte) string { return textProblem(string(b)) }
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

// refuseBadParams answers 400 VALIDATION_FAILED to a number parameter that is not finite
// (strconv reads NaN, Inf and Infinity, which no rule of the schema refuses and JSON cannot
// write) and to a header parameter that is not UTF-8, which would reach storage as it came
// (refuseBadText checks paths, queries and bodies, where every value is a parameter's).
func refuseBadParams(hctx huma.Context, next func(huma.Context)) {
	for _, p := range hctx.Operation().Parameters {
		if p == nil || p.Schema == nil {
			continue
		}
		var v string
		switch p.In {
		case "query":
			v = hctx.Query(p.Name)
		case "path":
			v = hctx.Param(p.Name)
		case "header":
			v = hctx.Header(p.Name)
		default:
			continue
		}
		problem := ""
		switch {
		case v == "":
		case p.In == "header" && !utf8.ValidString(v):
			problem = utf8Problem
		case p.Schema.Type == huma.TypeNumber:
			if f, err := strconv.ParseFloat(v, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				problem = "expected a finite number"
			}
		}
		if problem != "" {
			e := NewError(hctx.Context(), http.StatusBadRequest, "VALIDATION_FAILED", "validation failed")
			e.Details = []ErrorDetail{boundedDetail(p.In+"."+p.Name, problem, nil)}
			writeHumaError(hctx, e)
			return
		}
	}
	next(hctx)
}
