package db

import (
	"reflect"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
)

// When a key's recorded use is a minute old, one caller is sent to look it up
// again and record its use; the key's other callers meanwhile are answered
// from the cache, so a minute's turn does not send every request in flight to
// the lookup at once. A lookup that never finishes lets another caller try.
func TestKeyCacheSendsOneCallerToTheLookup(t *testing.T) {
	t.Parallel()
	m := connectedCache()
	hash := auth.Hash("att_key")
	p := auth.Principal{OrgID: "org_1", KeyID: "key_1", Role: auth.RoleAgent, AgentIDs: []string{"agent_1"}}
	start := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	get := func(d time.Duration) bool {
		m.heard() // the listener keeps hearing from its server
		got, ok := m.get(hash, start.Add(d))
		if ok && !reflect.DeepEqual(got, p) {
			t.Fatalf("at %s: cached %+v, want %+v", d, got, p)
		}
		return ok
	}
	if get(0) {
		t.Fatal("an unknown key is answered from the cache")
	}
	m.put(hash, p, start, m.currentEpoch())
	if !get(time.Second) || !get(auth.LastUseResolution-time.Millisecond) {
		t.Fatal("a key used within the minute is not answered from the cache")
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
			t.Fatalf("at %s, while another caller looks the key up, the key is not answered from the cache", d)
		}
	}
	if get(late + keyRefreshWait) {
		t.Fatal("after the wait no caller is sent to the lookup again")
	}
	if !get(late + keyRefreshWait + time.Millisecond) {
		t.Fatal("the second lookup is not left to its caller")
	}
	m.put(hash, p, start.Add(late+keyRefreshWait+time.Second), m.currentEpoch()) // the lookup recorded the use
	if !get(late + keyRefreshWait + 2*time.Second) {
		t.Fatal("a key whose use was just recorded is not answered from the cache")
	}
}

// connectedCache is a key cache whose listener is connected and keeps
// hearing from its server.
func connectedCache() *keyCache {
	c := &keyCache{}
	c.setConnected(true)
	return c
}

// The cache is used only while its listener is connected and has heard from
// the server within keyTrustWindow; a revocation, or the listener leaving,
// forgets every key; a lookup that started before either is not kept.
func TestKeyCacheTrust(t *testing.T) {
	t.Parallel()
	hash := auth.Hash("att_key")
	p := auth.Principal{OrgID: "org_1", KeyID: "key_1"}
	now := time.Now()
	cached := func(c *keyCache) bool {
		c.heard()
		_, ok := c.get(hash, now)
		return ok
	}

	c := &keyCache{}
	c.put(hash, p, now, c.currentEpoch())
	if cached(c) {
		t.Fatal("a cache whose listener never connected answers")
	}
	c = connectedCache()
	c.put(hash, p, now, c.currentEpoch())
	if !cached(c) {
		t.Fatal("a connected cache does not answer")
	}
	c.heardAt.Store(int64(time.Since(cacheClock) - keyTrustWindow))
	if _, ok := c.get(hash, now); ok {
		t.Fatal("a cache that has not heard from the server within keyTrustWindow answers")
	}

	epoch := c.currentEpoch()
	c.revoked()
	c.put(hash, p, now, epoch) // a lookup that started before the revocation
	if cached(c) {
		t.Fatal("a lookup from before a revocation is kept")
	}
	c.put(hash, p, now, c.currentEpoch())
	c.revoked()
	if cached(c) {
		t.Fatal("a revocation does not forget the keys")
	}

	c.put(hash, p, now, c.currentEpoch())
	epoch = c.currentEpoch()
	c.setConnected(false)
	c.setConnected(true)
	if cached(c) {
		t.Fatal("a key cached before the listener left is still used")
	}
	c.put(hash, p, now, epoch)
	if cached(c) {
		t.Fatal("a lookup from before the listener left is kept")
	}
}

// A key found unknown is refused from memory for unknownKeyTTL, until a key
// is created or the cache forgets everything; a lookup that began before a
// creation does not leave its negative entry behind.
func TestKeyCacheUnknownKeys(t *testing.T) {
	t.Parallel()
	m := connectedCache()
	hash := auth.Hash("att_unknown_key")
	now := time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)
	m.putUnknown(hash, now, m.currentEpoch())
	for _, tc := range []struct {
		at   time.Duration
		want bool
	}{{0, true}, {unknownKeyTTL - time.Millisecond, true}, {unknownKeyTTL, false}, {-time.Second, false}} {
		m.heard()
		if got := m.isUnknown(hash, now.Add(tc.at)); got != tc.want {
			t.Errorf("at %s: unknown %v, want %v", tc.at, got, tc.want)
		}
	}
	m.created(auth.Hash("att_other_key"))
	if m.isUnknown(hash, now) {
		t.Fatal("a key created afterwards would be refused from memory")
	}
	epoch := m.currentEpoch()
	m.created(auth.Hash("att_third_key")) // a key is created while a lookup runs
	m.putUnknown(hash, now, epoch)
	if m.isUnknown(hash, now) {
		t.Fatal("a lookup that began before a creation left its negative entry")
	}
	m.putUnknown(hash, now, m.currentEpoch())
	m.revoked()
	if m.isUnknown(hash, now) {
		t.Fatal("forgetting everything kept the negative entries")
	}
	if m.wasLive(hash) {
		t.Fatal("a key never found live is a hint")
	}
	if !m.wasLive(auth.Hash("att_other_key")) {
		t.Fatal("a created key is not a hint")
	}
	m.created([]byte("not a hash")) // a stray notification
	m.loadLive([][]byte{auth.Hash("att_loaded_key")})
	if !m.wasLive(auth.Hash("att_loaded_key")) || m.wasLive(auth.Hash("att_other_key")) {
		t.Fatal("loading the live keys does not replace the hints")
	}
	m.sawLive(hash)
	m.revoked()
	if !m.wasLive(hash) {
		t.Fatal("the hint of a key found live does not outlive a forget")
	}
}
