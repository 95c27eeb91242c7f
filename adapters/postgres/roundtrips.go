package postgres

import (
	"context"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

// roundTrips counts what the pools built with RoundTripCounter sent to PostgreSQL.
var roundTrips atomic.Int64

// RoundTrips returns how many round trips the pools traced by RoundTripCounter have made to
// PostgreSQL since the process started: each statement (BEGIN and COMMIT included), each
// pipelined batch (one however many statements it holds) and each prepare. The load benchmark
// reads it around a scenario to report round trips per request; the count is process-wide, so
// background work (the job queue's polling) is in it too.
func RoundTrips() int64 { return roundTrips.Load() }

// RoundTripCounter is a pgx tracer that counts round trips (RoundTrips); set it as a pool's
// ConnConfig.Tracer. It costs one atomic add per round trip.
type RoundTripCounter struct{}

var (
	_ pgx.QueryTracer   = RoundTripCounter{}
	_ pgx.BatchTracer   = RoundTripCounter{}
	_ pgx.PrepareTracer = RoundTripCounter{}
)

// TraceQueryStart implements pgx.QueryTracer.
func (RoundTripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	roundTrips.Add(1)
	return ctx
}

// TraceQueryEnd implements pgx.QueryTracer.
func (RoundTripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TraceBatchStart implements pgx.BatchTracer: a batch is one round trip.
func (RoundTripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	roundTrips.Add(1)
	return ctx
}

// TraceBatchQuery implements pgx.BatchTracer.
func (RoundTripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (RoundTripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// TracePrepareStart implements pgx.PrepareTracer: preparing a statement is a round trip of its
// own (once per connection and statement with pgx's statement cache).
func (RoundTripCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	roundTrips.Add(1)
	return ctx
}

// TracePrepareEnd implements pgx.PrepareTracer.
func (RoundTripCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}
