package money

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"
)

// Limits applied by ParseAmount (and re-checked by ValidatePositive).
const (
	// MaxAmount is the largest accepted magnitude, 10^15 - 10^-6; larger values are ErrOutOfRange ("absurdly large").
	MaxAmount = maxAmountString
	// MaxIntegerDigits is the number of digits allowed before the decimal point.
	MaxIntegerDigits = 15
	// MaxDigits is the most significant digits (leading and trailing zeros excluded) an amount may have.
	MaxDigits = 30
	// MaxPlaces is the most decimal places (trailing zeros excluded) an amount may have.
	MaxPlaces = 30
	// MaxExponent bounds the written exponent: "1e30" and "1e-30" parse, "1e31" and "1e-31" do not.
	MaxExponent = 30
	// MaxInputLen is the longest input ParseAmount looks at; longer input is rejected before scanning.
	MaxInputLen = 100

	maxAmountString = "999999999999999.999999"
)

var maxAmount = decimal.RequireFromString(maxAmountString)

// ParseAmount parses a decimal string and returns *ParseError (unwrapping to ErrSyntax, ErrOutOfRange or ErrTooPrecise) if it is malformed or out of bounds.
//
// The accepted syntax is the JSON number grammar: an optional '-', an integer
// part without leading zeros ("0", "7", "100"), an optional '.' followed by at
// least one digit, and an optional exponent 'e' or 'E' with an optional sign
// and |exponent| <= MaxExponent. So "100.50", "0.5", "-5", "1e2" and "1E-2" are
// accepted while "", " 1", "+1", ".5", "1.", "01", "1,000", "1_000", "0x10",
// "NaN" and "Infinity" are rejected with ErrSyntax. A leading '-' is accepted so
// that callers can report "must be greater than zero" rather than a syntax
// error. The value (not the spelling) must then have at most MaxIntegerDigits
// integer digits and magnitude <= MaxAmount (else ErrOutOfRange), and at most
// MaxPlaces decimal places and MaxDigits significant digits (else
// ErrTooPrecise). Input longer than MaxInputLen bytes is rejected with ErrSyntax
// before it is scanned, so parsing is O(1) in time and memory.
func ParseAmount(s string) (Amount, error) {
	return parse(s, true)
}

// ParseNumber is ParseAmount without the value bounds: it applies the
// grammar, MaxInputLen and MaxExponent (which bound the work and the size of
// the result) and returns any value so spelled, negative, zero, too large or
// too precise included, or a *ParseError unwrapping to ErrSyntax or
// ErrOutOfRange (the exponent). It is for input whose validation then applies
// ValidatePositive or ValidateAmount beside its other rules.
func ParseNumber(s string) (Amount, error) {
	return parse(s, false)
}

// parse is ParseAmount, with the value bounds applied when bounded.
func parse(s string, bounded bool) (Amount, error) {
	if len(s) == 0 {
		return Amount{}, parseErr(s, ErrSyntax, "")
	}
	if len(s) > MaxInputLen {
		return Amount{}, parseErr(s, ErrSyntax, "is too long: at most "+strconv.Itoa(MaxInputLen)+" characters are allowed")
	}
	i := 0
	neg := s[0] == '-'
	if neg {
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[start:i]
	if len(intPart) == 0 {
		return Amount{}, parseErr(s, ErrSyntax, "")
	}
	if len(intPart) > 1 && intPart[0] == '0' {
		return Amount{}, parseErr(s, ErrSyntax, ErrSyntax.Error()+", without leading zeros")
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[start:i]
		if len(frac) == 0 {
			return Amount{}, parseErr(s, ErrSyntax, "")
		}
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		var err error
		if exp, i, err = parseExponent(s, i+1); err != nil {
			return Amount{}, err
		}
	}
	if i != len(s) {
		return Amount{}, parseErr(s, ErrSyntax, "")
	}

	if len(intPart)+len(frac) <= maxSmallDigits {
		return parseSmall(s, neg, intPart, frac, exp, bounded)
	}
	return parseBig(s, neg, intPart, frac, exp, bounded)
}

// parseExponent reads the exponent of s after its 'e' at i: an optional sign
// and digits, within MaxExponent. It returns the exponent and where it ends.
func parseExponent(s string, i int) (exp, end int, err error) {
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		if exp <= MaxExponent { // saturate: anything above MaxExponent is rejected anyway
			exp = exp*10 + int(s[i]-'0')
		}
		i++
	}
	if i == start {
		return 0, i, parseErr(s, ErrSyntax, "")
	}
	if exp > MaxExponent {
		return 0, i, parseErr(s, ErrOutOfRange, "has an exponent out of range: exponents must be between -"+
			strconv.Itoa(MaxExponent)+" and "+strconv.Itoa(MaxExponent))
	}
	if neg {
		exp = -exp
	}
	return exp, i, nil
}

// parseBig is parse's result for any number of digits (intPart and frac,
// exponent exp).
func parseBig(s string, neg bool, intPart, frac string, exp int, bounded bool) (Amount, error) {
	// Normalise to coefficient digits (no leading or trailing zeros) × 10^exp.
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	if digits == "" {
		return Amount{}, nil // zero, including "-0" and "0e5"
	}
	n := len(digits)
	digits = strings.TrimRight(digits, "0")
	exp += n - len(digits)
	if err := checkLimits(s, neg, len(digits), exp); err != nil && bounded {
		return Amount{}, err
	}
	coef, ok := new(big.Int).SetString(digits, 10)
	if !ok { // unreachable: digits is non-empty and all ASCII digits
		return Amount{}, parseErr(s, ErrSyntax, "")
	}
	if neg {
		coef.Neg(coef)
	}
	d := decimal.NewFromBigInt(coef, int32(exp))
	if bounded && d.Abs().Cmp(maxAmount) > 0 {
		return Amount{}, parseErr(s, ErrOutOfRange, rangeReason(neg))
	}
	return Amount{d: d}, nil
}

// maxSmallDigits is the most digits parseSmall takes: any such coefficient
// fits an int64, and any such amount within MaxIntegerDigits integer digits
// has at most three decimal places, so is below MaxAmount.
const maxSmallDigits = 18

// parseSmall is parse's result for at most maxSmallDigits digits (intPart
// and frac, exponent exp), without math/big's parsing and the comparison
// with MaxAmount: the amounts stored and read back are such, and they are
// read on every page of agents.
func parseSmall(s string, neg bool, intPart, frac string, exp int, bounded bool) (Amount, error) {
	var coef int64
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			coef = coef*10 + int64(part[i]-'0')
		}
	}
	if coef == 0 {
		return Amount{}, nil // zero, including "-0" and "0e5"
	}
	exp -= len(frac)
	for coef%10 == 0 {
		coef /= 10
		exp++
	}
	n := 1
	for x := coef; x >= 10; x /= 10 {
		n++
	}
	if err := checkLimits(s, neg, n, exp); err != nil && bounded {
		return Amount{}, err
	}
	if neg {
		coef = -coef
	}
	return Amount{d: decimal.New(coef, int32(exp))}, nil
}

// checkLimits applies the value bounds to a normalised coefficient of n
// digits (no leading or trailing zeros) and exponent.
func checkLimits(input string, neg bool, n int, exp int) *ParseError {
	switch {
	case n+exp > MaxIntegerDigits:
		return parseErr(input, ErrOutOfRange, rangeReason(neg))
	case exp < -MaxPlaces:
		return parseErr(input, ErrTooPrecise, "has too many decimal places: at most "+strconv.Itoa(MaxPlaces)+" are allowed")
	case n > MaxDigits:
		return parseErr(input, ErrTooPrecise, "has too many significant digits: at most "+strconv.Itoa(MaxDigits)+" are allowed")
	}
	return nil
}

func rangeReason(neg bool) string {
	if neg {
		return "is too small: the smallest amount is -" + maxAmountString
	}
	return ErrOutOfRange.Error()
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// AmountFromFloat converts an already-decoded JSON number via its shortest decimal representation (0.1 → "0.1"); it returns *ParseError with ErrSyntax for NaN/±Inf and otherwise ParseAmount's errors.
func AmountFromFloat(f float64) (Amount, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return Amount{}, parseErr(strconv.FormatFloat(f, 'g', -1, 64), ErrSyntax, "must be a finite number")
	}
	// Reject absurd magnitudes before formatting so 1e308 never becomes a 309-digit string.
	if f >= 1e16 || f <= -1e16 {
		return Amount{}, parseErr(strconv.FormatFloat(f, 'g', -1, 64), ErrOutOfRange, rangeReason(f < 0))
	}
	if f != 0 && f > -1e-31 && f < 1e-31 {
		return Amount{}, parseErr(strconv.FormatFloat(f, 'g', -1, 64), ErrTooPrecise,
			"has too many decimal places: at most "+strconv.Itoa(MaxPlaces)+" are allowed")
	}
	return ParseAmount(strconv.FormatFloat(f, 'f', -1, 64))
}

// AmountFromInt returns the amount i exactly; it cannot fail, so check bounds with ValidatePositive or ValidateAmount.
func AmountFromInt(i int64) Amount {
	return Amount{d: decimal.NewFromInt(i)}
}

// MustParse is ParseAmount for constants and tests; it panics with the *ParseError on invalid input.
func MustParse(s string) Amount {
	a, err := ParseAmount(s)
	if err != nil {
		panic(err)
	}
	return a
}
