package db

import (
	"crypto/sha256"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agenttrust/service/auth"
)

// keyCache remembers the principals of recently authenticated keys by hash,
// with the last use recorded for each; at most keyCacheSize of them. It is
// trusted only while the process's listener is connected and has heard from
// the server within keyTrustWindow: a revocation anywhere notifies
// KeyChannel in its transaction, and the listener then forgets every key, so
// a revoked key is refused on every replica once the notification arrives.
// While the listener is away, every request looks its key up.
//
// It also remembers, for unknownKeyTTL, the hashes of well-formed keys the
// database did not know (a negative cache), so that one unknown key costs
// at most one statement per window however often it is sent. Keys are
// random with 256 bits of entropy, so only the same key can hit such an
// entry again; still, every key creation notifies KeyChannel and empties
// the negative entries on every replica, so a key created afterwards works
// at once.
type keyCache struct {
	mu      sync.Mutex
	keys    map[[sha256.Size]byte]cachedKey
	unknown map[[sha256.Size]byte]time.Time // when each unknown hash was looked up
	// live holds the hash of every key live when the listener connected,
	// created since, or found live by a lookup: a hint, never an answer,
	// that lets a caller over its budget of failed attempts still reach the
	// database with a real key. Revoked keys leave it when it is reloaded.
	live map[[sha256.Size]byte]struct{}
	// ids holds the ids of keys found live in this epoch, for the
	// per-operation check of long-lived connections (liveID): emptied with
	// everything else when any key is revoked.
	ids map[string]struct{}
	// epoch changes whenever the cache forgets everything (a revocation,
	// the listener connecting or leaving) or a key is created: a lookup
	// that started in an earlier epoch may have read a key since revoked,
	// or missed one since created, and is not kept.
	epoch     uint64
	connected bool
	heardAt   atomic.Int64 // monotonic nanoseconds since cacheClock of the server's last sign of life
}

type cachedKey struct {
	p    auth.Principal
	used time.Time
	// refreshing is when a caller was sent to look the key up again (zero
	// if none has been yet).
	refreshing time.Time
}

// keyRefreshWait is how long a key's other requests are answered from the
// cache while one looks it up again; a lookup that fails or takes longer
// lets the next caller try.
const keyRefreshWait = 5 * time.Second

const keyCacheSize = 10_000

// unknownKeyTTL is how long a key the database did not know is refused
// from memory.
const unknownKeyTTL = time.Minute

// cacheClock is the origin of heardAt's monotonic readings.
var cacheClock = time.Now()

// heard records a sign of life from the listener's server.
func (c *keyCache) heard() { c.heardAt.Store(int64(time.Since(cacheClock))) }

// trusted reports whether cached keys may be used now; mu is held.
func (c *keyCache) trusted() bool {
	return c.connected && time.Since(cacheClock)-time.Duration(c.heardAt.Load()) < keyTrustWindow
}

// forget drops every key, known and unknown, and starts a new epoch; mu is
// held.
func (c *keyCache) forget() {
	c.keys = nil
	c.unknown = nil
	c.ids = nil
	c.epoch++
}

// created forgets the unknown keys and notes hash as live: that key was
// created. A key already noted (the notification of one created in this
// process, or loaded since) changes nothing: no lookup that began before its
// creation can still leave an entry for it, the epoch having moved on.
func (c *keyCache) created(hash []byte) {
	c.heard()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(hash) == sha256.Size {
		if _, ok := c.live[[sha256.Size]byte(hash)]; ok {
			return
		}
	}
	c.unknown = nil
	c.epoch++
	c.addLiveLocked(hash)
}

// loadLive replaces the live hints with hashes, the keys live now.
func (c *keyCache) loadLive(hashes [][]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = make(map[[sha256.Size]byte]struct{}, len(hashes))
	for _, h := range hashes {
		c.addLiveLocked(h)
	}
}

// addLiveLocked notes hash as live; mu is held.
func (c *keyCache) addLiveLocked(hash []byte) {
	if len(hash) != sha256.Size {
		return
	}
	if c.live == nil {
		c.live = make(map[[sha256.Size]byte]struct{})
	}
	c.live[[sha256.Size]byte(hash)] = struct{}{}
}

// revoked forgets every key: some key was revoked.
func (c *keyCache) revoked() {
	c.heard()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget()
}

// setConnected records whether the listener is connected; a change forgets
// every key (notifications sent while it was away are lost).
func (c *keyCache) setConnected(on bool) {
	if on {
		c.heard()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.connected != on {
		c.connected = on
		c.forget()
	}
}

// currentEpoch is the epoch a lookup starts in, for put.
func (c *keyCache) currentEpoch() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// put remembers the principal of a key a lookup that started in epoch found
// live, with its last recorded use, unless the cache has forgotten
// everything since.
func (c *keyCache) put(hash []byte, p auth.Principal, used time.Time, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch || !c.connected {
		return
	}
	if c.keys == nil || len(c.keys) >= keyCacheSize {
		c.keys = make(map[[sha256.Size]byte]cachedKey) // forget all: the next lookups refill it
	}
	c.keys[[sha256.Size]byte(hash)] = cachedKey{p: p, used: used}
	c.addIDLocked(p.KeyID)
}

// putID remembers that a lookup that started in epoch found the key keyID
// live, unless the cache has forgotten everything since.
func (c *keyCache) putID(keyID string, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch == c.epoch && c.connected {
		c.addIDLocked(keyID)
	}
}

// addIDLocked notes keyID as live in this epoch; mu is held.
func (c *keyCache) addIDLocked(keyID string) {
	if c.ids == nil || len(c.ids) >= keyCacheSize {
		c.ids = make(map[string]struct{}) // forget all: the next lookups refill it
	}
	c.ids[keyID] = struct{}{}
}

// liveID reports whether keyID was found live in this epoch, while the
// cache is trusted: no revocation has been heard of since.
func (c *keyCache) liveID(keyID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.ids[keyID]
	return ok && c.trusted()
}

// sawLive records that a lookup found hash live, whatever the epoch: the
// record is only a hint (wasLive).
func (c *keyCache) sawLive(hash []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addLiveLocked(hash)
}

// putUnknown remembers that a lookup that started in epoch found no live key
// for hash, unless the cache has forgotten everything or a key was created
// since.
func (c *keyCache) putUnknown(hash []byte, now time.Time, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch || !c.connected {
		return
	}
	if c.unknown == nil || len(c.unknown) >= keyCacheSize {
		c.unknown = make(map[[sha256.Size]byte]time.Time)
	}
	c.unknown[[sha256.Size]byte(hash)] = now
}

// isUnknown reports whether hash was found unknown less than unknownKeyTTL
// ago, while the cache is trusted.
func (c *keyCache) isUnknown(hash []byte, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.unknown[[sha256.Size]byte(hash)]
	return ok && c.trusted() && !now.Before(at) && now.Sub(at) < unknownKeyTTL
}

// wasLive reports whether this process has found hash live before.
func (c *keyCache) wasLive(hash []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.live[[sha256.Size]byte(hash)]
	return ok
}

// get returns the principal of a cached key while the cache is trusted and
// the key's recorded last use is less than auth.LastUseResolution old (so a
// key in steady use is looked up, and its use recorded, about once a minute
// per replica). Once that is older, one caller is refused, looks the key up
// and records its use, and the key's other requests meanwhile (for up to
// keyRefreshWait) are still answered: without that, every request in flight
// at that moment would look the key up and race to record its use.
func (c *keyCache) get(hash []byte, now time.Time) (auth.Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.trusted() {
		return auth.Principal{}, false
	}
	k, ok := c.keys[[sha256.Size]byte(hash)]
	switch {
	case !ok || now.Before(k.used):
		return auth.Principal{}, false
	case now.Sub(k.used) < auth.LastUseResolution:
		return k.p, true
	case !k.refreshing.IsZero() && now.Sub(k.refreshing) < keyRefreshWait && !now.Before(k.refreshing):
		return k.p, true // another request is looking the key up
	}
	k.refreshing = now
	c.keys[[sha256.Size]byte(hash)] = k
	return auth.Principal{}, false
}
