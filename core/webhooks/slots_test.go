package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestSlotsPaceDeliveriesOfAStalledConfiguration: with every slot held by attempts that have
// not ended for 20 s, a delivery does not wait at all; the deliveries put off are spread a
// quarter of an attempt apart (four slots), up to maxPutOff.
func TestSlotsPaceDeliveriesOfAStalledConfiguration(t *testing.T) {
	t.Parallel()
	s := newSlots(4)
	id := uuid.New()
	ctx := context.Background()
	for range 4 {
		_, _, ok := s.take(ctx, id)
		require.True(t, ok)
	}
	s.configs[id].answered = time.Now().Add(-20 * time.Second)

	started := time.Now()
	var got []time.Duration
	for range 5 {
		_, after, ok := s.take(ctx, id)
		require.False(t, ok)
		got = append(got, after)
	}
	require.Less(t, time.Since(started), slotWait, "no delivery waited for a stalled receiver")
	for i, after := range got {
		want := min(time.Duration(i+1)*5*time.Second, maxPutOff)
		require.GreaterOrEqual(t, after, want, "put-off %d", i)
		require.LessOrEqual(t, after, want+want/4, "put-off %d", i)
	}
}

// TestSlotsWaitForAnAnsweringConfiguration: with a receiver that answers within milliseconds,
// a delivery that finds the slots full waits for one instead of being put off.
func TestSlotsWaitForAnAnsweringConfiguration(t *testing.T) {
	t.Parallel()
	s := newSlots(4)
	id := uuid.New()
	ctx := context.Background()
	gives := make(chan func(), 4)
	for range 4 {
		give, _, ok := s.take(ctx, id)
		require.True(t, ok)
		gives <- give
	}
	gave := make(chan struct{})
	go func() {
		defer close(gave)
		time.Sleep(10 * time.Millisecond)
		(<-gives)()
	}()
	give, _, ok := s.take(ctx, id)
	require.True(t, ok, "a slot came within slotWait")
	give()
	for range 3 {
		(<-gives)()
	}
	// The waiter gets its slot as soon as the goroutine's give frees it, before that give has
	// left: the count of holders is read once it has.
	<-gave
	require.Empty(t, s.configs, "slots nobody holds are forgotten")
}
