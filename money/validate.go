package money

import (
	"strconv"
	"strings"
)

// ValidatePositive checks the currency-independent rules (greater than zero, magnitude <= MaxAmount, at most MaxPlaces places and MaxDigits significant digits) and returns a *ValidationError unwrapping to ErrNotPositive, ErrOutOfRange or ErrTooPrecise.
func ValidatePositive(a Amount) error {
	if withinLimits(a) {
		return nil
	}
	return validatePositive(a)
}

// validatePositive is ValidatePositive the long way, with its errors.
func validatePositive(a Amount) error {
	if !a.IsPositive() {
		return &ValidationError{Amount: a, Reason: ErrNotPositive.Error(), Err: ErrNotPositive}
	}
	if a.d.Cmp(maxAmount) > 0 {
		return &ValidationError{Amount: a, Reason: ErrOutOfRange.Error(), Err: ErrOutOfRange}
	}
	// Re-apply the parser's precision limits: AmountFromInt, Add, Sub and
	// ParseNumber results never went through ParseAmount's.
	if pe := checkLimits("", false, significantDigits(a), exponent(a)); pe != nil {
		return &ValidationError{Amount: a, Reason: pe.Reason, Err: pe.Err}
	}
	return nil
}

// significantDigits is the number of digits of a's coefficient without its
// trailing zeros (at least 1).
func significantDigits(a Amount) int {
	s := strings.TrimRight(a.d.Coefficient().String(), "0")
	s = strings.TrimPrefix(s, "-")
	return max(len(s), 1)
}

// exponent is a's exponent once its coefficient has no trailing zeros.
func exponent(a Amount) int {
	s := a.d.Coefficient().String()
	return int(a.d.Exponent()) + len(s) - len(strings.TrimRight(s, "0"))
}

// ValidateAmount checks a for use in currency c: c active (else *CurrencyError), ValidatePositive's rules, and at most c.MinorUnits() decimal places by value ("1.0" JPY is fine, "1.5" JPY is a *ValidationError unwrapping to ErrTooManyPlaces).
func ValidateAmount(a Amount, c Currency) error {
	minor := c.MinorUnits()
	if minor < 0 {
		if _, err := ParseCurrency(string(c)); err != nil {
			return err
		}
		return currencyErr(string(c), ErrCurrencyInactive, "") // unreachable: same set
	}
	if err := ValidatePositive(a); err != nil {
		ve := err.(*ValidationError)
		ve.Currency = c
		return ve
	}
	if a.Places() > minor {
		unit := " decimal places"
		if minor == 1 {
			unit = " decimal place"
		}
		return &ValidationError{
			Amount:   a,
			Currency: c,
			Reason:   string(c) + " allows at most " + strconv.Itoa(int(minor)) + unit,
			Err:      ErrTooManyPlaces,
		}
	}
	return nil
}

// withinLimits reports, without math/big, that a positive amount of at most
// 15 significant digits passes ValidatePositive: at most MaxIntegerDigits
// integer digits and MaxPlaces places. Such an amount is below MaxAmount
// (over it takes 15 integer digits and at least 7 places). False says
// nothing: ValidatePositive then checks the long way.
func withinLimits(a Amount) bool {
	c, exp, ok := a.small()
	if !ok || c <= 0 {
		return false
	}
	for c%10 == 0 {
		c /= 10
		exp++
	}
	n := int32(1)
	for x := c; x >= 10; x /= 10 {
		n++
	}
	return n <= 15 && n+exp <= MaxIntegerDigits && exp >= -MaxPlaces
}
