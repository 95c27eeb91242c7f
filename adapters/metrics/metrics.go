// Package metrics holds the service's Prometheus series: one Metrics value, built by the
// composition root on a private registry and handed to the adapters that count (the HTTP kit,
// the postgres adapter, the job queue), plus collectors that read their figures at scrape time
// (the pool, queue depth, open orders). Core modules know nothing of it.
//
// Every label has a bounded set of values: operations are Huma operation ids or chi route
// patterns (never raw paths), reasons outside the platform's own are "CUSTOM", statuses and
// outcomes come from closed lists.
package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/orders"
)

// Namespace prefixes every series of the service.
const Namespace = "rewards"

// Metrics are the counters and histograms the adapters feed. A nil *Metrics counts nothing, so
// adapters built without one (tests, tools) need no checks.
type Metrics struct {
	requests          *prometheus.CounterVec
	durations         *prometheus.HistogramVec
	coinMovements     *prometheus.CounterVec
	coinAmounts       *prometheus.CounterVec
	webhookDeliveries *prometheus.CounterVec
	orderTransitions  *prometheus.CounterVec
}

// New registers the service's series on reg, with the Go runtime and process collectors.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by operation (Huma operation id or route pattern), method and status.",
		}, []string{"operation", "method", "status"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: Namespace, Name: "http_request_duration_seconds",
			Help:    "Time to answer HTTP requests, by operation, method and status.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"operation", "method", "status"}),
		coinMovements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "coin_movements_total",
			Help: "Committed balance changes, by reason (the platform's own, else CUSTOM) and direction (credit, debit).",
		}, []string{"reason", "direction"}),
		coinAmounts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "coins_moved_total",
			Help: "Coins moved by committed balance changes, by reason and direction.",
		}, []string{"reason", "direction"}),
		webhookDeliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "webhook_deliveries_total",
			Help: "Webhook delivery job runs by outcome: delivered, retry (failed, another attempt due), failed (dead-lettered), " +
				"busy (configuration at its in-flight cap, snoozed without an attempt), skipped (no attempt: finished, gone or its configuration inactive), " +
				"error (internal error, retried by the queue).",
		}, []string{"outcome"}),
		orderTransitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: Namespace, Name: "order_transitions_total",
			Help: "Committed order status changes, by the status entered (a new order enters INITIATED).",
		}, []string{"status"}),
	}
	reg.MustRegister(m.requests, m.durations, m.coinMovements, m.coinAmounts, m.webhookDeliveries, m.orderTransitions,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveRequest counts one answered HTTP request.
func (m *Metrics) ObserveRequest(operation, method string, status int, d time.Duration) {
	if m == nil {
		return
	}
	s := strconv.Itoa(status)
	m.requests.WithLabelValues(operation, method, s).Inc()
	m.durations.WithLabelValues(operation, method, s).Observe(d.Seconds())
}

// knownReasons are the reasons the platform itself writes; a studio's own reasons are free
// text, so they share one label value.
var knownReasons = map[string]bool{
	coins.ReasonGameCredit: true, coins.ReasonGameDebit: true,
	orders.ReasonPurchaseDebit: true, orders.ReasonRefundCredit: true,
}

// CoinMovement counts one committed balance change of amount coins.
func (m *Metrics) CoinMovement(reason string, typ coins.TxType, amount int64) {
	if m == nil {
		return
	}
	if !knownReasons[reason] {
		reason = "CUSTOM"
	}
	direction := "credit"
	if typ == coins.Debit {
		direction = "debit"
	}
	m.coinMovements.WithLabelValues(reason, direction).Inc()
	m.coinAmounts.WithLabelValues(reason, direction).Add(float64(amount))
}

// Webhook delivery outcomes.
const (
	DeliveryDelivered = "delivered"
	DeliveryRetry     = "retry"
	DeliveryFailed    = "failed"
	DeliveryBusy      = "busy"
	DeliverySkipped   = "skipped"
	DeliveryError     = "error"
)

// WebhookDelivery counts one run of a delivery job by its outcome.
func (m *Metrics) WebhookDelivery(outcome string) {
	if m == nil {
		return
	}
	m.webhookDeliveries.WithLabelValues(outcome).Inc()
}

// OrderTransition counts one committed order status change.
func (m *Metrics) OrderTransition(to string) {
	if m == nil {
		return
	}
	m.orderTransitions.WithLabelValues(to).Inc()
}

// NewPoolCollector reports the database pool's use at scrape time (pgxpool.Stat): connections
// acquired, idle, total and the maximum, and the acquisitions that had to wait and for how long.
func NewPoolCollector(pool *pgxpool.Pool) prometheus.Collector {
	desc := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc(prometheus.BuildFQName(Namespace, "db_pool", name), help, nil, nil)
	}
	return &poolCollector{pool: pool,
		acquired:  desc("acquired_conns", "Connections in use."),
		idle:      desc("idle_conns", "Idle connections."),
		total:     desc("total_conns", "Connections open (acquired, idle and being opened)."),
		max:       desc("max_conns", "The pool's maximum size."),
		waits:     desc("empty_acquire_total", "Acquisitions that waited because the pool was empty."),
		waitTime:  desc("empty_acquire_wait_seconds_total", "Time acquisitions spent waiting for a connection."),
		acquires:  desc("acquire_total", "Successful acquisitions."),
		cancelled: desc("canceled_acquire_total", "Acquisitions cancelled by their context."),
	}
}

type poolCollector struct {
	pool                                                             *pgxpool.Pool
	acquired, idle, total, max, waits, waitTime, acquires, cancelled *prometheus.Desc
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.acquired, c.idle, c.total, c.max, c.waits, c.waitTime, c.acquires, c.cancelled} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(c.acquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(c.idle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(c.total, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(c.max, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(c.waits, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.waitTime, prometheus.CounterValue, s.EmptyAcquireWaitTime().Seconds())
	ch <- prometheus.MustNewConstMetric(c.acquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(c.cancelled, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
}

// Sample is one labelled value a query returned.
type Sample struct {
	Labels []string
	Value  float64
}

// QueryTimeout bounds each query a QueryCollector runs at scrape time.
const QueryTimeout = 2 * time.Second

// NewQueryCollector reports the gauge name (with labels) from query, run at scrape time with
// QueryTimeout. A failed query reports nothing for that scrape and counts in
// rewards_scrape_query_errors_total{collector=name}, so a slow database never stalls a scrape.
func NewQueryCollector(name, help string, labels []string, query func(context.Context) ([]Sample, error)) prometheus.Collector {
	return &queryCollector{
		desc:  prometheus.NewDesc(prometheus.BuildFQName(Namespace, "", name), help, labels, nil),
		query: query,
		errors: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: Namespace, Name: "scrape_query_errors_total",
			Help:        "Queries of scrape-time collectors that failed or timed out.",
			ConstLabels: prometheus.Labels{"collector": name},
		}),
	}
}

type queryCollector struct {
	desc   *prometheus.Desc
	query  func(context.Context) ([]Sample, error)
	errors prometheus.Counter
}

func (c *queryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.desc
	c.errors.Describe(ch)
}

func (c *queryCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), QueryTimeout)
	defer cancel()
	samples, err := c.query(ctx)
	if err != nil {
		c.errors.Inc()
	}
	for _, s := range samples {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, s.Value, s.Labels...)
	}
	c.errors.Collect(ch)
}
