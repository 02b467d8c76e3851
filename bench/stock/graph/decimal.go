package graph

import (
	"fmt"
	"io"
)

// Decimal is an amount as Postgres prints a numeric, written as a JSON
// number; Time (time.go) is a time.Time. Both are written as the service
// writes them, so that both servers answer the same bytes.
type Decimal string

// MarshalGQL writes the amount as it is.
func (d Decimal) MarshalGQL(w io.Writer) { _, _ = io.WriteString(w, string(d)) }

// UnmarshalGQL reads an amount from a string.
func (d *Decimal) UnmarshalGQL(v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("Decimal must be a string")
	}
	*d = Decimal(s)
	return nil
}
