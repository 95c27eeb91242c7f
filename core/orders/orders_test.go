package orders_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/orders"
)

// The state machine allows exactly these moves; every other pair is refused.
func TestStateMachine(t *testing.T) {
	t.Parallel()
	allowed := map[[2]orders.Status]bool{
		{orders.Initiated, orders.Processing}:     true, // sent to the provider
		{orders.Initiated, orders.Success}:        true, // a coupon or good, delivered at once
		{orders.Initiated, orders.Failed}:         true, // refused before sending, refunded
		{orders.Processing, orders.Success}:       true, // issued
		{orders.Processing, orders.Failed}:        true, // refused, refunded
		{orders.Processing, orders.Timeout}:       true, // no final answer within the wait
		{orders.Timeout, orders.Success}:          true, // issued later
		{orders.Timeout, orders.Failed}:           true, // refused later, or never reached the provider by the deadline
		{orders.PendingPayment, orders.Initiated}: true, // paid: fulfilment starts
		{orders.PendingPayment, orders.Refunded}:  true, // never paid
		{orders.PendingPayment, orders.Failed}:    true, // paid, then refused
	}
	for _, from := range orders.Statuses {
		for _, to := range orders.Statuses {
			require.Equal(t, allowed[[2]orders.Status{from, to}], orders.CanMove(from, to), "%s → %s", from, to)
		}
	}
	for _, s := range []orders.Status{orders.Success, orders.Failed, orders.Refunded} {
		require.True(t, s.Final(), s)
	}
	for _, s := range []orders.Status{orders.Initiated, orders.Processing, orders.Timeout, orders.PendingPayment} {
		require.False(t, s.Final(), s)
	}
}
