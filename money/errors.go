package money

import (
	"errors"
	"strconv"
)

// Sentinel errors classify every error returned by this package; test for them with errors.Is.
var (
	// ErrSyntax means the input is not a decimal number in the accepted format.
	ErrSyntax = errors.New("must be a decimal number such as 100.50")
	// ErrOutOfRange means the amount's magnitude exceeds MaxAmount.
	ErrOutOfRange = errors.New("is too large: the largest amount is " + maxAmountString)
	// ErrTooPrecise means the amount has more than MaxDigits significant digits or more than MaxPlaces decimal places.
	ErrTooPrecise = errors.New("has too many digits")
	// ErrNotPositive means the amount is zero or negative where a positive amount is required.
	ErrNotPositive = errors.New("must be greater than zero")
	// ErrTooManyPlaces means the amount has more decimal places than its currency's minor units allow.
	ErrTooManyPlaces = errors.New("has more decimal places than the currency allows")
	// ErrCurrencyFormat means the input is not three upper-case ASCII letters.
	ErrCurrencyFormat = errors.New("must be a three-letter upper-case ISO 4217 code such as USD")
	// ErrCurrencyInactive means the input is well-formed but not an active ISO 4217 currency code.
	ErrCurrencyInactive = errors.New("is not an active ISO 4217 currency code")
)

// maxQuotedInput is how many bytes of offending input an error keeps and echoes.
const maxQuotedInput = 40

// ParseError reports input that could not be turned into an Amount; it unwraps to ErrSyntax, ErrOutOfRange or ErrTooPrecise.
type ParseError struct {
	Input  string // the offending input, truncated to 40 bytes (with "..." appended) if longer
	Reason string // API-user-facing rule that was broken, e.g. "must be a decimal number such as 100.50"
	Err    error  // one of the sentinel errors
}

// Error returns a message such as `invalid amount "abc": must be a decimal number such as 100.50`.
func (e *ParseError) Error() string {
	return "invalid amount " + strconv.Quote(e.Input) + ": " + e.Reason
}

// Unwrap returns the sentinel error classifying e.
func (e *ParseError) Unwrap() error { return e.Err }

// ValidationError reports a well-formed Amount that breaks a business rule; it unwraps to ErrNotPositive, ErrOutOfRange, ErrTooPrecise or ErrTooManyPlaces.
type ValidationError struct {
	Amount   Amount   // the offending amount
	Currency Currency // the currency it was checked against; empty for ValidatePositive
	Reason   string   // API-user-facing rule that was broken, e.g. "JPY allows at most 0 decimal places"
	Err      error    // one of the sentinel errors
}

// Error returns a message such as "invalid amount 1.5: JPY allows at most 0 decimal places".
func (e *ValidationError) Error() string {
	return "invalid amount " + e.Amount.String() + ": " + e.Reason
}

// Unwrap returns the sentinel error classifying e.
func (e *ValidationError) Unwrap() error { return e.Err }

// CurrencyError reports an invalid currency code; it unwraps to ErrCurrencyFormat or ErrCurrencyInactive.
type CurrencyError struct {
	Input  string // the offending input, truncated to 40 bytes (with "..." appended) if longer
	Reason string // API-user-facing rule that was broken, e.g. "must be upper case, e.g. USD"
	Err    error  // one of the sentinel errors
}

// Error returns a message such as `invalid currency "XXX": is not an active ISO 4217 currency code`.
func (e *CurrencyError) Error() string {
	return "invalid currency " + strconv.Quote(e.Input) + ": " + e.Reason
}

// Unwrap returns the sentinel error classifying e.
func (e *CurrencyError) Unwrap() error { return e.Err }

// truncate shortens s for storing in an error so a huge input is never retained or echoed.
func truncate(s string) string {
	if len(s) <= maxQuotedInput {
		return s
	}
	return s[:maxQuotedInput] + "..."
}

func parseErr(input string, sentinel error, reason string) *ParseError {
	if reason == "" {
		reason = sentinel.Error()
	}
	return &ParseError{Input: truncate(input), Reason: reason, Err: sentinel}
}
