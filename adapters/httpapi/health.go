package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
)

type healthOutput struct {
	Body struct {
		Status string `json:"status" doc:"ok, ready" example:"ok"`
	}
}

func (s *Server) registerHealth() {
	huma.Register(s.API, huma.Operation{
		OperationID: "healthz",
		Method:      http.MethodGet,
		Path:        "/healthz",
		Summary:     "Liveness",
		Description: "200 while the process serves HTTP. Host-agnostic, no authentication.",
		Tags:        []string{tagHealth},
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		out := &healthOutput{}
		out.Body.Status = "ok"
		return out, nil
	})

	huma.Register(s.API, huma.Operation{
		OperationID: "readyz",
		Method:      http.MethodGet,
		Path:        "/readyz",
		Summary:     "Readiness",
		Description: "200 when the database answers; 503 UNAVAILABLE otherwise. Host-agnostic, no authentication.",
		Tags:        []string{tagHealth},
		Errors:      []int{http.StatusServiceUnavailable},
	}, func(ctx context.Context, _ *struct{}) (*healthOutput, error) {
		if err := s.cfg.Ready(ctx); err != nil {
			loggerFrom(ctx).WarnContext(ctx, "not ready", "err", err)
			return nil, NewError(ctx, http.StatusServiceUnavailable, "UNAVAILABLE", "database unavailable")
		}
		out := &healthOutput{}
		out.Body.Status = "ready"
		return out, nil
	})
}
