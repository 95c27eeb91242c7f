package jobs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/metrics"
	"github.com/rewardsco/rewards/core/webhooks"
)

// WebhookOutbox is where the pending webhook deliveries wait (postgres.WebhookOutbox): the
// rows are what is owed, and a claim is a lease on them.
type WebhookOutbox interface {
	// Claim takes at most n due deliveries for lease: until it ends no other claim returns them.
	Claim(ctx context.Context, n int, lease time.Duration) ([]webhooks.Pending, error)
	// PutOff gives claimed deliveries back, each due again after its delay in after.
	PutOff(ctx context.Context, ids []uuid.UUID, after []time.Duration) error
	// InternalFailure counts an attempt of a claimed delivery that failed on our side, puts the
	// delivery off longer each time, and dead-letters it with reason at the max-th (true then).
	InternalFailure(ctx context.Context, id uuid.UUID, max int, reason string) (bool, error)
}

// MaxInternalFailures is how many attempts of one delivery may fail on our side (as opposed to
// the receiver's) before it is dead-lettered: without a bound, a delivery whose secret no longer
// unseals would be taken again at every lease's end forever. Put off a minute more each time,
// the last comes about five hours after the first; a recover sends it again once mended.
const MaxInternalFailures = 25

// internalFailureReason is a delivery's error message when it is dead-lettered for failures of
// ours.
const internalFailureReason = "internal error: delivery abandoned"

// Tuning of the dispatcher.
const (
	// DeliveryLease is how long a claimed delivery is held by its dispatcher: longer than an
	// attempt may take (its timeout, the wait for a slot, the recording), so that it is taken
	// again only when its dispatcher died or lost the database meanwhile.
	DeliveryLease = webhooks.AttemptTimeout + 30*time.Second
	// dispatchPoll is how often a dispatcher looks for due deliveries it was not told of
	// (retries coming due, deliveries another instance added) after it found some lately, and
	// dispatchIdlePoll how often after idleClaims looks found none: an idle service's
	// background is a few statements a second. A delivery added on this instance wakes it.
	dispatchPoll     = 200 * time.Millisecond
	dispatchIdlePoll = time.Second
	idleClaims       = 5
	// claimGather is how long a dispatcher told of a delivery, or with only some workers free,
	// waits for more before it claims, so that it claims in batches under load.
	claimGather = 5 * time.Millisecond
	// pauseCheck is how often a dispatcher reads whether River's webhook queue is paused.
	pauseCheck = 250 * time.Millisecond
	// dispatchBackoff is the wait after a claim failed (the database unreachable).
	dispatchBackoff = time.Second
)

// dispatcher sends the webhook outbox's deliveries: it claims the due ones in batches, as many
// as it has workers free, and makes each one's attempt through the webhooks module, which
// records it (in group commit, in the postgres adapter). An attempt that got no slot of its
// configuration (webhooks.MaxInFlight) is given back, due when the module says; so is nothing
// else: a delivery whose attempt failed on the service's side stays leased and is taken again
// when the lease ends. The queue's pause of QueueWebhooks (River's QueuePause) pauses claims.
type dispatcher struct {
	outbox  WebhookOutbox
	runner  DeliveryRunner
	workers int
	metrics *metrics.Metrics
	log     *slog.Logger
	paused  func(context.Context) bool

	wake chan struct{} // deliveries were added, or a worker freed
	mu   sync.Mutex
	busy int           // attempts running
	off  []putOff      // deliveries to give back
	done chan struct{} // closed when run has returned and every attempt ended
	stop context.CancelFunc
}

type putOff struct {
	id    uuid.UUID
	after time.Duration
}

func newDispatcher(outbox WebhookOutbox, runner DeliveryRunner, workers int, m *metrics.Metrics, log *slog.Logger) *dispatcher {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &dispatcher{outbox: outbox, runner: runner, workers: workers, metrics: m, log: log,
		paused: func(context.Context) bool { return false }, wake: make(chan struct{}, 1)}
}

// nudge wakes the dispatcher; it never blocks.
func (d *dispatcher) nudge() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// start runs the dispatcher until stopAndWait. Attempts run on ctx: its end cancels them.
func (d *dispatcher) start(ctx context.Context) {
	loopCtx, stop := context.WithCancel(ctx)
	d.stop, d.done = stop, make(chan struct{})
	var attempts sync.WaitGroup
	go func() {
		d.run(loopCtx, ctx, &attempts)
		attempts.Wait()
		d.giveBack(ctx)
		close(d.done)
	}()
}

// stopAndWait stops claiming and waits for the attempts running, until ctx ends.
func (d *dispatcher) stopAndWait(ctx context.Context) error {
	if d.stop == nil {
		return nil
	}
	d.stop()
	select {
	case <-d.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *dispatcher) run(loopCtx, workCtx context.Context, attempts *sync.WaitGroup) {
	poll := time.NewTimer(0)
	defer poll.Stop()
	var pausedUntil time.Time
	var paused bool
	empty := idleClaims // looks in a row that found nothing; at start, as if idle
	for {
		d.giveBack(workCtx)
		free := d.free()
		if now := time.Now(); free > 0 && now.After(pausedUntil) {
			paused, pausedUntil = d.paused(loopCtx), now.Add(pauseCheck)
		}
		wait := dispatchPoll
		switch {
		case paused:
			wait = pauseCheck
		case free > 0:
			if free < d.workers/2 { // let more workers free up, so that claims are batches
				select {
				case <-loopCtx.Done():
					return
				case <-time.After(claimGather):
				}
				free = d.free()
			}
			claimed, err := d.outbox.Claim(loopCtx, free, DeliveryLease)
			if err != nil {
				if loopCtx.Err() != nil {
					return
				}
				d.log.WarnContext(loopCtx, "claim webhook deliveries", "err", err)
				select {
				case <-loopCtx.Done():
					return
				case <-time.After(dispatchBackoff):
				}
				continue
			}
			for _, p := range claimed {
				d.mu.Lock()
				d.busy++
				d.mu.Unlock()
				attempts.Add(1)
				go func() {
					defer attempts.Done()
					d.attempt(workCtx, p)
				}()
			}
			if len(claimed) == free {
				continue // there may be more due
			}
			if empty = min(empty+1, idleClaims); len(claimed) > 0 {
				empty = 0
			}
			if empty == idleClaims {
				wait = dispatchIdlePoll
			}
		}
		if !poll.Stop() {
			select {
			case <-poll.C:
			default:
			}
		}
		poll.Reset(wait)
		select {
		case <-loopCtx.Done():
			return
		case <-d.wake:
			// Told of a delivery or a freed worker: gather what follows it into one claim.
			select {
			case <-loopCtx.Done():
				return
			case <-time.After(claimGather):
			}
		case <-poll.C:
		}
	}
}

// free is how many workers are free.
func (d *dispatcher) free() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.workers - d.busy
}

// attempt makes p's attempt and frees its worker.
func (d *dispatcher) attempt(ctx context.Context, p webhooks.Pending) {
	actx, cancel := context.WithTimeout(ctx, webhooks.AttemptTimeout+15*time.Second)
	a, err := d.runner.DeliverPending(actx, p)
	cancel()
	d.metrics.WebhookDelivery(deliveryOutcome(a, err))
	d.mu.Lock()
	d.busy--
	if err == nil && a.Busy {
		d.off = append(d.off, putOff{id: p.DeliveryID, after: a.RetryAfter})
	}
	d.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		d.internalFailure(ctx, p, err)
	}
	d.nudge()
}

// internalFailure counts an attempt that failed on our side (MaxInternalFailures). When
// even that cannot be written (the database is out of reach), the delivery is taken again when
// its lease ends.
func (d *dispatcher) internalFailure(ctx context.Context, p webhooks.Pending, cause error) {
	dead, err := d.outbox.InternalFailure(context.WithoutCancel(ctx), p.DeliveryID, MaxInternalFailures, internalFailureReason)
	switch {
	case err != nil:
		d.log.WarnContext(ctx, "webhook delivery attempt failed; taken again after its lease",
			"delivery", p.DeliveryID, "lease", DeliveryLease, "err", errors.Join(cause, err))
	case dead:
		d.log.ErrorContext(ctx, "webhook delivery dead-lettered after repeated internal errors",
			"delivery", p.DeliveryID, "failures", MaxInternalFailures, "err", cause)
	default:
		d.log.WarnContext(ctx, "webhook delivery attempt failed on our side; put off", "delivery", p.DeliveryID, "err", cause)
	}
}

// giveBack puts off the deliveries that got no slot, in one statement. Should it fail, they
// are taken again when their lease ends.
func (d *dispatcher) giveBack(ctx context.Context) {
	d.mu.Lock()
	off := d.off
	d.off = nil
	d.mu.Unlock()
	if len(off) == 0 {
		return
	}
	ids, after := make([]uuid.UUID, len(off)), make([]time.Duration, len(off))
	for i, o := range off {
		ids[i], after[i] = o.id, o.after
	}
	if err := d.outbox.PutOff(context.WithoutCancel(ctx), ids, after); err != nil {
		d.log.WarnContext(ctx, "put off webhook deliveries; taken again after their lease", "count", len(ids), "err", err)
	}
}
