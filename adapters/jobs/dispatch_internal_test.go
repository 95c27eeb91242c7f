package jobs

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/webhooks"
)

// failingRunner fails every attempt on our side.
type failingRunner struct{}

func (failingRunner) DeliverPending(context.Context, webhooks.Pending) (webhooks.Attempt, error) {
	return webhooks.Attempt{}, errors.New("secret does not unseal")
}

func (failingRunner) DisableFailing(context.Context) ([]uuid.UUID, error) { return nil, nil }

// countingOutbox records what the dispatcher tells it of internal failures.
type countingOutbox struct {
	mu       sync.Mutex
	failures []uuid.UUID
}

func (o *countingOutbox) Claim(context.Context, int, time.Duration) ([]webhooks.Pending, error) {
	return nil, nil
}
func (o *countingOutbox) PutOff(context.Context, []uuid.UUID, []time.Duration) error { return nil }
func (o *countingOutbox) InternalFailure(_ context.Context, id uuid.UUID, max int, reason string) (bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.failures = append(o.failures, id)
	return false, nil
}

// An attempt that fails on our side is counted on its delivery (which the outbox puts off and
// in the end dead-letters), rather than left to be taken again at its lease's end forever; one
// cut short by the dispatcher's stop is not.
func TestAnInternalFailureIsCountedOnItsDelivery(t *testing.T) {
	t.Parallel()
	out := &countingOutbox{}
	d := newDispatcher(out, failingRunner{}, 2, nil, nil)
	p := webhooks.Pending{DeliveryID: uuid.New()}
	d.busy = 1
	d.attempt(context.Background(), p)
	require.Equal(t, []uuid.UUID{p.DeliveryID}, out.failures)

	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	d.busy = 1
	d.attempt(stopped, webhooks.Pending{DeliveryID: uuid.New()})
	require.Len(t, out.failures, 1, "an attempt cut short by a stop is no failure of the delivery")
}
