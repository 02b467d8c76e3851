// Package money provides exact decimal amounts and active ISO 4217 currencies
// for the payments API.
//
// Amounts never go through float64 arithmetic: 0.1 + 0.2 is exactly 0.3. The
// GraphQL "Decimal" and "Currency" scalars are thin wrappers around
// ParseAmount/ValidatePositive and ParseCurrency; ValidateAmount ties the two
// together by enforcing the currency's ISO 4217 minor units.
package money

import (
	"strconv"
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

// Append appends String's form to b; for amounts of at most 15 significant
// digits (every amount within MaxAmount with up to 6 places) it allocates
// nothing.
func (a Amount) Append(b []byte) []byte {
	if a.d.NumDigits() > 15 {
		return append(b, a.d.String()...)
	}
	c, exp := a.d.CoefficientInt64(), int(a.d.Exponent())
	if c == 0 {
		return append(b, '0')
	}
	if c < 0 {
		b = append(b, '-')
		c = -c
	}
	if exp >= 0 {
		b = strconv.AppendInt(b, c, 10)
		for range exp {
			b = append(b, '0')
		}
		return b
	}
	var digits [20]byte
	str := strconv.AppendInt(digits[:0], c, 10)
	intPart, zeros, frac := str, 0, []byte(nil)
	if len(str) > -exp {
		intPart, frac = str[:len(str)+exp], str[len(str)+exp:]
	} else {
		intPart, zeros, frac = []byte{'0'}, -exp-len(str), str
	}
	for len(frac) > 0 && frac[len(frac)-1] == '0' {
		frac = frac[:len(frac)-1]
	}
	b = append(b, intPart...)
	if len(frac) > 0 {
		b = append(b, '.')
		for range zeros {
			b = append(b, '0')
		}
		b = append(b, frac...)
	}
	return b
}

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
