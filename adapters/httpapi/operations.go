package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"
)

// Op declares an operation by what differs from one operation to the next: its id (kebab-case),
// method and path, a summary, the description that states its rules and error codes, and the
// error statuses it answers besides those its credentials and the kit declare. Set any other
// field (DefaultStatus, RequestBody, …) on the result.
func Op(id, method, path, summary, description string, errors ...int) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary, Description: description, Errors: slices.Clone(errors)}
}

// Operations is what a group of a module's operations shares: the document they are in, their
// credentials and their tags.
type Operations struct {
	// API is the document: Server.API, or Server.OperatorAPI for the operator API.
	API huma.API
	// Auth declares the credentials (Server.APIKey, Server.Player, Server.Operator, …); nil for
	// an operation that takes none.
	Auth func(huma.Operation) huma.Operation
	// Tags group the operations on the docs page, unless an operation names its own.
	Tags []string
}

// Register declares op with the group's tags and credentials on its document and serves it with
// handler.
func Register[I, O any](g Operations, op huma.Operation, handler func(context.Context, *I) (*O, error)) {
	if op.Tags == nil {
		op.Tags = g.Tags
	}
	if g.Auth != nil {
		op = g.Auth(op)
	}
	huma.Register(g.API, op, handler)
}

// WithStatus is op answering status on success instead of 200 (201 for a creation, 202 for
// work queued): the status Huma documents and answers.
func WithStatus(status int, op huma.Operation) huma.Operation {
	op.DefaultStatus = status
	return op
}

// CreateOrReplace declares a create-or-replace operation, answered with Put: 201 Created and
// 200 Replaced, with the same body (Huma documents the default status alone).
func CreateOrReplace(op huma.Operation) huma.Operation {
	if op.Responses == nil {
		op.Responses = map[string]*huma.Response{}
	}
	op.Responses[strconv.Itoa(http.StatusOK)] = &huma.Response{Description: "Replaced"}
	return AlsoAnswers(op, http.StatusCreated, "Created")
}
