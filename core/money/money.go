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
	if math.IsNaN(u) || u < 0 || u > 1e12 {
		return 0, fmt.Errorf("amount must be from 0 to 1e12, got %v", u)
	}
	cents := math.Round(u * 100)
	if math.Abs(cents-u*100) > 1e-6 {
		return 0, fmt.Errorf("amount %v has more than two decimals", u)
	}
	return Amount(cents), nil
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
	if math.IsNaN(p) || p < 0 || p > 100 {
		return 0, fmt.Errorf("percentage must be from 0 to 100, got %v", p)
	}
	bp := math.Round(p * 100)
	if math.Abs(bp-p*100) > 1e-6 {
		return 0, fmt.Errorf("percentage %v has more than two decimals", p)
	}
	return Pct(bp), nil
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
