package catalogue_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/catalogue"
)

// A player is in a reward's cooldown from a purchase until the cooldown has passed, and never
// when the reward has none or the player never bought it.
func TestNextPurchaseAt(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	for _, c := range []struct {
		name     string
		cooldown time.Duration
		last     *time.Time
		next     time.Time
		in       bool
	}{
		{"no cooldown", 0, at(-time.Minute), time.Time{}, false},
		{"never bought", time.Hour, nil, time.Time{}, false},
		{"bought a minute ago", time.Hour, at(-time.Minute), now.Add(59 * time.Minute), true},
		{"cooldown just over", time.Hour, at(-time.Hour), now, false},
		{"long ago", time.Hour, at(-2 * time.Hour), now.Add(-time.Hour), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			next, in := catalogue.Reward{PurchaseCooldown: c.cooldown}.NextPurchaseAt(c.last, now)
			require.Equal(t, c.in, in)
			require.Equal(t, c.next, next)
		})
	}
}
