package resolvers

import (
	"bytes"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/resolvers/scalar"
)

// TestWritersMatchGqlgen: the page writer's string and time encoders write
// what gqlgen's marshalers write, for every byte and for invalid UTF-8.
func TestWritersMatchGqlgen(t *testing.T) {
	t.Parallel()
	in := []string{"", "plain", `quote " and \ backslash`, "é ü 世界 \u2028 \u2029", "\xff\xfe invalid \xc3", "</script>&<>", "\x7f"}
	for b := range 256 {
		in = append(in, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, s := range in {
		var want, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&want)
		writeString(&got, s)
		if got.String() != want.String() {
			t.Fatalf("%q: wrote %s, gqlgen writes %s", s, got.String(), want.String())
		}
	}
	for _, ts := range []time.Time{{}, time.Date(2026, 11, 23, 2, 3, 4, 5_678_901, time.FixedZone("x", 3600)), time.Unix(1<<40, 999_999_999)} {
		var want, got bytes.Buffer
		scalar.MarshalTime(ts).MarshalGQL(&want)
		writeTime(&got, ts)
		if got.String() != want.String() {
			t.Fatalf("%v: wrote %s, gqlgen writes %s", ts, got.String(), want.String())
		}
	}
}
