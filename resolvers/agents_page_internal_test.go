package resolvers

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"

	"github.com/agenttrust/service/resolvers/scalar"
)

// TestWritersMatchGqlgen: the page writer's string and time encoders write
// what the edge sends for gqlgen's marshalers (what encoding/json makes of
// their output), for every byte and for invalid UTF-8, and need no
// re-encoding themselves.
func TestWritersMatchGqlgen(t *testing.T) {
	t.Parallel()
	in := []string{"", "plain", `quote " and \ backslash`, "é ü 世界 \u2028 \u2029", "\xff\xfe invalid \xc3", "</script>&<>", "\x7f"}
	for b := range 256 {
		in = append(in, string([]byte{byte(b)}), "a"+string([]byte{byte(b)})+"z")
	}
	for _, s := range in {
		var gq, got bytes.Buffer
		graphql.MarshalString(s).MarshalGQL(&gq)
		want, err := json.Marshal(json.RawMessage(gq.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		writeString(&got, s)
		if got.String() != string(want) {
			t.Fatalf("%q: wrote %s, the edge sends gqlgen's %s as %s", s, got.String(), gq.String(), want)
		}
		if again, _ := json.Marshal(json.RawMessage(got.Bytes())); string(again) != got.String() {
			t.Fatalf("%q: encoding/json would change %s to %s", s, got.String(), again)
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
