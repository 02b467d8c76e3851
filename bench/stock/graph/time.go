package graph

import (
	"errors"
	"io"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// MarshalTime writes t in UTC with milliseconds, as the service writes a Time.
func MarshalTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) {
		_, _ = w.Write(t.UTC().AppendFormat(append(make([]byte, 0, 32), '"'), "2006-01-02T15:04:05.000Z07:00\""))
	})
}

// UnmarshalTime reads an RFC 3339 time.
func UnmarshalTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, errors.New("time must be an RFC 3339 string")
	}
	return time.Parse(time.RFC3339Nano, s)
}
