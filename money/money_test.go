package money

import (
	"database/sql"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseAmountAccept(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"0", "0"},
		{"-0", "0"},
		{"-0.00", "0"},
		{"0e5", "0"},
		{"0.1", "0.1"},
		{"100.50", "100.5"},
		{"100.5", "100.5"},
		{"100", "100"},
		{"100.000", "100"},
		{"1e2", "100"},
		{"1E-2", "0.01"},
		{"1e+2", "100"},
		{"1.5e1", "15"},
		{"1e02", "100"},
		{"-5", "-5"},
		{"-1.25", "-1.25"},
		{"1e-30", "0.000000000000000000000000000001"},
		{"0.000000000000000000000000000001", "0.000000000000000000000000000001"},
		{"999999999999999", "999999999999999"},
		{"999999999999999.999999", "999999999999999.999999"},
		{"-999999999999999.999999", "-999999999999999.999999"},
		{"1000e-30", "0.000000000000000000000000001"},
		{"123456789012345.123456789012345", "123456789012345.123456789012345"}, // 30 significant digits
		{"100.50000000000000000000000000000000000000", "100.5"},                // trailing zeros are not significant
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			a, err := ParseAmount(tt.in)
			if err != nil {
				t.Fatalf("ParseAmount(%q) error: %v", tt.in, err)
			}
			if got := a.String(); got != tt.want {
				t.Errorf("ParseAmount(%q).String() = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseAmountReject(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("9", 10000)
	tests := []struct {
		name, in string
		want     error
	}{
		{"empty", "", ErrSyntax},
		{"letters", "abc", ErrSyntax},
		{"NaN", "NaN", ErrSyntax},
		{"nan", "nan", ErrSyntax},
		{"Infinity", "Infinity", ErrSyntax},
		{"-Inf", "-Inf", ErrSyntax},
		{"leading space", "  1", ErrSyntax},
		{"trailing space", "1 ", ErrSyntax},
		{"thousands comma", "1,000", ErrSyntax},
		{"underscore", "1_000", ErrSyntax},
		{"hex", "0x10", ErrSyntax},
		{"plus", "+1", ErrSyntax},
		{"leading dot", ".5", ErrSyntax},
		{"trailing dot", "1.", ErrSyntax},
		{"leading zero", "01", ErrSyntax},
		{"leading zeros", "00.5", ErrSyntax},
		{"minus only", "-", ErrSyntax},
		{"double minus", "--1", ErrSyntax},
		{"two dots", "1.2.3", ErrSyntax},
		{"empty exponent", "1e", ErrSyntax},
		{"exponent sign only", "1e-", ErrSyntax},
		{"fraction exponent", "1e1.5", ErrSyntax},
		{"comma decimal", "1,5", ErrSyntax},
		{"currency suffix", "100USD", ErrSyntax},
		{"unicode digit", "١٢", ErrSyntax},
		{"10000 digits", long, ErrSyntax},
		{"long fraction", "0." + strings.Repeat("0", 200) + "1", ErrSyntax},
		{"exponent 31", "1e31", ErrOutOfRange},
		{"exponent -31", "1e-31", ErrOutOfRange},
		{"huge exponent", "1e999999999", ErrOutOfRange},
		{"exponent limit is on the written exponent", "1000e-31", ErrOutOfRange},
		{"huge exponent digits", "1e" + strings.Repeat("9", 90), ErrOutOfRange},
		{"1e15", "1e15", ErrOutOfRange},
		{"10^15", "1000000000000000", ErrOutOfRange},
		{"just over max", "999999999999999.9999991", ErrOutOfRange},
		{"negative over max", "-1000000000000000", ErrOutOfRange},
		{"31 places", "0.0000000000000000000000000000001", ErrTooPrecise},
		{"31 places via exponent", "0.5e-30", ErrTooPrecise},
		{"31 significant digits", "12345678901234.12345678901234567", ErrTooPrecise},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a, err := ParseAmount(tt.in)
			if err == nil {
				t.Fatalf("ParseAmount(%.40q) = %v, want error", tt.in, a)
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("ParseAmount(%.40q) error = %v, want errors.Is %v", tt.in, err, tt.want)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not *ParseError", err)
			}
			if len(pe.Input) > maxQuotedInput+3 || len(err.Error()) > 200 {
				t.Errorf("error retains/echoes too much input: %d bytes: %s", len(pe.Input), err)
			}
		})
	}
}

func TestErrorMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string
	}{
		{"abc", `invalid amount "abc": must be a decimal number such as 100.50`},
		{"01", `invalid amount "01": must be a decimal number such as 100.50, without leading zeros`},
		{"1e16", `invalid amount "1e16": is too large: the largest amount is 999999999999999.999999`},
		{"-1e16", `invalid amount "-1e16": is too small: the smallest amount is -999999999999999.999999`},
		{"1e31", `invalid amount "1e31": has an exponent out of range: exponents must be between -30 and 30`},
		{"0.0000000000000000000000000000001", `invalid amount "0.0000000000000000000000000000001": has too many decimal places: at most 30 are allowed`},
		{strings.Repeat("1", 101), `invalid amount "1111111111111111111111111111111111111111...": is too long: at most 100 characters are allowed`},
	}
	for _, tt := range tests {
		_, err := ParseAmount(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseAmount(%.40q) error = %v, want %s", tt.in, err, tt.want)
		}
	}
}

func TestNoFloatError(t *testing.T) {
	t.Parallel()
	sum := MustParse("0.1").Add(MustParse("0.2"))
	if got := sum.String(); got != "0.3" {
		t.Errorf("0.1 + 0.2 = %s, want 0.3", got)
	}
	if sum.Cmp(MustParse("0.3")) != 0 {
		t.Errorf("0.1 + 0.2 != 0.3")
	}
	if got := MustParse("0.3").Sub(MustParse("0.1")).String(); got != "0.2" {
		t.Errorf("0.3 - 0.1 = %s, want 0.2", got)
	}
	if got := MustParse("1").Sub(MustParse("1.00")).String(); got != "0" {
		t.Errorf("1 - 1.00 = %s, want 0 (never -0)", got)
	}
	if got := MustParse("1").Sub(MustParse("2.5")).String(); got != "-1.5" {
		t.Errorf("1 - 2.5 = %s, want -1.5", got)
	}
}

func TestAmountMethods(t *testing.T) {
	t.Parallel()
	a, b := MustParse("1.50"), MustParse("1.5")
	if a.Cmp(b) != 0 {
		t.Errorf("Cmp(1.50, 1.5) = %d, want 0", a.Cmp(b))
	}
	if MustParse("2").Cmp(b) != 1 || b.Cmp(MustParse("2")) != -1 {
		t.Error("Cmp ordering wrong")
	}
	var zero Amount
	if !zero.IsZero() || zero.IsPositive() || zero.IsNegative() || zero.String() != "0" || zero.Places() != 0 {
		t.Errorf("zero value misbehaves: %q", zero.String())
	}
	if !MustParse("-1").IsNegative() || !MustParse("0.01").IsPositive() {
		t.Error("sign predicates wrong")
	}
	places := []struct {
		in   string
		want int32
	}{{"100.50", 1}, {"100", 0}, {"1e2", 0}, {"1E-2", 2}, {"0.001", 3}, {"-2.25", 2}}
	for _, p := range places {
		if got := MustParse(p.in).Places(); got != p.want {
			t.Errorf("Places(%s) = %d, want %d", p.in, got, p.want)
		}
	}
	fixed := []struct {
		in     string
		places int32
		want   string
	}{{"100.5", 2, "100.50"}, {"100", 2, "100.00"}, {"1.005", 2, "1.01"}, {"-1.005", 2, "-1.01"}, {"7", 0, "7"}, {"7.5", -3, "8"}}
	for _, f := range fixed {
		if got := MustParse(f.in).StringFixed(f.places); got != f.want {
			t.Errorf("StringFixed(%s, %d) = %s, want %s", f.in, f.places, got, f.want)
		}
	}
	if got := len(MustParse("1").StringFixed(1 << 30)); got != 2+MaxPlaces {
		t.Errorf("StringFixed(huge) length = %d, want clamped to %d", got, 2+MaxPlaces)
	}
	if got := AmountFromInt(42).String(); got != "42" {
		t.Errorf("AmountFromInt(42) = %s", got)
	}
	if got := MustParse("12.34").Decimal().String(); got != "12.34" {
		t.Errorf("Decimal() = %s", got)
	}
}

func TestMustParsePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustParse(\"abc\") did not panic")
		}
	}()
	MustParse("abc")
}

func TestAmountFromFloat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
		err  error
	}{
		{0.1, "0.1", nil},
		{100.5, "100.5", nil},
		{100, "100", nil},
		{-5, "-5", nil},
		{0, "0", nil},
		{1e-7, "0.0000001", nil},
		{123456789.12, "123456789.12", nil},
		{math.NaN(), "", ErrSyntax},
		{math.Inf(1), "", ErrSyntax},
		{math.Inf(-1), "", ErrSyntax},
		{1e15, "", ErrOutOfRange},
		{1e300, "", ErrOutOfRange},
		{-1e300, "", ErrOutOfRange},
		{1e-40, "", ErrTooPrecise},
		{math.SmallestNonzeroFloat64, "", ErrTooPrecise},
		{1.2345678901234567e-20, "", ErrTooPrecise},
	}
	for _, tt := range tests {
		a, err := AmountFromFloat(tt.in)
		if tt.err != nil {
			if !errors.Is(err, tt.err) {
				t.Errorf("AmountFromFloat(%g) error = %v, want %v", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || a.String() != tt.want {
			t.Errorf("AmountFromFloat(%g) = %v, %v; want %s", tt.in, a, err, tt.want)
		}
	}
}

func TestValidateAmount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		amount   string
		currency Currency
		err      error
		msg      string
	}{
		{"100.50", "USD", nil, ""},
		{"0.01", "USD", nil, ""},
		{"100.500", "USD", nil, ""}, // value has 1 place
		{"0.001", "USD", ErrTooManyPlaces, "invalid amount 0.001: USD allows at most 2 decimal places"},
		{"1", "JPY", nil, ""},
		{"1.0", "JPY", nil, ""},
		{"1e2", "JPY", nil, ""},
		{"1.5", "JPY", ErrTooManyPlaces, "invalid amount 1.5: JPY allows at most 0 decimal places"},
		{"0.001", "KWD", nil, ""},
		{"1.234", "BHD", nil, ""},
		{"0.0001", "KWD", ErrTooManyPlaces, "invalid amount 0.0001: KWD allows at most 3 decimal places"},
		{"0", "USD", ErrNotPositive, "invalid amount 0: must be greater than zero"},
		{"-0.01", "USD", ErrNotPositive, "invalid amount -0.01: must be greater than zero"},
		{"999999999999999.99", "USD", nil, ""},
		{"999999999999999", "JPY", nil, ""},
		{"1", "usd", ErrCurrencyFormat, `invalid currency "usd": must be upper case, e.g. USD`},
		{"1", "XXX", ErrCurrencyInactive, `invalid currency "XXX": is not an active ISO 4217 currency code`},
		{"1", "", ErrCurrencyFormat, ""},
	}
	for _, tt := range tests {
		err := ValidateAmount(MustParse(tt.amount), tt.currency)
		if !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("ValidateAmount(%s, %s) = %v, want %v", tt.amount, tt.currency, err, tt.err)
			continue
		}
		if tt.msg != "" && err.Error() != tt.msg {
			t.Errorf("ValidateAmount(%s, %s) message = %q, want %q", tt.amount, tt.currency, err.Error(), tt.msg)
		}
	}
	var ve *ValidationError
	if err := ValidateAmount(MustParse("1.5"), "JPY"); !errors.As(err, &ve) || ve.Currency != "JPY" {
		t.Errorf("want *ValidationError with Currency JPY, got %#v", err)
	}
}

func TestValidatePositive(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a   Amount
		err error
	}{
		{MustParse("0.000000000000000000000000000001"), nil},
		{MustParse(MaxAmount), nil},
		{AmountFromInt(1), nil},
		{Amount{}, ErrNotPositive},
		{AmountFromInt(-1), ErrNotPositive},
		{AmountFromInt(math.MaxInt64), ErrOutOfRange},
		{MustParse(MaxAmount).Add(MustParse("0.000001")), ErrOutOfRange},
		{MustParse("100000000000000").Add(MustParse("0.000000000000000000000000000001")), ErrTooPrecise},
	}
	for _, tt := range tests {
		if err := ValidatePositive(tt.a); !errors.Is(err, tt.err) || (tt.err == nil) != (err == nil) {
			t.Errorf("ValidatePositive(%s) = %v, want %v", tt.a, err, tt.err)
		}
	}
}

func TestParseCurrency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		err   error
		minor int32
		msg   string
	}{
		{"USD", nil, 2, ""},
		{"EUR", nil, 2, ""},
		{"GBP", nil, 2, ""},
		{"CHF", nil, 2, ""},
		{"JPY", nil, 0, ""},
		{"CLP", nil, 0, ""},
		{"KWD", nil, 3, ""},
		{"BHD", nil, 3, ""},
		{"usd", ErrCurrencyFormat, 0, `invalid currency "usd": must be upper case, e.g. USD`},
		{"Eur", ErrCurrencyFormat, 0, `invalid currency "Eur": must be upper case, e.g. EUR`},
		{"zzz", ErrCurrencyFormat, 0, `invalid currency "zzz": must be upper case, e.g. USD`},
		{"XXX", ErrCurrencyInactive, 0, `invalid currency "XXX": is not an active ISO 4217 currency code`},
		{"XTS", ErrCurrencyInactive, 0, ""},
		{"XAU", ErrCurrencyInactive, 0, ""},
		{"DEM", ErrCurrencyInactive, 0, ""},
		{"FRF", ErrCurrencyInactive, 0, ""},
		{"ZWD", ErrCurrencyInactive, 0, ""},
		{"ZZZ", ErrCurrencyInactive, 0, ""},
		{"US", ErrCurrencyFormat, 0, `invalid currency "US": must be a three-letter upper-case ISO 4217 code such as USD`},
		{"EURO", ErrCurrencyFormat, 0, ""},
		{"", ErrCurrencyFormat, 0, ""},
		{"US1", ErrCurrencyFormat, 0, ""},
		{" US", ErrCurrencyFormat, 0, ""},
		{"ÜSD", ErrCurrencyFormat, 0, ""},
		{strings.Repeat("A", 10000), ErrCurrencyFormat, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in[:min(len(tt.in), 8)], func(t *testing.T) {
			t.Parallel()
			c, err := ParseCurrency(tt.in)
			if tt.err == nil {
				if err != nil {
					t.Fatalf("ParseCurrency(%q) error: %v", tt.in, err)
				}
				if string(c) != tt.in || c.MinorUnits() != tt.minor || !c.IsActive() {
					t.Errorf("ParseCurrency(%q) = %q with %d minor units, want %d", tt.in, c, c.MinorUnits(), tt.minor)
				}
				return
			}
			if !errors.Is(err, tt.err) {
				t.Fatalf("ParseCurrency(%.10q) error = %v, want %v", tt.in, err, tt.err)
			}
			var ce *CurrencyError
			if !errors.As(err, &ce) || len(ce.Input) > maxQuotedInput+3 {
				t.Errorf("want *CurrencyError with truncated input, got %#v", err)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("ParseCurrency(%q) message = %q, want %q", tt.in, err.Error(), tt.msg)
			}
		})
	}
	if got := Currency("XXX").MinorUnits(); got != -1 {
		t.Errorf("XXX.MinorUnits() = %d, want -1", got)
	}
}

func TestActiveCurrencies(t *testing.T) {
	t.Parallel()
	all := ActiveCurrencies()
	if len(all) < 100 {
		t.Fatalf("only %d active currencies", len(all))
	}
	for _, c := range all {
		if _, err := ParseCurrency(string(c)); err != nil {
			t.Errorf("ActiveCurrencies contains %s which does not parse: %v", c, err)
		}
		if m := c.MinorUnits(); m < 0 || m > 4 {
			t.Errorf("%s.MinorUnits() = %d", c, m)
		}
	}
}

func TestCurrencyJSON(t *testing.T) {
	t.Parallel()
	var v struct{ C Currency }
	if err := json.Unmarshal([]byte(`{"C":"EUR"}`), &v); err != nil || v.C != "EUR" {
		t.Errorf("unmarshal EUR: %v %q", err, v.C)
	}
	if err := json.Unmarshal([]byte(`{"C":"eur"}`), &v); !errors.Is(err, ErrCurrencyFormat) {
		t.Errorf("unmarshal eur: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) != `{"C":"EUR"}` {
		t.Errorf("marshal: %s %v", b, err)
	}
}

func TestAmountJSON(t *testing.T) {
	t.Parallel()
	type payload struct {
		Amount Amount `json:"amount"`
	}
	tests := []struct{ in, wantOut string }{
		{`{"amount":100.5}`, `{"amount":100.5}`},
		{`{"amount":"100.50"}`, `{"amount":100.5}`},
		{`{"amount":0.3}`, `{"amount":0.3}`},
		{`{"amount":1E-2}`, `{"amount":0.01}`},
		{`{"amount":"1e2"}`, `{"amount":100}`},
		{`{"amount":123456789012345.123456}`, `{"amount":123456789012345.123456}`}, // beyond float64 precision
		{`{"amount":"\u0031\u0030"}`, `{"amount":10}`},
		{`{"amount":null}`, `{"amount":0}`},
		{`{}`, `{"amount":0}`},
	}
	for _, tt := range tests {
		var p payload
		if err := json.Unmarshal([]byte(tt.in), &p); err != nil {
			t.Errorf("Unmarshal(%s): %v", tt.in, err)
			continue
		}
		out, err := json.Marshal(p)
		if err != nil || string(out) != tt.wantOut {
			t.Errorf("round trip %s = %s, %v; want %s", tt.in, out, err, tt.wantOut)
		}
	}
	bad := []struct {
		in  string
		err error
	}{
		{`{"amount":"abc"}`, ErrSyntax},
		{`{"amount":"NaN"}`, ErrSyntax},
		{`{"amount":" 1"}`, ErrSyntax},
		{`{"amount":true}`, ErrSyntax},
		{`{"amount":1e31}`, ErrOutOfRange},
		{`{"amount":"` + strings.Repeat("1", 5000) + `"}`, ErrSyntax},
		{`{"amount":` + strings.Repeat("1", 5000) + `}`, ErrSyntax},
	}
	for _, tt := range bad {
		var p payload
		if err := json.Unmarshal([]byte(tt.in), &p); !errors.Is(err, tt.err) {
			t.Errorf("Unmarshal(%.40s) error = %v, want %v", tt.in, err, tt.err)
		}
	}
}

func TestSQL(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"100.5", "0.3", "-2", "0", MaxAmount, "0.000000000000000000000000000001"} {
		v, err := MustParse(in).Value()
		if err != nil {
			t.Fatalf("Value(%s): %v", in, err)
		}
		for _, src := range []any{v, []byte(v.(string))} {
			var got Amount
			if err := got.Scan(src); err != nil {
				t.Fatalf("Scan(%T %v): %v", src, src, err)
			}
			if got.Cmp(MustParse(in)) != 0 || got.String() != v {
				t.Errorf("Scan(Value(%s)) = %s", in, got)
			}
		}
	}
	scans := []struct {
		src  any
		want string
		err  bool
	}{
		{"100.50", "100.5", false},
		{[]byte("100.500000"), "100.5", false},
		{int64(42), "42", false},
		{float64(0.1), "0.1", false},
		{nil, "", true},
		{true, "", true},
		{"abc", "", true},
		{int64(math.MaxInt64), "", true},
		{[]byte(strings.Repeat("9", 1<<20)), "", true},
	}
	for _, tt := range scans {
		var a Amount
		err := a.Scan(tt.src)
		if (err != nil) != tt.err || (!tt.err && a.String() != tt.want) {
			t.Errorf("Scan(%T) = %s, %v; want %s (err %v)", tt.src, a, err, tt.want, tt.err)
		}
	}
	var n sql.Null[Amount]
	if err := n.Scan(nil); err != nil || n.Valid {
		t.Errorf("sql.Null[Amount].Scan(nil) = %v, valid %v", err, n.Valid)
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{
		"0", "-0", "0.1", "100.50", "1e2", "1E-2", "-5", "abc", "NaN", "Infinity", "1e31", "1e-31",
		"  1", "1,000", ".5", "1.", "+1", "01", MaxAmount, "1e-30", "0.5e-30", "123456789012345.123456789012345",
		"1e999999999", "9" + strings.Repeat("0", 40),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Err == nil || pe.Reason == "" {
				t.Fatalf("ParseAmount(%q) returned malformed error %#v", s, err)
			}
			return
		}
		out := a.String()
		if got := string(a.Append(nil)); got != out {
			t.Fatalf("ParseAmount(%q): Append wrote %q, String %q", s, got, out)
		}
		if strings.ContainsAny(out, "eE") || out == "-0" {
			t.Fatalf("ParseAmount(%q).String() = %q is not canonical", s, out)
		}
		b, err := ParseAmount(out)
		if err != nil {
			t.Fatalf("ParseAmount(%q).String() = %q does not re-parse: %v", s, out, err)
		}
		if a.Cmp(b) != 0 || b.String() != out {
			t.Fatalf("round trip of %q: %q → %q", s, out, b.String())
		}
		if a.IsPositive() && ValidatePositive(a) != nil {
			t.Fatalf("ValidatePositive(%q) = %v for a parsed positive amount", out, ValidatePositive(a))
		}
		js, _ := a.MarshalJSON()
		var c Amount
		if err := json.Unmarshal(js, &c); err != nil || c.Cmp(a) != 0 {
			t.Fatalf("JSON round trip of %q: %s, %v", out, js, err)
		}
	})
}

func TestISOCorrections(t *testing.T) {
	t.Parallel()
	for code, units := range map[string]int32{"IDR": 2, "COP": 2, "IQD": 3, "VES": 2, "MRU": 2, "XCG": 2, "USD": 2, "JPY": 0} {
		c, err := ParseCurrency(code)
		if err != nil || c.MinorUnits() != units {
			t.Errorf("%s: %v, minor units %d, want %d", code, err, c.MinorUnits(), units)
		}
	}
	for _, code := range []string{"BGN", "HRK", "VEF", "MRO", "SLL", "ANG"} {
		if _, err := ParseCurrency(code); err == nil {
			t.Errorf("%s is withdrawn but accepted", code)
		}
	}
	if err := ValidateAmount(MustParse("1.50"), "IDR"); err != nil {
		t.Errorf("1.50 IDR: %v", err)
	}
}

// TestAppend: Append writes String's form, for the amounts parsing gives
// and for the ones arithmetic gives (positive exponents, negatives, zero).
func TestAppend(t *testing.T) {
	t.Parallel()
	amounts := []Amount{{}, AmountFromInt(0), AmountFromInt(-7), AmountFromInt(1000), MustParse("1e2"), MustParse("-3e14"), AmountFromInt(-3).Sub(MustParse("1e14")),
		MustParse("0.000001"), MustParse("-0.000120"), MustParse("1000.50"), MustParse(MaxAmount), MustParse("123456789012345.123456789012345"),
		MustParse("100.5").Sub(MustParse("100.5")), MustParse("0.1").Add(MustParse("0.2")), MustParse("5").Sub(MustParse("7.25"))}
	for _, a := range amounts {
		if got := string(a.Append([]byte("x"))); got != "x"+a.String() {
			t.Errorf("Append wrote %q, String %q", got, a.String())
		}
	}
}
func TestFormat(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		amount string
		cur    Currency
		want   string
	}{
		{"150", "USD", "150.00 USD"},
		{"0.125", "USD", "0.125 USD"},
		{"1500", "JPY", "1500 JPY"},
		{"1.5", "JPY", "1.5 JPY"},
		{"0", "EUR", "0.00 EUR"},
	} {
		if got := MustParse(c.amount).Format(c.cur); got != c.want {
			t.Errorf("%s in %s: %q, want %q", c.amount, c.cur, got, c.want)
		}
	}
}

// ParseNumber keeps ParseAmount's grammar and spelling bounds but leaves the
// value bounds to ValidatePositive, which then reports what ParseAmount would.
func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in       string
		want     string // the value parsed; "" when the spelling is refused
		validate error  // what ValidatePositive says of it
	}{
		{"100.50", "100.5", nil},
		{"-5", "-5", ErrNotPositive},
		{"0", "0", ErrNotPositive},
		{"1e20", "100000000000000000000", ErrOutOfRange},
		{"10000000000000000", "10000000000000000", ErrOutOfRange},
		{"0.0000000000000000000000000000001", "0.0000000000000000000000000000001", ErrTooPrecise},
		{"1.0000000000000000000000000000001", "1.0000000000000000000000000000001", ErrTooPrecise},
		{"0." + strings.Repeat("0", 97) + "1", "0." + strings.Repeat("0", 97) + "1", ErrTooPrecise},
		{"1e-30", "0.000000000000000000000000000001", nil},
		{"1e30", "1000000000000000000000000000000", ErrOutOfRange},
		{"1e31", "", nil},
		{"1e400", "", nil},
		{"abc", "", nil},
		{"+1", "", nil},
		{strings.Repeat("1", MaxInputLen+1), "", nil},
	} {
		a, err := ParseNumber(tt.in)
		if tt.want == "" {
			if err == nil {
				t.Errorf("ParseNumber(%q) = %s, want a syntax error", tt.in, a)
			}
			continue
		}
		if err != nil || a.String() != tt.want {
			t.Errorf("ParseNumber(%q) = %s, %v, want %s", tt.in, a, err, tt.want)
			continue
		}
		if err := ValidatePositive(a); !errors.Is(err, tt.validate) || (tt.validate == nil) != (err == nil) {
			t.Errorf("ValidatePositive(ParseNumber(%q)) = %v, want %v", tt.in, err, tt.validate)
		}
		if _, perr := ParseAmount(tt.in); (perr == nil) != (tt.validate == nil) && tt.validate != ErrNotPositive {
			t.Errorf("ParseAmount(%q) = %v, while ValidatePositive says %v", tt.in, perr, tt.validate)
		}
	}
}
