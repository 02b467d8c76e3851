package money

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// FuzzAmountExact checks that an accepted amount has exactly the value its
// spelling denotes (compared with math/big, which never rounds), that the JSON
// number and JSON string forms decode to the same value, and that a rejected
// one is rejected the same way by both JSON forms.
func FuzzAmountExact(f *testing.F) {
	for _, s := range []string{"0.1", "0.2", "0.3", "100.50", "1e2", "-1.5", "1E-30", "1e31", MaxAmount,
		"999999999999999.9999999", "0.000000000000000000000000000001", "12345678901234.5678901234567890", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		var num, str Amount
		errNum := num.UnmarshalJSON([]byte(s))
		quoted, _ := json.Marshal(s)
		errStr := str.UnmarshalJSON(quoted)
		if len(quoted) > MaxInputLen+2 {
			if errStr == nil {
				t.Fatalf("over-long JSON string %q accepted", s)
			}
			errStr = err // the bound is on the quoted length; nothing more to compare
			str = a
		}
		if strings.HasPrefix(s, `"`) || s == "null" {
			errNum, num = err, a // a JSON string or null, not a JSON number: covered by the string form
		}
		if err != nil {
			if errNum == nil || errStr == nil {
				t.Fatalf("ParseAmount(%q) failed (%v) but JSON accepted it: number %v, string %v", s, err, errNum, errStr)
			}
			var pe *ParseError
			if !errors.As(errStr, &pe) {
				t.Fatalf("JSON string %q: error %T is not *ParseError", s, errStr)
			}
			return
		}
		if errNum != nil || errStr != nil || num.Cmp(a) != 0 || str.Cmp(a) != 0 {
			t.Fatalf("%q: ParseAmount %s, JSON number %s (%v), JSON string %s (%v)", s, a, num, errNum, str, errStr)
		}
		want, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("ParseAmount accepted %q, which is not a decimal number", s)
		}
		got, ok := new(big.Rat).SetString(a.String())
		if !ok || got.Cmp(want) != 0 {
			t.Fatalf("ParseAmount(%q) = %s: not exact (want %s)", s, a, want.FloatString(40))
		}
		if a.d.Abs().Cmp(maxAmount) > 0 || a.Places() > MaxPlaces {
			t.Fatalf("ParseAmount(%q) = %s is out of the documented bounds", s, a)
		}
	})
}

// FuzzParseCurrency checks that only three upper-case letters of an active
// code are accepted, that an accepted code has valid minor units, and that
// every rejection is a *CurrencyError.
func FuzzParseCurrency(f *testing.F) {
	for _, s := range []string{"USD", "usd", "JPY", "KWD", "BGN", "XXX", "US", "USDD", "", "U$D", "ÜSD", "EUR\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCurrency(s)
		if err != nil {
			var ce *CurrencyError
			if !errors.As(err, &ce) || ce.Reason == "" || (!errors.Is(err, ErrCurrencyFormat) && !errors.Is(err, ErrCurrencyInactive)) {
				t.Fatalf("ParseCurrency(%q): malformed error %#v", s, err)
			}
			if Currency(s).IsActive() {
				t.Fatalf("ParseCurrency(%q) refused an active code", s)
			}
			return
		}
		if string(c) != s || len(s) != 3 || strings.ToUpper(s) != s || !c.IsActive() {
			t.Fatalf("ParseCurrency(%q) = %q accepted a non-code", s, c)
		}
		if u := c.MinorUnits(); u < 0 || u > 4 {
			t.Fatalf("%s has %d minor units", c, u)
		}
		var d Currency
		if err := d.UnmarshalText([]byte(s)); err != nil || d != c {
			t.Fatalf("UnmarshalText(%q) = %q, %v", s, d, err)
		}
	})
}

// FuzzParseSmallMatchesBig: ParseAmount's int64 path gives exactly the
// amount (coefficient and exponent) or the error its math/big path gives.
func FuzzParseSmallMatchesBig(f *testing.F) {
	for _, s := range []string{"0", "100.50", "1000.5", "999999999999999.999", "999999999999999.9999", "-0.000000000000000001",
		"100000000000000000", "1e-30", "12e15", "1.5e14", "0012", "-450.000", "123456789012345678"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		neg := strings.HasPrefix(s, "-")
		intPart, rest, _ := strings.Cut(strings.TrimPrefix(s, "-"), ".")
		if intPart == "" || strings.Trim(intPart, "0123456789") != "" || strings.Trim(rest, "0123456789") != "" ||
			len(intPart)+len(rest) > maxSmallDigits || (strings.Contains(s, ".") && rest == "") {
			return // only plain decimals of at most maxSmallDigits digits take the int64 path
		}
		for _, bounded := range []bool{true, false} {
			small, errSmall := parseSmall(s, neg, intPart, rest, 0, bounded)
			viaBig, errBig := parseBig(s, neg, intPart, rest, 0, bounded)
			if fmt.Sprint(errSmall) != fmt.Sprint(errBig) {
				t.Fatalf("%q: int64 path error %v, math/big path error %v", s, errSmall, errBig)
			}
			if got := string(small.Append([]byte("x"))); got != "x"+small.String() {
				t.Fatalf("%q: Append wrote %q, String %q", s, got, small.String())
			}
			if small.d.Exponent() != viaBig.d.Exponent() || small.d.Coefficient().Cmp(viaBig.d.Coefficient()) != 0 || small.String() != viaBig.String() {
				t.Fatalf("%q: int64 path %s (%se%d), math/big path %s (%se%d)", s, small, small.d.Coefficient(), small.d.Exponent(),
					viaBig, viaBig.d.Coefficient(), viaBig.d.Exponent())
			}
		}
	})
}

// FuzzSmallPathsMatch: the int64 paths of Cmp, StringFixed, Places and
// ValidatePositive give what the math/big ones give, for parsed amounts and
// for sums and differences (whose coefficients keep trailing zeros).
func FuzzSmallPathsMatch(f *testing.F) {
	for _, s := range []string{"0", "1.00", "100.5", "-450.000", "0.000001", "999999999999999.999999", "999999999999999",
		"123456789012345.6", "1e-30", "1e15", "12e14", "0.1234567", "5", "-0.5", "1e31"} {
		f.Add(s, "0.10")
		f.Add(s, "1e15")
	}
	f.Fuzz(func(t *testing.T, s, u string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		b, err := ParseAmount(u)
		if err != nil {
			b = AmountFromInt(int64(len(u)))
		}
		xs := []Amount{a, b, a.Add(b), a.Sub(b), b.Sub(a), AmountFromInt(int64(len(s)) * 1000)}
		for _, x := range xs {
			for _, y := range xs {
				if got, want := x.Cmp(y), x.d.Cmp(y.d); got != want {
					t.Fatalf("%s (%se%d).Cmp(%s (%se%d)) = %d, want %d", x, x.d.Coefficient(), x.d.Exponent(), y, y.d.Coefficient(), y.d.Exponent(), got, want)
				}
			}
			for places := int32(-1); places <= MaxPlaces+1; places++ {
				clamped := max(0, min(places, MaxPlaces))
				if got, want := x.StringFixed(places), x.d.StringFixed(clamped); got != want {
					t.Fatalf("%s (%se%d).StringFixed(%d) = %q, want %q", x, x.d.Coefficient(), x.d.Exponent(), places, got, want)
				}
			}
			want := int32(0)
			if str := x.String(); strings.Contains(str, ".") {
				want = int32(len(str) - strings.IndexByte(str, '.') - 1)
			}
			if got := x.Places(); got != want {
				t.Fatalf("%s (%se%d).Places() = %d, want %d", x, x.d.Coefficient(), x.d.Exponent(), got, want)
			}
			if withinLimits(x) && validatePositive(x) != nil {
				t.Fatalf("%s (%se%d): the int64 path accepts, the long way says %v", x, x.d.Coefficient(), x.d.Exponent(), validatePositive(x))
			}
			if fmt.Sprint(ValidatePositive(x)) != fmt.Sprint(validatePositive(x)) {
				t.Fatalf("%s: ValidatePositive %v, the long way %v", x, ValidatePositive(x), validatePositive(x))
			}
		}
	})
}
