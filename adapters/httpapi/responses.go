package httpapi

import (
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// Headers the kit sets on answers, as the documents declare them.
const (
	// RequestIDHeader is on every answer (middleware withRequestContext).
	RequestIDHeader = "X-Request-Id"
	// RetryAfterHeader tells a client how many seconds to wait before trying again.
	RetryAfterHeader = "Retry-After"
)

// declareKitStatuses declares the error statuses the kit answers for any operation, so that
// the documents are exact for generated clients: 400 VALIDATION_FAILED (a text holding a NUL or
// bytes that are not UTF-8, middleware refuseBadText), 413 BODY_TOO_LARGE for a body past the
// limit and 415 UNSUPPORTED_MEDIA_TYPE for a body of a type the operation does not read, 500,
// and the 503
// SERVICE_UNAVAILABLE of an operation while the database is out of reach. Huma gives an
// operation without errors a "default" answer of the error model instead, which would make every
// status valid: it is replaced by these. It runs as each operation is added, before
// documentErrorCodes, which gives each of these statuses its codes.
func declareKitStatuses(op *huma.Operation) {
	errModel := op.Responses["default"]
	delete(op.Responses, "default")
	if errModel == nil {
		errModel = errorResponse(op)
	}
	if errModel == nil {
		return
	}
	statuses := []int{http.StatusBadRequest, http.StatusInternalServerError}
	if op.RequestBody != nil {
		statuses = append(statuses, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	if op.Path != "/healthz" && op.Path != "/metrics" {
		statuses = append(statuses, http.StatusServiceUnavailable)
	}
	for _, status := range statuses {
		if op.Responses[strconv.Itoa(status)] != nil {
			continue
		}
		content := map[string]*huma.MediaType{}
		for ct, mt := range errModel.Content {
			content[ct] = &huma.MediaType{Schema: mt.Schema}
		}
		op.Responses[strconv.Itoa(status)] = &huma.Response{Description: http.StatusText(status), Content: content}
	}
}

// The headers declareKitResponses adds, one of each for every answer of every operation: a
// copy each was a megabyte of the service's heap (a huma.Schema is large).
var (
	requestIDParam = &huma.Param{
		Description: "The request's id: the incoming x-request-id when valid, a new one otherwise. Quote it to support.",
		Required:    true,
		Schema:      &huma.Schema{Type: huma.TypeString},
	}
	retryAfterParam = &huma.Param{
		Description: "Seconds to wait before trying again, when known.",
		Schema:      &huma.Schema{Type: huma.TypeInteger, Minimum: new(float64)},
	}
)

// declareKitResponses completes an operation's documented answers with what the kit adds to
// every answer: x-request-id on each, and Retry-After on 429 and 503; the statuses AlsoAnswers
// named; and binary bodies in a way both documents accept (BinarySchema). It runs as each
// operation is added (huma.OpenAPI.OnAddOperation), after Huma has built its request body and
// responses.
func declareKitResponses(_ *huma.OpenAPI, op *huma.Operation) {
	declareAlsoAnswers(op)
	if op.RequestBody != nil {
		for _, mt := range op.RequestBody.Content {
			if mt != nil {
				mt.Schema = binaryAsFormat(mt.Schema)
			}
		}
	}
	for status, res := range op.Responses {
		if res == nil || res.Ref != "" {
			continue
		}
		if res.Headers == nil {
			res.Headers = map[string]*huma.Param{}
		}
		res.Headers[RequestIDHeader] = requestIDParam
		if status == strconv.Itoa(http.StatusTooManyRequests) || status == strconv.Itoa(http.StatusServiceUnavailable) {
			res.Headers[RetryAfterHeader] = retryAfterParam
		}
	}
}

// errorResponse is one of op's documented error answers (they all have the error model's
// shape), or nil.
func errorResponse(op *huma.Operation) *huma.Response {
	for status, res := range op.Responses {
		if code, err := strconv.Atoi(status); err == nil && code >= 400 && res != nil && res.Content != nil {
			return res
		}
	}
	return nil
}

// BinarySchema is the schema of bytes (an uploaded file, an image, a raw body): a string of
// format binary in the 3.1 document and its 3.0.3 variant alike. Huma writes a Schema of format
// binary with contentMediaType (and multipart files with contentEncoding), 3.1 keywords that
// its 3.0.3 variant keeps and 3.0 generators and validators refuse; a format set as an
// extension is written as is.
func BinarySchema(description string) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Description: description, Extensions: map[string]any{"format": "binary"}}
}

// binaryAsFormat replaces a schema of format binary, and such properties of an object (a
// multipart form), with BinarySchema.
func binaryAsFormat(s *huma.Schema) *huma.Schema {
	if s == nil {
		return nil
	}
	if s.Type == huma.TypeString && s.Format == "binary" {
		return BinarySchema(s.Description)
	}
	for name, p := range s.Properties {
		s.Properties[name] = binaryAsFormat(p)
	}
	return s
}

// alsoAnswersKey is the operation metadata AlsoAnswers leaves for declareKitResponses.
const alsoAnswersKey = "rewards:alsoAnswers"

// alsoAnswer is a success status an operation answers besides its default one.
type alsoAnswer struct {
	status      int
	description string
}

// AlsoAnswers declares that op answers status with the same body and headers as its default
// status, for an operation whose handler picks its success status (201 for a creation and 200
// for a replay or an update, in an output's Status field): Huma documents the default status
// only.
func AlsoAnswers(op huma.Operation, status int, description string) huma.Operation {
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	also, _ := op.Metadata[alsoAnswersKey].([]alsoAnswer)
	op.Metadata[alsoAnswersKey] = append(also, alsoAnswer{status: status, description: description})
	return op
}

// declareAlsoAnswers documents the statuses AlsoAnswers named, as copies of the default one.
func declareAlsoAnswers(op *huma.Operation) {
	also, _ := op.Metadata[alsoAnswersKey].([]alsoAnswer)
	if len(also) == 0 {
		return
	}
	def := op.Responses[strconv.Itoa(op.DefaultStatus)]
	if def == nil {
		panic("operation " + op.OperationID + ": AlsoAnswers needs a documented default status")
	}
	for _, a := range also {
		res := *def
		res.Description = a.description
		res.Headers = map[string]*huma.Param{}
		for k, v := range def.Headers {
			res.Headers[k] = v
		}
		op.Responses[strconv.Itoa(a.status)] = &res
	}
}
