package money

import (
	"math"
	"testing"
)

// Prices never wrap: a product past int64 saturates at math.MaxInt64 (which no balance can
// pay), instead of becoming small or negative.
func TestMulSatNeverWraps(t *testing.T) {
	for _, c := range []struct{ a, b, want int64 }{
		{0, math.MaxInt64, 0},
		{3, 4, 12},
		{math.MaxInt64, 1, math.MaxInt64},
		{math.MaxInt64 / 2, 3, math.MaxInt64},
		{18_400_000_000_000_000, 4_484, math.MaxInt64},
		{1 << 32, 1 << 32, math.MaxInt64},
	} {
		if got := MulSat(c.a, c.b); got != c.want {
			t.Errorf("MulSat(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := Amount(math.MaxInt64 / 2).Times(3); got != math.MaxInt64 {
		t.Errorf("Times wrapped: %d", got)
	}
}
