// Package money provides exact decimal amounts and active ISO 4217 currencies
// for the payments API.
//
// Amounts never go through float64 arithmetic: 0.1 + 0.2 is exactly 0.3. The
// GraphQL "Decimal" and "Currency" scalars are thin wrappers around
// ParseAmount/ValidatePositive and ParseCurrency; ValidateAmount ties the two
// together by enforcing the currency's ISO 4217 minor units.
package money

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Amount is an exact decimal amount (possibly zero or negative, e.g. a difference); its zero value is 0.
//
// Amounts built by ParseAmount, AmountFromFloat, UnmarshalJSON and Scan are
// within ±MaxAmount with at most MaxPlaces decimal places; AmountFromInt, Add
// and Sub are not bounds-checked, so check them with ValidatePositive or
// ValidateAmount before use. Compare amounts with Cmp, not ==: "1.50" and
// "1.5" are equal amounts with different internal representations.
type Amount struct{ d decimal.Decimal }

// String returns the canonical form: no exponent, no trailing fractional zeros, never "-0" ("100.5", "0.3", "100").
func (a Amount) String() string { return a.d.String() }

// StringFixed returns the amount with exactly places decimal places ("100.50"), rounding half away from zero; places is clamped to 0..MaxPlaces.
func (a Amount) StringFixed(places int32) string {
	places = max(0, min(places, MaxPlaces))
	return a.d.StringFixed(places)
}

// Decimal returns the amount as a shopspring decimal for arithmetic this package does not offer.
func (a Amount) Decimal() decimal.Decimal { return a.d }

// Add returns a + b exactly; the result is not bounds-checked.
func (a Amount) Add(b Amount) Amount { return Amount{d: a.d.Add(b.d)} }

// Sub returns a - b exactly; the result is not bounds-checked and may be negative.
func (a Amount) Sub(b Amount) Amount { return Amount{d: a.d.Sub(b.d)} }

// Cmp compares by value and returns -1 if a < b, 0 if a == b ("1.50" vs "1.5"), +1 if a > b.
func (a Amount) Cmp(b Amount) int { return a.d.Cmp(b.d) }

// IsZero reports whether the amount is 0.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsPositive reports whether the amount is greater than 0.
func (a Amount) IsPositive() bool { return a.d.IsPositive() }

// IsNegative reports whether the amount is less than 0.
func (a Amount) IsNegative() bool { return a.d.IsNegative() }

// Places returns the number of decimal places of the value, ignoring trailing zeros ("100.50" → 1, "100" → 0).
func (a Amount) Places() int32 {
	s := a.String()
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return int32(len(s) - i - 1)
	}
	return 0
}
