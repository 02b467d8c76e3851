// Package scalar marshals the contract's custom GraphQL scalars (Decimal,
// Time, JSON) for gqlgen, mapping them onto domain types.
package scalar

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
)

// MarshalDecimal writes an amount as an exact JSON number.
func MarshalDecimal(a money.Amount) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		b := a.Append(available(w))
		_, _ = w.Write(b)
	})
}

// available is spare room at the end of w's buffer when w is a buffer
// (gqlgen writes an answer into one), so that a value appended there and
// written is not allocated on its own; nil otherwise.
func available(w io.Writer) []byte {
	if b, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		return b.AvailableBuffer()
	}
	return nil
}

// UnmarshalDecimal reads a number from a JSON number (exact when sent as a
// variable) or a string. It checks only the spelling (money.ParseNumber): the
// sign, size and places are the input's Validate's to judge, beside its other
// fields, so one answer names every bad field. Errors are ValidationFailed;
// the presenter adds the field path.
func UnmarshalDecimal(v any) (money.Amount, error) {
	var (
		a   money.Amount
		err error
	)
	switch v := v.(type) {
	case string:
		a, err = money.ParseNumber(v)
	case json.Number:
		a, err = money.ParseNumber(v.String())
	case int64:
		a = money.AmountFromInt(v)
	case int:
		a = money.AmountFromInt(int64(v))
	case float64:
		// A literal in the document: its shortest spelling, exponent included,
		// so that 1e308 is refused by its exponent rather than written out.
		a, err = money.ParseNumber(strconv.FormatFloat(v, 'g', -1, 64))
	default:
		return a, failure.Errorf(failure.ValidationFailed, "must be a decimal number or a string such as \"100.50\"")
	}
	if err != nil {
		return a, failure.Errorf(failure.ValidationFailed, "%s", err.Error())
	}
	return a, nil
}

// MarshalTime writes t in UTC with milliseconds.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		b := append(available(w), '"')
		b = append(event.AppendTime(b, t), '"')
		_, _ = w.Write(b)
	})
}

// UnmarshalTime reads an RFC 3339 time; errors are ValidationFailed.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, failure.Errorf(failure.ValidationFailed, "must be an RFC 3339 time string")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, failure.Errorf(failure.ValidationFailed, "must be an RFC 3339 time such as 2026-11-21T19:51:27Z")
	}
	return t.UTC(), nil
}

// MarshalJSON writes stored JSON verbatim (null when empty).
func MarshalJSON(raw json.RawMessage) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		if len(raw) == 0 {
			raw = json.RawMessage("null")
		}
		_, _ = w.Write(raw)
	})
}

// UnmarshalJSON accepts any JSON value.
func UnmarshalJSON(v any) (json.RawMessage, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode JSON input: %w", err)
	}
	return b, nil
}
