package db

import (
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
)

// When a key's recorded use is a minute old, one caller is sent to look it up
// again and record its use; the key's other callers meanwhile are answered
// from the memo, so a minute's turn does not send every request in flight to
// the lookup at once. A lookup that never finishes lets another caller try.
func TestKeyMemoSendsOneCallerToTheLookup(t *testing.T) {
	t.Parallel()
	var m keyMemo
	hash := auth.Hash("att_key")
	p := auth.Principal{OrgID: "org_1", KeyID: "key_1"}
	start := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	get := func(d time.Duration) bool {
		got, ok := m.get(hash, start.Add(d))
		if ok && got != p {
			t.Fatalf("at %s: recalled %+v, want %+v", d, got, p)
		}
		return ok
	}
	if get(0) {
		t.Fatal("an unknown key is recalled")
	}
	m.put(hash, p, start)
	if !get(time.Second) || !get(auth.LastUseResolution-time.Millisecond) {
		t.Fatal("a key used within the minute is not recalled")
	}
	if get(-time.Second) {
		t.Fatal("a use recorded in the future is trusted")
	}
	late := auth.LastUseResolution + time.Second
	if get(late) {
		t.Fatal("a minute later the first caller is not sent to the lookup")
	}
	for _, d := range []time.Duration{late, late + time.Second, late + keyRefreshWait - time.Millisecond} {
		if !get(d) {
			t.Fatalf("at %s, while another caller looks the key up, the key is not recalled", d)
		}
	}
	if get(late + keyRefreshWait) {
		t.Fatal("after the wait no caller is sent to the lookup again")
	}
	if !get(late + keyRefreshWait + time.Millisecond) {
		t.Fatal("the second lookup is not left to its caller")
	}
	m.put(hash, p, start.Add(late+keyRefreshWait+time.Second)) // the lookup recorded the use
	if !get(late + keyRefreshWait + 2*time.Second) {
		t.Fatal("a key whose use was just recorded is not recalled")
	}
}
