package app

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/adapters/postgres"
)

// The standard OpenTelemetry variables that switch trace export on. The OTLP exporter reads
// them (and the other OTEL_EXPORTER_OTLP_* ones: headers, timeout, certificates) itself.
const (
	envOTLPEndpoint       = "OTEL_EXPORTER_OTLP_ENDPOINT"
	envOTLPTracesEndpoint = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
)

// tracingSettings are the variables above as Settings lists them.
var tracingSettings = []Setting{
	{envOTLPEndpoint, "(unset)", "OpenTelemetry's standard variable: when it (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set, traces are exported over OTLP/HTTP; unset, nothing is traced. The other OTEL_EXPORTER_OTLP_* variables and OTEL_SERVICE_NAME apply."},
	{envOTLPTracesEndpoint, "(unset)", "OpenTelemetry's standard variable: the traces endpoint alone (a full URL, e.g. http://collector:4318/v1/traces)."},
}

// Tracing is the service's OpenTelemetry tracing: a provider exporting spans over OTLP, or
// nothing at all.
type Tracing struct {
	// Provider is nil when tracing is off: then no adapter is instrumented, no exporter runs,
	// and nothing is started.
	Provider trace.TracerProvider
	shutdown func(context.Context) error
}

// Shutdown flushes the spans not yet exported and stops the exporter; without tracing it does
// nothing.
func (t Tracing) Shutdown(ctx context.Context) error {
	if t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// SetupTracing exports traces over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (and OTEL_SDK_DISABLED is not true, nor
// OTEL_TRACES_EXPORTER none), and sets up nothing otherwise. The service name is "rewards"
// unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
func SetupTracing(ctx context.Context, getenv func(string) string, log *slog.Logger) (Tracing, error) {
	if getenv(envOTLPEndpoint) == "" && getenv(envOTLPTracesEndpoint) == "" {
		return Tracing{}, nil
	}
	if strings.EqualFold(getenv("OTEL_SDK_DISABLED"), "true") || strings.EqualFold(getenv("OTEL_TRACES_EXPORTER"), "none") {
		log.Info("trace export is switched off (OTEL_SDK_DISABLED or OTEL_TRACES_EXPORTER=none)")
		return Tracing{}, nil
	}
	if p := firstSet(getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"), getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); strings.HasPrefix(p, "grpc") {
		log.Warn("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: traces go over OTLP/HTTP (http/protobuf); point the endpoint at the collector's OTLP/HTTP port (4318)")
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return Tracing{}, fmt.Errorf("OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "rewards"), attribute.String("service.version", Release())),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		log.Warn("trace resource attributes incomplete", "err", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	log.Info("exporting traces over OTLP", "endpoint", firstSet(getenv(envOTLPTracesEndpoint), getenv(envOTLPEndpoint)))
	return Tracing{Provider: tp, shutdown: tp.Shutdown}, nil
}

func firstSet(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// providerIdleConns is how many idle connections to one provider (voucher, payment, SMS) the
// service keeps open for its next calls.
const providerIdleConns = 64

// providerTransport is the HTTP transport of the service's calls to a provider: Go's default
// transport keeps 2 idle connections per host, so under more than 2 concurrent purchases every
// further call closed its connection when it ended and the next one opened (and, over TLS,
// negotiated) a new one. Each provider client has its own.
func providerTransport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConnsPerHost = providerIdleConns
	t.MaxIdleConns = max(t.MaxIdleConns, providerIdleConns)
	return t
}

// providerRoundTripper is a provider client's transport (providerTransport), traced with tp.
func providerRoundTripper(tp trace.TracerProvider) http.RoundTripper {
	return tracedTransport(tp, providerTransport())
}

// tracedTransport wraps base so that each outbound request is a client span of tp; with tp nil
// it returns base unchanged. No trace context is sent to the
// outside parties (webhook receivers, providers): their headers stay as they were.
func tracedTransport(tp trace.TracerProvider, base http.RoundTripper) http.RoundTripper {
	if tp == nil {
		return base
	}
	return otelhttp.NewTransport(base, otelhttp.WithTracerProvider(tp),
		otelhttp.WithPropagators(propagation.NewCompositeTextMapPropagator()))
}

// NewMetrics builds the private registry /metrics serves and the metrics adapters count on.
// Collectors that read the database are added by RegisterCollectors once it is open.
func NewMetrics() (*prometheus.Registry, *metrics.Metrics) {
	reg := prometheus.NewRegistry()
	return reg, metrics.New(reg)
}

// RegisterCollectors adds the scrape-time figures: pool use, open orders, orders awaiting an
// operator, the webhook outbox and queue depth.
func RegisterCollectors(reg prometheus.Registerer, pool *pgxpool.Pool, database *postgres.DB, queue *jobs.Queue) {
	reg.MustRegister(
		metrics.NewPoolCollector(pool),
		metrics.NewQueryCollector("orders_open", "Orders not yet in a final status (SUCCESS, FAILED, REFUNDED), by status.",
			[]string{"status"}, func(ctx context.Context) ([]metrics.Sample, error) {
				counts, err := database.OpenOrders(ctx)
				out := make([]metrics.Sample, 0, len(counts))
				for status, n := range counts {
					out = append(out, metrics.Sample{Labels: []string{status}, Value: float64(n)})
				}
				return out, err
			}),
		metrics.NewQueryCollector("orders_awaiting_operator", "Provider orders with no final answer a day past their deadline: asked no more, "+
			"neither delivered nor refunded, they wait for an operator (any is an alert).",
			nil, func(ctx context.Context) ([]metrics.Sample, error) {
				n, err := queue.OrdersAwaitingOperator(ctx)
				if err != nil {
					return nil, err
				}
				return []metrics.Sample{{Value: float64(n)}}, nil
			}),
		metrics.NewQueryCollector("webhook_outbox", fmt.Sprintf("Webhook deliveries pending (counted up to %d), and how long the longest-due one has "+
			"waited past its due time, in seconds: a lag that grows is a dispatcher behind.", postgres.OutboxDepthCap),
			[]string{"figure"}, func(ctx context.Context) ([]metrics.Sample, error) {
				pending, lag, err := postgres.NewWebhookOutbox(database).Depth(ctx)
				if err != nil {
					return nil, err
				}
				return []metrics.Sample{{Labels: []string{"pending"}, Value: float64(pending)}, {Labels: []string{"lag_seconds"}, Value: lag.Seconds()}}, nil
			}),
		metrics.NewQueryCollector("jobs", fmt.Sprintf("Unfinished background jobs by state and kind (counted up to %d per state).", jobs.DepthCap),
			[]string{"state", "kind"}, func(ctx context.Context) ([]metrics.Sample, error) {
				counts, err := queue.Depth(ctx)
				out := make([]metrics.Sample, 0, len(counts))
				for _, c := range counts {
					out = append(out, metrics.Sample{Labels: []string{c.State, c.Kind}, Value: float64(c.Count)})
				}
				return out, err
			}),
	)
}
