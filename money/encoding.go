package money

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"strconv"
)

// MarshalJSON encodes the amount as a JSON number in canonical String form (100.5, not "100.50"); it never fails.
func (a Amount) MarshalJSON() ([]byte, error) {
	return []byte(a.String()), nil
}

// UnmarshalJSON accepts a JSON number (100.5) or a JSON string ("100.50") parsed exactly by ParseAmount, returning its *ParseError; JSON null leaves a unchanged.
func (a *Amount) UnmarshalJSON(b []byte) error {
	// Bound the input before json.Unmarshal allocates anything for it.
	if len(b) > MaxInputLen+2 {
		return parseErr(string(b[:maxQuotedInput+1]), ErrSyntax, "is too long: at most "+strconv.Itoa(MaxInputLen)+" characters are allowed")
	}
	s := string(b)
	if s == "null" {
		return nil
	}
	if len(s) > 0 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return parseErr(string(b), ErrSyntax, "")
		}
	}
	v, err := ParseAmount(s)
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// Value stores the amount as its canonical decimal string, suitable for a Postgres numeric column; it never fails.
func (a Amount) Value() (driver.Value, error) {
	return a.String(), nil
}

// Scan reads a numeric column delivered as string, []byte, int64 or float64, applying ParseAmount's limits and errors; NULL and other types are errors (use sql.Null[Amount] for nullable columns).
func (a *Amount) Scan(src any) error {
	var (
		v   Amount
		err error
	)
	switch x := src.(type) {
	case string:
		v, err = ParseAmount(x)
	case []byte:
		if len(x) > MaxInputLen { // don't copy a huge value just to reject it
			x = x[:MaxInputLen+1]
		}
		v, err = ParseAmount(string(x))
	case int64:
		v, err = ParseAmount(strconv.FormatInt(x, 10))
	case float64:
		v, err = AmountFromFloat(x)
	case nil:
		return fmt.Errorf("money: cannot scan NULL into Amount (use sql.Null[money.Amount])")
	default:
		return fmt.Errorf("money: cannot scan %T into Amount", src)
	}
	if err != nil {
		return err
	}
	*a = v
	return nil
}
