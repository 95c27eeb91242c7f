// Package money is how the core counts money: whole hundredths (paise, cents) of the
// deployment currency, so no sum or comparison ever meets a rounding error.
package money

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Amount is a sum of money in hundredths of the currency's unit: 12345 is 123.45.
type Amount int64

// FromUnits converts a decimal number of units (123.45) into an Amount. It refuses negative
// numbers, more than two decimals, and sums beyond a trillion units.
func FromUnits(u float64) (Amount, error) {
	cents, err := hundredths(u, 1e12, "amount", "1e12")
	return Amount(cents), err
}

// hundredths is x in whole hundredths. It refuses x below 0 or above limit, or with more than
// two decimals; what names x and limitText spells limit in the errors.
func hundredths(x, limit float64, what, limitText string) (int64, error) {
	if math.IsNaN(x) || x < 0 || x > limit {
		return 0, fmt.Errorf("%s must be from 0 to %s, got %v", what, limitText, x)
	}
	h := math.Round(x * 100)
	if math.Abs(h-x*100) > 1e-6 {
		return 0, fmt.Errorf("%s %v has more than two decimals", what, x)
	}
	return int64(h), nil
}

// Units is the amount as a decimal number of units, for JSON.
func (a Amount) Units() float64 { return float64(a) / 100 }

// String formats the amount with two decimals: "123.45".
func (a Amount) String() string {
	sign := ""
	if a < 0 {
		sign, a = "-", -a
	}
	return sign + strconv.FormatInt(int64(a)/100, 10) + "." + fmt.Sprintf("%02d", int64(a)%100)
}

// Parse reads a decimal string with at most two decimals ("123.45", "500").
func Parse(s string) (Amount, error) {
	whole, frac, _ := strings.Cut(strings.TrimSpace(s), ".")
	if len(frac) > 2 {
		return 0, fmt.Errorf("amount %q has more than two decimals", s)
	}
	frac += strings.Repeat("0", 2-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	return Amount(n), nil
}

// Pct is a percentage in hundredths of a percent (basis points): 1250 is 12.5%.
type Pct int64

// PctFromFloat converts 12.5 into 1250; at most two decimals, 0 to 100.
func PctFromFloat(p float64) (Pct, error) {
	bp, err := hundredths(p, 100, "percentage", "100")
	return Pct(bp), err
}

// Float is the percentage as a number (12.5).
func (p Pct) Float() float64 { return float64(p) / 100 }

// Less returns a reduced by p, rounded half up to the hundredth: 100.00 less 12.5% is 87.50.
func (a Amount) Less(p Pct) Amount {
	return Amount((int64(a)*(10000-int64(p)) + 5000) / 10000)
}

// Times returns a × n.
func (a Amount) Times(n int64) Amount { return Amount(MulSat(int64(a), n)) }

// MulSat multiplies two non-negative numbers, saturating at math.MaxInt64 instead of wrapping:
// the bounds on inputs keep prices far below it, and should they not, a price saturates (and
// cannot be paid) rather than turning small or negative.
func MulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return a * b
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}
