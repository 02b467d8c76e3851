package money

import (
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/text/currency"
)

// Currency is an active ISO 4217 currency code in upper case ("USD", "EUR", "JPY"); obtain one with ParseCurrency.
type Currency string

// active maps every currently-tendered currency to its minor units. It is
// derived once from golang.org/x/text/currency (CLDR data): a code is active if
// it is legal tender in some region today, which excludes non-tender codes
// such as XXX, XTS and XAU and withdrawn ones such as DEM, FRF and ZWD. Minor
// units are currency.Standard's rounding scale (USD 2, JPY 0, KWD 3, BHD 3).
//
// x/text v0.41.0 embeds CLDR 32 (2017), and CLDR's "standard" digits differ
// from ISO 4217's minor units for some currencies on purpose (CLDR rounds
// IDR, COP, PKR … to whole units). isoCorrections applies the ISO 4217 table
// (amendments up to 2025) on top: the minor units ISO lists, codes issued
// since 2017, and codes withdrawn since.
var active = sync.OnceValue(func() map[Currency]int32 {
	m := make(map[Currency]int32)
	it := currency.Query(currency.Date(time.Now()))
	for it.Next() {
		u := it.Unit()
		scale, _ := currency.Standard.Rounding(u)
		m[Currency(u.String())] = int32(scale)
	}
	for c, units := range isoCorrections {
		if units < 0 {
			delete(m, c)
		} else {
			m[c] = units
		}
	}
	return m
})

// isoCorrections are ISO 4217 minor units where CLDR differs (-1: withdrawn).
var isoCorrections = map[Currency]int32{
	// ISO minor units where CLDR's standard digits are 0.
	"AFN": 2, "ALL": 2, "AMD": 2, "COP": 2, "GYD": 2, "IDR": 2, "IRR": 2, "KPW": 2,
	"LAK": 2, "LBP": 2, "MGA": 2, "MMK": 2, "MNT": 2, "MUR": 2, "PKR": 2, "RSD": 2,
	"SOS": 2, "SYP": 2, "TZS": 2, "UZS": 2, "YER": 2, "IQD": 3,
	// Issued since CLDR 32: Mauritania, Venezuela, Sierra Leone, Zimbabwe gold, Caribbean guilder.
	"MRU": 2, "VES": 2, "SLE": 2, "ZWG": 2, "XCG": 2,
	// Withdrawn since: replaced by MRU, VES, SLE, EUR (Croatia 2023, Bulgaria 2026), XCG; CUC retired 2021.
	"MRO": -1, "VEF": -1, "SLL": -1, "HRK": -1, "BGN": -1, "ANG": -1, "CUC": -1,
}

// ParseCurrency returns s as a Currency if it is an active ISO 4217 code in upper case, else a *CurrencyError unwrapping to ErrCurrencyFormat or ErrCurrencyInactive.
func ParseCurrency(s string) (Currency, error) {
	if len(s) != 3 {
		return "", currencyErr(s, ErrCurrencyFormat, "")
	}
	lower := false
	for i := range len(s) {
		switch c := s[i]; {
		case 'A' <= c && c <= 'Z':
		case 'a' <= c && c <= 'z':
			lower = true
		default:
			return "", currencyErr(s, ErrCurrencyFormat, "")
		}
	}
	if lower {
		example := Currency(strings.ToUpper(s))
		if _, ok := active()[example]; !ok {
			example = "USD"
		}
		return "", currencyErr(s, ErrCurrencyFormat, "must be upper case, e.g. "+string(example))
	}
	c := Currency(s)
	if _, ok := active()[c]; !ok {
		return "", currencyErr(s, ErrCurrencyInactive, "")
	}
	return c, nil
}

// MinorUnits returns the number of decimal places the currency allows (USD 2, JPY 0, KWD 3), or -1 if c is not an active currency.
func (c Currency) MinorUnits() int32 {
	if n, ok := active()[c]; ok {
		return n
	}
	return -1
}

// IsActive reports whether c is an active ISO 4217 currency code (i.e. ParseCurrency(string(c)) would succeed).
func (c Currency) IsActive() bool {
	_, ok := active()[c]
	return ok
}

// String returns the ISO 4217 code.
func (c Currency) String() string { return string(c) }

// UnmarshalText parses text with ParseCurrency (so JSON strings are validated on decode) and returns its *CurrencyError.
func (c *Currency) UnmarshalText(text []byte) error {
	if len(text) > maxQuotedInput+1 { // avoid copying a huge input just to reject it
		text = text[:maxQuotedInput+1]
	}
	v, err := ParseCurrency(string(text))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ActiveCurrencies returns all active currency codes, sorted, e.g. for documenting the GraphQL scalar.
func ActiveCurrencies() []Currency {
	m := active()
	out := make([]Currency, 0, len(m))
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

func currencyErr(input string, sentinel error, reason string) *CurrencyError {
	if reason == "" {
		reason = sentinel.Error()
	}
	return &CurrencyError{Input: truncate(input), Reason: reason, Err: sentinel}
}
