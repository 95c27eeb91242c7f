package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/webhooks"
)

// The pending webhook deliveries are an outbox: the statement that records an event (a coin
// movement's, or an order's or partner wallet's trigger) adds them, one to each configuration that
// takes it (webhook_routes, the webhooks module's rule), and dispatchers (adapters/jobs) take the
// due ones in batches (WebhookOutbox.Claim), make their attempts through the webhooks module, and
// record the outcomes together (attemptRecorder). The rows are the only record of what is owed: a
// claim is a lease on them (due_at moved to its end), so a delivery whose dispatcher dies is taken
// again once the lease ends, and no two dispatchers hold one delivery at once.

// WebhookOutbox is the dispatchers' side of the outbox.
type WebhookOutbox struct {
	d *DB
}

// NewWebhookOutbox returns the outbox of the deliveries stored on d.
func NewWebhookOutbox(d *DB) *WebhookOutbox { return &WebhookOutbox{d: d} }

// Claim takes at most n due deliveries, the longest due first, for lease: until it ends no
// other claim returns them. A delivery another claim is taking at the same moment is skipped.
func (o *WebhookOutbox) Claim(ctx context.Context, n int, lease time.Duration) ([]webhooks.Pending, error) {
	rows, err := db.New(outages{o.d.pool}).WebhooksClaimDue(ctx, db.WebhooksClaimDueParams{Lim: int32(n), LeaseSeconds: lease.Seconds()})
	return toCoreAll(rows, err, toCorePending, "claim webhook deliveries")
}

// PutOff gives claimed deliveries back, each due again after its delay in after (on the
// database's clock); a finished one is left as it is.
func (o *WebhookOutbox) PutOff(ctx context.Context, ids []uuid.UUID, after []time.Duration) error {
	if len(ids) == 0 {
		return nil
	}
	secs := make([]float64, len(after))
	for i, d := range after {
		secs[i] = d.Seconds()
	}
	return wrapErr(db.New(outages{o.d.pool}).WebhooksPutOff(ctx, db.WebhooksPutOffParams{Ids: ids, DelaySeconds: secs}), "put off webhook deliveries")
}

// InternalFailure counts an attempt of a claimed delivery that failed on our side: the delivery
// is put off a minute more for each such failure so far, and dead-lettered (FAILED with reason)
// at the max-th. It reports whether it was dead-lettered.
func (o *WebhookOutbox) InternalFailure(ctx context.Context, id uuid.UUID, max int, reason string) (bool, error) {
	status, err := db.New(outages{o.d.pool}).WebhooksInternalFailure(ctx, db.WebhooksInternalFailureParams{ID: id, Max: int32(max), Reason: reason})
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil // finished meanwhile
	}
	if err != nil {
		return false, fmt.Errorf("count an internal failure of webhook delivery %s: %w", id, err)
	}
	return status == string(webhooks.StatusFailed), nil
}

// OutboxDepthCap bounds how many pending deliveries Depth counts, so that a scrape of a huge
// backlog reads a bounded number of index entries; a count at the cap means "at least".
const OutboxDepthCap = 100_000

// Depth is how many deliveries are pending (at most OutboxDepthCap) and how long the
// longest-due one has waited past its due time, for /metrics.
func (o *WebhookOutbox) Depth(ctx context.Context) (pending int64, lag time.Duration, err error) {
	row, err := db.New(o.d.pool).WebhooksOutboxDepth(ctx, OutboxDepthCap)
	if err != nil {
		return 0, 0, fmt.Errorf("webhook outbox depth: %w", err)
	}
	return row.Pending, time.Duration(row.LagSeconds * float64(time.Second)), nil
}

// maxAttemptBatch bounds the attempts one statement records.
const maxAttemptBatch = 500

// attemptWriteTimeout bounds one statement of recorded attempts.
const attemptWriteTimeout = 15 * time.Second

// recordedAttempt is one RecordAttempt on the pool.
type recordedAttempt struct {
	id         uuid.UUID
	status     string
	attemptNo  int
	httpStatus *int
	errMsg     *string
	at         time.Time
	next       *time.Time
	done       chan error
}

// attemptRecorder records the attempts recorded on the pool in group commit: while one
// statement runs, the attempts that arrive wait, and the next statement records them all. A
// burst of deliveries then costs a few statements rather than one per attempt, and a lone
// attempt goes at once.
type attemptRecorder struct {
	d       *DB
	mu      sync.Mutex
	queued  []*recordedAttempt
	writing bool
}

func newAttemptRecorder(d *DB) *attemptRecorder { return &attemptRecorder{d: d} }

// record records a and returns once its statement has run. A delivery already finished is not
// changed.
func (r *attemptRecorder) record(ctx context.Context, a *recordedAttempt) error {
	a.done = make(chan error, 1)
	r.mu.Lock()
	r.queued = append(r.queued, a)
	lead := !r.writing
	r.writing = true
	r.mu.Unlock()
	if lead {
		go r.write(context.WithoutCancel(ctx))
	}
	// The statement runs whatever becomes of ctx, so the outcome is known once it is answered.
	return <-a.done
}

// write records what is queued, one statement after another, until nothing is.
func (r *attemptRecorder) write(ctx context.Context) {
	for {
		r.mu.Lock()
		batch := r.queued
		if len(batch) > maxAttemptBatch {
			batch, r.queued = batch[:maxAttemptBatch], batch[maxAttemptBatch:]
		} else {
			r.queued = nil
		}
		if len(batch) == 0 {
			r.writing = false
			r.mu.Unlock()
			return
		}
		r.mu.Unlock()
		err := r.writeBatch(ctx, batch)
		for _, a := range batch {
			a.done <- err
		}
	}
}

func (r *attemptRecorder) writeBatch(ctx context.Context, batch []*recordedAttempt) error {
	ctx, cancel := context.WithTimeout(ctx, attemptWriteTimeout)
	defer cancel()
	if err := db.New(outages{r.d.pool}).WebhooksRecordAttempts(ctx, attemptsParams(batch)); err != nil {
		return fmt.Errorf("record %d webhook attempts: %w", len(batch), err)
	}
	return nil
}

// attemptsParams are WebhooksRecordAttempts' parameters for batch.
func attemptsParams(batch []*recordedAttempt) db.WebhooksRecordAttemptsParams {
	p := db.WebhooksRecordAttemptsParams{
		Ids: make([]uuid.UUID, len(batch)), Statuses: make([]string, len(batch)), AttemptNumbers: make([]int32, len(batch)),
		HttpStatusCodes: make([]int32, len(batch)), ErrorMessages: make([]string, len(batch)), AttemptedAts: make([]time.Time, len(batch)),
		Retries: make([]bool, len(batch)), NextRetryAts: make([]time.Time, len(batch)),
	}
	for i, a := range batch {
		p.Ids[i], p.Statuses[i], p.AttemptNumbers[i], p.AttemptedAts[i] = a.id, a.status, int32(a.attemptNo), a.at
		if a.httpStatus != nil {
			p.HttpStatusCodes[i] = int32(*a.httpStatus)
		}
		if a.errMsg != nil {
			p.ErrorMessages[i] = *a.errMsg
		}
		if a.next != nil {
			p.Retries[i], p.NextRetryAts[i] = true, *a.next
		} else {
			p.NextRetryAts[i] = a.at
		}
	}
	return p
}
