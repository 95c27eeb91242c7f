package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/validation"

	"github.com/rewardsco/rewards/core/errs"
)

// APIError is the one error body of every API: {statusCode, message, error, code?, requestId,
// details?}. It replaces Huma's default error model.
type APIError struct {
	StatusCode int           `json:"statusCode" doc:"HTTP status code" example:"400"`
	Message    string        `json:"message" doc:"What went wrong, for a person" example:"validation failed"`
	Reason     string        `json:"error" doc:"HTTP reason phrase" example:"Bad Request"`
	Code       string        `json:"code,omitempty" doc:"Stable machine-readable code, UPPER_SNAKE_CASE" example:"VALIDATION_FAILED"`
	RequestID  string        `json:"requestId" doc:"The request id, also in the x-request-id header" example:"01J9Z6W3P4Q5R6S7T8V9W0X1Y2"`
	Details    []ErrorDetail `json:"details,omitempty" maxItems:"20" doc:"Validation failures, at most 20 (the message counts the rest); all unknown fields of a body are one"`

	headers http.Header
}

// ErrorDetail is one validation failure.
type ErrorDetail struct {
	Location string `json:"location" doc:"Where the bad value is, e.g. body.amount or header.X-Language" example:"body.amount"`
	Message  string `json:"message" doc:"What is wrong with it" example:"expected number >= 1"`
	Value    any    `json:"value,omitempty" doc:"The value received, when it is a short scalar (at most 256 bytes of text) and not a credential"`
}

// Error implements error.
func (e *APIError) Error() string { return e.Message }

// GetStatus implements huma.StatusError.
func (e *APIError) GetStatus() int { return e.StatusCode }

// GetHeaders implements huma.HeadersError, so an error can carry e.g. Retry-After.
func (e *APIError) GetHeaders() http.Header { return e.headers }

// WithHeader returns e with a response header set.
func (e *APIError) WithHeader(key, value string) *APIError {
	if e.headers == nil {
		e.headers = http.Header{}
	}
	e.headers.Set(key, value)
	return e
}

// NewError builds an error body for the request in ctx. A 500 never carries the message it
// was given: that goes to the log, the client sees "internal error". Other statuses carry the
// message, which callers only ever write themselves.
func NewError(ctx context.Context, status int, code, message string) *APIError {
	if status == http.StatusInternalServerError {
		message = "internal error"
	}
	if code == "" {
		code = defaultCode(status)
	}
	return &APIError{
		StatusCode: status,
		Message:    clip(message, maxMessageBytes),
		Reason:     http.StatusText(status),
		Code:       code,
		RequestID:  requestIDFrom(ctx),
	}
}

// defaultCode names a status for errors raised without a specific code.
func defaultCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BAD_REQUEST"
	case http.StatusUnauthorized:
		return "UNAUTHORIZED"
	case http.StatusForbidden:
		return "FORBIDDEN"
	case http.StatusNotFound:
		return "NOT_FOUND"
	case http.StatusMethodNotAllowed:
		return "METHOD_NOT_ALLOWED"
	case http.StatusNotAcceptable:
		return "NOT_ACCEPTABLE"
	case http.StatusConflict:
		return "CONFLICT"
	case http.StatusRequestEntityTooLarge:
		return "BODY_TOO_LARGE"
	case http.StatusUnsupportedMediaType:
		return "UNSUPPORTED_MEDIA_TYPE"
	case http.StatusMisdirectedRequest:
		return "UNKNOWN_HOST"
	case http.StatusTooManyRequests:
		return "RATE_LIMITED"
	case http.StatusServiceUnavailable:
		return "UNAVAILABLE"
	}
	if status >= 500 {
		return "INTERNAL"
	}
	return strings.ToUpper(strings.ReplaceAll(http.StatusText(status), " ", "_"))
}

// installErrorModel makes Huma raise APIError everywhere: request validation failures become
// 400 VALIDATION_FAILED with details (Huma's own choice is 422), and 5xx bodies say nothing
// of the cause, which is logged instead.
func installErrorModel() { errorModelOnce.Do(setErrorModel) }

// errorModelOnce guards Huma's package-level error hooks: servers built concurrently (tests)
// must not write them at the same time.
var errorModelOnce sync.Once

func setErrorModel() {
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return humaError(context.Background(), status, msg, errs...)
	}
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		ctx := context.Background()
		if hctx != nil {
			ctx = hctx.Context()
		}
		return humaError(ctx, status, msg, errs...)
	}
}

func humaError(ctx context.Context, status int, msg string, errs ...error) huma.StatusError {
	if status >= 500 {
		loggerFrom(ctx).ErrorContext(ctx, "request failed", "status", status, "message", msg, "errors", errors.Join(errs...))
		return NewError(ctx, status, "", msg)
	}
	details := make([]ErrorDetail, 0, min(len(errs), maxDetails+1))
	var unknown *unknownFields
	problems := 0
	for _, err := range errs {
		if err == nil {
			continue
		}
		var d huma.ErrorDetailer
		if !errors.As(err, &d) {
			problems++
			if len(details) < maxDetails {
				details = append(details, ErrorDetail{Message: err.Error()})
			}
			continue
		}
		ed := d.ErrorDetail()
		if ed.Message == validation.MsgUnexpectedProperty {
			// One detail for every unknown field, however many came: Huma makes one per field,
			// each carrying the whole object as its value.
			parent, name := splitField(ed.Location, ed.Value)
			if unknown == nil {
				problems++
				unknown = &unknownFields{at: len(details), parent: parent}
				if len(details) < maxDetails {
					details = append(details, ErrorDetail{})
				}
			}
			unknown.add(name)
			continue
		}
		problems++
		if len(details) < maxDetails {
			details = append(details, boundedDetail(ed.Location, ed.Message, ed.Value))
		}
	}
	if unknown != nil && unknown.at < len(details) {
		details[unknown.at] = unknown.detail()
	}
	code := ""
	// A 400 of Huma's is always about the request's content (a missing or unreadable body
	// included), so it has the one code of that kind.
	if status == http.StatusUnprocessableEntity || status == http.StatusBadRequest || status == 0 {
		status, code = http.StatusBadRequest, "VALIDATION_FAILED"
	}
	if problems > len(details) {
		msg = fmt.Sprintf("%s: %d problems, the first %d listed", msg, problems, len(details))
	}
	e := NewError(ctx, status, code, msg)
	if status == http.StatusUnsupportedMediaType {
		// Huma's detail of a body it cannot read holds the whole body, credentials included.
		details = nil
	}
	e.Details = details
	return e
}

// writeError writes e as the response; for the chi layer and middlewares outside Huma.
func writeError(w http.ResponseWriter, e *APIError) {
	for k, vs := range e.headers {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(e.StatusCode)
	_ = json.NewEncoder(w).Encode(e)
}

// statusOf is the HTTP status of each kind of coded error: the one place where core errors
// meet HTTP (benbjohnson/wtf's error.go is the model).
var statusOf = map[errs.Kind]int{
	errs.Invalid:       http.StatusBadRequest,
	errs.Unauthorized:  http.StatusUnauthorized,
	errs.Forbidden:     http.StatusForbidden,
	errs.NotFound:      http.StatusNotFound,
	errs.Conflict:      http.StatusConflict,
	errs.Unprocessable: http.StatusUnprocessableEntity,
	errs.RateLimited:   http.StatusTooManyRequests,
	errs.Upstream:      http.StatusBadGateway,
	errs.Unavailable:   http.StatusServiceUnavailable,
}

// StatusOf is the HTTP status of a kind of coded error, 500 for a kind with none; the pages
// answer their refusals with it too.
func StatusOf(k errs.Kind) int {
	if status, ok := statusOf[k]; ok {
		return status
	}
	return http.StatusInternalServerError
}

// ErrorFrom turns any error a core call returned into the response: a coded error (core/errs)
// becomes its kind's status with its code and message, and Retry-After when it says how long
// to wait; anything else is logged and becomes the opaque 500.
func ErrorFrom(ctx context.Context, err error) *APIError {
	var api *APIError
	if errors.As(err, &api) {
		return api
	}
	e, ok := errs.As(err)
	status, known := statusOf[errs.KindOf(err)]
	if !ok || !known {
		loggerFrom(ctx).ErrorContext(ctx, "internal error", "err", err)
		return NewError(ctx, http.StatusInternalServerError, "", "")
	}
	if status >= 500 || error(e) != err {
		// The cause (which gateway, what it said) is for the log; the client gets the coded
		// error's message only.
		loggerFrom(ctx).WarnContext(ctx, "request failed", "code", e.Code, "err", err)
	}
	out := NewError(ctx, status, e.Code, e.Message)
	if e.RetryAfter > 0 {
		out = out.WithHeader("Retry-After", strconv.FormatInt(int64((e.RetryAfter+time.Second-1)/time.Second), 10))
	}
	return out
}

// ValidationError is a 400 VALIDATION_FAILED about one field, for rules Huma's schema cannot
// express.
func ValidationError(ctx context.Context, location, message string, value any) *APIError {
	e := NewError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", "validation failed")
	e.Details = []ErrorDetail{boundedDetail(location, message, value)}
	return e
}

// ReplayHeader is the header that marks an answer replayed under an idempotency key.
const ReplayHeader = "X-Idempotent-Replay"

// IdempotentError is ErrorFrom for an idempotent operation: a refusal replayed under an
// idempotency key carries ReplayHeader, as a replayed success does.
func IdempotentError(ctx context.Context, err error, replayed bool) *APIError {
	e := ErrorFrom(ctx, err)
	if replayed {
		e = e.WithHeader(ReplayHeader, "true")
	}
	return e
}
