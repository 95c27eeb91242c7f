package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/common/expfmt"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

type operationKey struct{}

// operationLabel is where the request's operation is noted once known.
type operationLabel struct{ name string }

// unmatched labels requests that reached no route (404s, and refusals before routing such as a
// NUL character or an oversized body).
const unmatched = "unmatched"

// observe counts every request on s.cfg.Metrics by operation, method and status, and names the
// request's trace span after its route. The operation is the Huma operation id (noted by
// noteOperation) or, for plain chi routes, the route pattern; never the raw path, so that the
// number of series stays bounded whatever clients send.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		label := &operationLabel{}
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		defer func() {
			route := ""
			if rctx := chi.RouteContext(r.Context()); rctx != nil {
				route = rctx.RoutePattern()
			}
			if route != "" {
				span := trace.SpanFromContext(r.Context())
				span.SetName(r.Method + " " + route)
				span.SetAttributes(attribute.String("http.route", route))
			}
			op := label.name
			if op == "" {
				op = route
			}
			if op == "" {
				op = unmatched
			}
			status := ww.Status()
			if status == 0 {
				status = http.StatusOK // a handler that wrote nothing answered 200
			}
			if p := recover(); p != nil {
				s.cfg.Metrics.ObserveRequest(op, r.Method, http.StatusInternalServerError, time.Since(start))
				panic(p)
			}
			s.cfg.Metrics.ObserveRequest(op, r.Method, status, time.Since(start))
		}()
		next.ServeHTTP(ww, r.WithContext(context.WithValue(r.Context(), operationKey{}, label)))
	})
}

// noteOperation is the Huma middleware (first of every operation) that tells observe the
// operation id.
func noteOperation(hctx huma.Context, next func(huma.Context)) {
	if l, ok := hctx.Context().Value(operationKey{}).(*operationLabel); ok {
		l.name = hctx.Operation().OperationID
	}
	next(hctx)
}

// traced wraps h in OpenTelemetry's HTTP server instrumentation when a tracer provider is
// configured: a span per request (named after its route by observe), continuing a trace whose
// W3C traceparent the caller sent.
func traced(h http.Handler, tp trace.TracerProvider) http.Handler {
	if tp == nil {
		return h
	}
	return otelhttp.NewHandler(h, "http.server",
		otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.TraceContext{}),
		otelhttp.WithSpanNameFormatter(func(_ string, r *http.Request) string { return r.Method }))
}

// metricsFormat is the Prometheus text exposition format.
var metricsFormat = expfmt.NewFormat(expfmt.TypeTextPlain)

func (s *Server) registerMetrics() {
	huma.Register(s.OperatorAPI, s.Operator(huma.Operation{
		OperationID: "get-metrics",
		Method:      http.MethodGet,
		Path:        "/metrics",
		Summary:     "Prometheus metrics",
		Description: "The service's metrics in the Prometheus text format, for a Prometheus server to scrape with the operator token " +
			"(`authorization: {type: Bearer, credentials: <REWARDS_ADMIN_TOKEN>}` in its scrape config). Host-agnostic.\n\n" +
			"Series (all prefixed `rewards_`): `http_requests_total` and `http_request_duration_seconds` by operation " +
			"(the operation id of this document, or the route pattern), method and status; `coin_movements_total` and " +
			"`coins_moved_total` by reason and direction; `order_transitions_total` by status entered and `orders_open` by " +
			"status (orders not yet SUCCESS, FAILED or REFUNDED); `webhook_deliveries_total` by outcome; `jobs` by state and " +
			"kind (unfinished background jobs, counted up to 100,000 per state); `db_pool_*` (connections acquired, idle, " +
			"total, maximum, and waits for a connection); and the Go runtime's and process's own. Counters are per instance.",
		Responses: map[string]*huma.Response{"200": {
			Description: "The metrics, in the Prometheus text format (version 0.0.4).",
			Content:     map[string]*huma.MediaType{string(metricsFormat): {Schema: &huma.Schema{Type: "string"}}},
		}},
	}), func(ctx context.Context, _ *struct{}) (*huma.StreamResponse, error) {
		var buf bytes.Buffer
		if s.cfg.Gatherer != nil {
			// As promhttp does, a collector that fails leaves out its own series, not the rest.
			families, err := s.cfg.Gatherer.Gather()
			if err != nil {
				loggerFrom(ctx).WarnContext(ctx, "metrics gathered with errors", "err", err)
			}
			enc := expfmt.NewEncoder(&buf, metricsFormat)
			for _, mf := range families {
				if err := enc.Encode(mf); err != nil {
					return nil, err
				}
			}
		}
		// Written as a stream, so that the media type is the declared content's alone: an output
		// field would be declared as a Content-Type response header, which OpenAPI ignores.
		return &huma.StreamResponse{Body: func(hctx huma.Context) {
			hctx.SetHeader("Content-Type", string(metricsFormat))
			hctx.SetStatus(http.StatusOK)
			_, _ = hctx.BodyWriter().Write(buf.Bytes())
		}}, nil
	})
}
