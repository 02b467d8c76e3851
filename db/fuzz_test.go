package db

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/failure"
)

// FuzzCursor feeds arbitrary `after` strings to both cursor readers: they
// never panic, refuse with VALIDATION_FAILED on "after", and whatever they
// accept re-encodes to a cursor that decodes to the same keyset values.
// Values written by the encoders always come back unchanged, and never
// for another organization or list.
func FuzzCursor(f *testing.F) {
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	at := time.Date(2026, 11, 21, 19, 51, 27, 123456000, time.UTC)
	lc := testCursors("org_a", agentList)
	for _, s := range []string{"", "!!!", enc("c2:"), enc("c2:42"), enc("c2:-5"), enc("c2:0"), enc("x1:5"), enc("c2:5:tx_1"),
		enc("c2:5:tx_a:b"), enc("c2:99999999999999999999"), lc.seq(7), lc.time(at, "tx_1"), enc("c2:1:'; DROP TABLE agents;--"),
		enc("c2:42") + "." + enc("signature")} {
		f.Add(s, int64(42), int64(1763754687123456), "tx_abc")
	}
	other := testCursors("org_b", agentList)
	f.Fuzz(func(t *testing.T, c string, seq, us int64, id string) {
		checkRefusal := func(what string, err error) {
			if fe := failure.As(err); fe == nil || fe.Code != failure.ValidationFailed || len(fe.FieldErrors) != 1 || fe.FieldErrors[0].Field != "after" {
				t.Fatalf("%s cursor %q: %#v, want VALIDATION_FAILED on after", what, c, err)
			}
		}
		if s, err := lc.parseSeq(c); err != nil {
			checkRefusal("seq", err)
		} else if s <= 0 {
			t.Fatalf("seq cursor %q accepted non-positive %d", c, s)
		} else if again, err := lc.parseSeq(lc.seq(s)); err != nil || again != s {
			t.Fatalf("seq cursor %q = %d; re-encoded gives %d, %v", c, s, again, err)
		}
		if at, tid, err := lc.parseTime(c); err != nil {
			checkRefusal("time", err)
		} else if tid == "" {
			t.Fatalf("time cursor %q accepted an empty id", c)
		} else if at2, tid2, err := lc.parseTime(lc.time(at, tid)); err != nil || !at2.Equal(at) || tid2 != tid {
			t.Fatalf("time cursor %q = %v %q; re-encoded gives %v %q, %v", c, at, tid, at2, tid2, err)
		}

		if seq > 0 {
			if got, err := lc.parseSeq(lc.seq(seq)); err != nil || got != seq {
				t.Fatalf("seq cursor of %d decodes to %d, %v", seq, got, err)
			}
			if _, err := other.parseSeq(lc.seq(seq)); err == nil {
				t.Fatalf("another organization accepts the seq cursor of %d", seq)
			}
		}
		if id != "" {
			at := time.UnixMicro(us).UTC()
			if got, gid, err := lc.parseTime(lc.time(at, id)); err != nil || !got.Equal(at) || gid != id {
				t.Fatalf("time cursor of %v, %q decodes to %v %q, %v", at, id, got, gid, err)
			}
		}
		if strings.ContainsAny(lc.seq(max(seq, 1)), "+/=") {
			t.Fatal("a cursor is not URL-safe")
		}
	})
}
