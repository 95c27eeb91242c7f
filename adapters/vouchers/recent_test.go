package vouchers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/vouchers"
)

func TestRecentAnswersWithinItsTTLAndStaysBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	c := vouchers.NewRecent[string, int](time.Minute, 2, func() time.Time { return now })
	c.Put("a", 1, now)
	now = now.Add(59 * time.Second)
	v, ok := c.Get("a")
	require.True(t, ok)
	require.Equal(t, 1, v)
	c.Put("b", 2, now)
	now = now.Add(time.Second)
	_, ok = c.Get("a")
	require.False(t, ok, "a minute old")

	c.Put("c", 3, now) // full: the expired a goes, b stays
	_, ok = c.Get("b")
	require.True(t, ok)
	c.Put("d", 4, now) // full of fresh values: all go
	_, ok = c.Get("b")
	require.False(t, ok)
	_, ok = c.Get("c")
	require.False(t, ok)
	v, _ = c.Get("d")
	require.Equal(t, 4, v)
}
