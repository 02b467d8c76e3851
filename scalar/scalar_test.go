package scalar

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/money"
)

// written is what m writes into a buffer (as gqlgen writes an answer) and
// into a plain writer; both must be the same.
func written(t *testing.T, m graphql.Marshaler) string {
	t.Helper()
	var buf bytes.Buffer
	buf.WriteString("prefix,")
	m.MarshalGQL(&buf)
	var plain strings.Builder
	m.MarshalGQL(struct{ io.Writer }{&plain})
	got, _ := strings.CutPrefix(buf.String(), "prefix,")
	if got != plain.String() {
		t.Fatalf("into a buffer %q, into a writer %q", got, plain.String())
	}
	return got
}

// Times are written as quoted event.FormatTime strings, whatever the year
// and zone.
func TestMarshalTime(t *testing.T) {
	t.Parallel()
	for _, ts := range []time.Time{{}, time.Date(2026, 11, 23, 2, 3, 4, 5_678_901, time.FixedZone("x", 3600)),
		time.Unix(1<<40, 999_999_999), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)} {
		if got, want := written(t, MarshalTime(ts)), strconv.Quote(event.FormatTime(ts)); got != want {
			t.Fatalf("%v: wrote %s, want %s", ts, got, want)
		}
	}
}

// Amounts are written as their exact String form, small and large.
func TestMarshalDecimal(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0.01", "1000.50", "100", "123456789012.123456", "999999999999999.999999", "0.000000000000000000000000000001"} {
		a, err := money.ParseAmount(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := written(t, MarshalDecimal(a)); got != a.String() {
			t.Fatalf("%s: wrote %s, want %s", s, got, a.String())
		}
	}
}
