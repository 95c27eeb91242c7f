package httpapi

import (
	"context"
	"net/http"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/stretchr/testify/require"
)

// An operator operation registered on the public API (or another on the operator API) stops
// the server from being built, so no operation can end up in the wrong document.
func TestOperationsJoinTheDocumentOfTheirAudience(t *testing.T) {
	t.Parallel()
	noop := func(context.Context, *struct{}) (*struct{}, error) { return nil, nil }
	op := func(path string) huma.Operation {
		return huma.Operation{OperationID: "x", Method: http.MethodGet, Path: path, Summary: "x"}
	}
	require.Panics(t, func() {
		s := New(Config{})
		huma.Register(s.API, s.Operator(op("/admin/v1/x")), noop)
	})
	require.Panics(t, func() {
		s := New(Config{})
		huma.Register(s.OperatorAPI, op("/x"), noop)
	})
	s := New(Config{})
	huma.Register(s.OperatorAPI, s.Operator(op("/admin/v1/x")), noop)
	huma.Register(s.API, op("/x"), noop)
	require.NotNil(t, s.PathItem("/admin/v1/x"))
	require.NotNil(t, s.PathItem("/x"))
	require.Nil(t, s.API.OpenAPI().Paths["/admin/v1/x"])
}
