package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/rewardsco/rewards/adapters/postgres/db"
)

// Retention deletes rows that have served their purpose (OTP records, finished webhook
// deliveries), a bounded batch per statement, by the database's clock. The periodic jobs of
// adapters/jobs call it in a loop; which rows may go is decided here, in SQL
// (sql/queries/retention.sql), and never reaches a row a rule still counts.
type Retention struct{ q *db.Queries }

// NewRetention returns the retention purges on d.
func NewRetention(d *DB) *Retention { return &Retention{q: db.New(outages{d.pool})} }

// PurgeOTPBatch deletes at most batch rows of each OTP table (codes, failed checks, failure
// runs that count nothing) older than olderThan. more reports that a table gave a full batch,
// so another call may find more.
func (r *Retention) PurgeOTPBatch(ctx context.Context, olderThan time.Duration, batch int) (deleted int64, more bool, err error) {
	secs, size := olderThan.Seconds(), int32(batch)
	for _, purge := range []struct {
		table string
		run   func() (int64, error)
	}{
		{"otp_codes", func() (int64, error) {
			return r.q.RetentionPurgeOTPCodes(ctx, db.RetentionPurgeOTPCodesParams{OlderThanSeconds: secs, Batch: size})
		}},
		{"otp_failures", func() (int64, error) {
			return r.q.RetentionPurgeOTPFailures(ctx, db.RetentionPurgeOTPFailuresParams{OlderThanSeconds: secs, Batch: size})
		}},
		{"otp_failure_runs", func() (int64, error) {
			return r.q.RetentionPurgeOTPFailureRuns(ctx, db.RetentionPurgeOTPFailureRunsParams{OlderThanSeconds: secs, Batch: size})
		}},
	} {
		n, err := purge.run()
		if err != nil {
			return deleted, false, fmt.Errorf("purge %s: %w", purge.table, err)
		}
		deleted += n
		more = more || n >= int64(batch)
	}
	return deleted, more, nil
}

// PurgeDeliveriesBatch deletes at most batch finished (SUCCESS or FAILED) webhook deliveries
// created more than olderThan ago; pending and retrying ones stay whatever their age.
func (r *Retention) PurgeDeliveriesBatch(ctx context.Context, olderThan time.Duration, batch int) (deleted int64, more bool, err error) {
	n, err := r.q.RetentionPurgeWebhookDeliveries(ctx, db.RetentionPurgeWebhookDeliveriesParams{
		OlderThanSeconds: olderThan.Seconds(), Batch: int32(batch)})
	if err != nil {
		return 0, false, fmt.Errorf("purge webhook deliveries: %w", err)
	}
	return n, n >= int64(batch), nil
}

// OpenOrders counts the orders not yet in a final status, by status, for /metrics.
func (d *DB) OpenOrders(ctx context.Context) (map[string]int64, error) {
	rows, err := db.New(outages{d.pool}).MetricsOpenOrders(ctx)
	if err != nil {
		return nil, fmt.Errorf("count open orders: %w", err)
	}
	out := make(map[string]int64, len(rows))
	for _, row := range rows {
		out[row.Status] = row.Orders
	}
	return out, nil
}
