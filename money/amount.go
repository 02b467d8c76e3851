// Package money provides exact decimal amounts and active ISO 4217 currencies
// for the payments API.
//
// Amounts never go through float64 arithmetic: 0.1 + 0.2 is exactly 0.3. The
// GraphQL "Decimal" and "Currency" scalars are thin wrappers around
// ParseAmount/ValidatePositive and ParseCurrency; ValidateAmount ties the two
// together by enforcing the currency's ISO 4217 minor units.
package money

import (
	"cmp"
	"math"
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
	if c, exp, ok := a.small(); ok && (exp >= 0 || -exp <= places) {
		return string(appendFixed(make([]byte, 0, 24+places), c, exp, places))
	}
	return a.d.StringFixed(places)
}

// Format writes the amount with its currency's minor units and code
// ("150.00 USD"), never hiding decimal places the value actually has
// ("0.125 USD"): how reasons and messages show money.
func (a Amount) Format(c Currency) string {
	return a.StringFixed(max(c.MinorUnits(), a.Places(), 0)) + " " + string(c)
}

// small returns the amount as c × 10^exp when c fits an int64 (at most 16
// digits), for the paths that need no math/big: every amount within
// MaxAmount with up to one decimal place, and the usual amounts of any.
func (a Amount) small() (c int64, exp int32, ok bool) {
	if a.d.NumDigits() > 15 { // NumDigits may count one digit short
		return 0, 0, false
	}
	return a.d.CoefficientInt64(), a.d.Exponent(), true
}

// appendFixed appends c × 10^exp with exactly places decimal places, which
// must be at least -exp (nothing is rounded).
func appendFixed(b []byte, c int64, exp, places int32) []byte {
	if c < 0 {
		b = append(b, '-')
	}
	var buf [20]byte
	digits := strconv.AppendUint(buf[:0], absInt64(c), 10)
	frac := int32(0) // fractional digits written
	switch {
	case c == 0:
		b = append(b, '0')
	case exp >= 0:
		b = append(b, digits...)
		for range exp {
			b = append(b, '0')
		}
	case int32(len(digits)) > -exp:
		split := len(digits) + int(exp)
		b = append(append(append(b, digits[:split]...), '.'), digits[split:]...)
		frac = -exp
	default:
		b = append(b, '0', '.')
		for range -exp - int32(len(digits)) {
			b = append(b, '0')
		}
		b = append(b, digits...)
		frac = -exp
	}
	if places > frac && frac == 0 {
		b = append(b, '.')
	}
	for range places - frac {
		b = append(b, '0')
	}
	return b
}

func absInt64(c int64) uint64 {
	if c < 0 {
		return uint64(-c)
	}
	return uint64(c)
}

// Decimal returns the amount as a shopspring decimal for arithmetic this package does not offer.
func (a Amount) Decimal() decimal.Decimal { return a.d }

// Add returns a + b exactly; the result is not bounds-checked.
func (a Amount) Add(b Amount) Amount { return Amount{d: a.d.Add(b.d)} }

// Sub returns a - b exactly; the result is not bounds-checked and may be negative.
func (a Amount) Sub(b Amount) Amount { return Amount{d: a.d.Sub(b.d)} }

// Cmp compares by value and returns -1 if a < b, 0 if a == b ("1.50" vs "1.5"), +1 if a > b.
func (a Amount) Cmp(b Amount) int {
	if ac, ae, ok := a.small(); ok {
		if bc, be, ok := b.small(); ok {
			if c, ok := cmpSmall(ac, ae, bc, be); ok {
				return c
			}
		}
	}
	return a.d.Cmp(b.d)
}

// cmpSmall compares ac × 10^ae with bc × 10^be in int64 arithmetic, when
// bringing both to the smaller exponent does not overflow (shopspring's Cmp
// does it with math/big, computing 10^n each time).
func cmpSmall(ac int64, ae int32, bc int64, be int32) (int, bool) {
	if ae < be {
		c, ok := cmpSmall(bc, be, ac, ae)
		return -c, ok
	}
	for d := ae - be; d > 0 && ac != 0; d-- {
		if ac > math.MaxInt64/10 || ac < math.MinInt64/10 {
			return 0, false
		}
		ac *= 10
	}
	return cmp.Compare(ac, bc), true
}

// IsZero reports whether the amount is 0.
func (a Amount) IsZero() bool { return a.d.IsZero() }

// IsPositive reports whether the amount is greater than 0.
func (a Amount) IsPositive() bool { return a.d.IsPositive() }

// IsNegative reports whether the amount is less than 0.
func (a Amount) IsNegative() bool { return a.d.IsNegative() }

// Places returns the number of decimal places of the value, ignoring trailing zeros ("100.50" → 1, "100" → 0).
func (a Amount) Places() int32 {
	if c, exp, ok := a.small(); ok {
		if c == 0 {
			return 0
		}
		for exp < 0 && c%10 == 0 {
			c /= 10
			exp++
		}
		return max(-exp, 0)
	}
	s := a.String()
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return int32(len(s) - i - 1)
	}
	return 0
}

// Percent returns p percent of a, truncated toward zero to places decimal
// places, so a scaled limit never exceeds the exact share.
func (a Amount) Percent(p int64, places int32) Amount {
	return Amount{d: a.d.Mul(decimal.NewFromInt(p)).Shift(-2).Truncate(places)}
}
