package db

import (
	"encoding/base64"
	"testing"
	"time"
)

func TestCursorCodec(t *testing.T) {
	t.Parallel()
	if seq, err := parseSeqCursor(seqCursor(42)); err != nil || seq != 42 {
		t.Fatalf("seq round trip: %d %v", seq, err)
	}
	at := time.Date(2026, 11, 21, 19, 51, 27, 123456000, time.UTC)
	if got, id, err := parseTimeCursor(timeCursor(at, "tx_a:b")); err != nil || !got.Equal(at) || id != "tx_a:b" {
		t.Fatalf("time round trip: %v %q %v", got, id, err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, c := range []string{"", "!!!", enc("c1:"), enc("c1:abc"), enc("c1:-5"), enc("c1:0"), enc("x1:5"),
		timeCursor(at, "tx_1")} {
		if _, err := parseSeqCursor(c); err == nil {
			t.Errorf("seq cursor %q accepted", c)
		}
	}
	for _, c := range []string{"", enc("c1:5"), enc("c1:5:"), enc("c1:x:tx_1"), enc("t1:5:tx_1"), seqCursor(5)} {
		if _, _, err := parseTimeCursor(c); err == nil {
			t.Errorf("time cursor %q accepted", c)
		}
	}
}
