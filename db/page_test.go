package db

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/keyring"
	"github.com/agenttrust/service/paging"
)

// testCursors is the codec of list for org under a key of its own.
func testCursors(org, list string) listCursors {
	return listCursors{paging.Cursors{Keys: testRing, Org: org, List: list}}
}

var testRing = randomRing()

func TestCursorCodec(t *testing.T) {
	t.Parallel()
	lc := testCursors("org_a", agentList)
	if seq, err := lc.parseSeq(lc.seq(42)); err != nil || seq != 42 {
		t.Fatalf("seq round trip: %d %v", seq, err)
	}
	at := time.Date(2026, 11, 21, 19, 51, 27, 123456000, time.UTC)
	txs := testCursors("org_a", transactionList)
	if got, id, err := txs.parseTime(txs.time(at, "tx_a:b")); err != nil || !got.Equal(at) || id != "tx_a:b" {
		t.Fatalf("time round trip: %v %q %v", got, id, err)
	}
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	// A cursor written by another replica, sharing the ring, opens; one
	// after a rotation that keeps the old key last opens too.
	key := keyring.Generate()
	before, err := keyring.Parse(key)
	if err != nil {
		t.Fatal(err)
	}
	rotated, err := keyring.Parse(keyring.Generate() + "," + key)
	if err != nil {
		t.Fatal(err)
	}
	old := listCursors{paging.Cursors{Keys: before, Org: "org_a", List: agentList}}
	if seq, err := (listCursors{paging.Cursors{Keys: rotated, Org: "org_a", List: agentList}}).parseSeq(old.seq(9)); err != nil || seq != 9 {
		t.Fatalf("a cursor under the previous key: %d %v", seq, err)
	}
	good := lc.seq(5)
	payload, sig, _ := strings.Cut(good, ".")
	forged := []string{"", "!!!", enc("c2:5"), enc("c2:6") + "." + sig, payload + ".", payload + "." + enc("x"),
		good + "x", strings.ToUpper(good[:3]) + good[3:], enc("c1:5"),
		testCursors("org_b", agentList).seq(5),                                                // another organization's
		testCursors("org_a", disputeList).seq(5),                                              // another list's
		testCursors("org_a", transactionList).time(at, "tx_1"),                                // another list's, another shape
		listCursors{paging.Cursors{Keys: randomRing(), Org: "org_a", List: agentList}}.seq(5), // another server's key
	}
	for _, c := range forged {
		if _, err := lc.parseSeq(c); err == nil {
			t.Errorf("seq cursor %q accepted", c)
		}
	}
	for _, c := range []string{"", enc("c2:5"), enc("c2:5:"), enc("c2:x:tx_1"), txs.seq(5), testCursors("org_b", transactionList).time(at, "tx_1")} {
		if _, _, err := txs.parseTime(c); err == nil {
			t.Errorf("time cursor %q accepted", c)
		}
	}
}
