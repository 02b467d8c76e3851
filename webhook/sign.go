package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// SecretPrefix starts every endpoint secret.
const SecretPrefix = "whsec_"

// NewSecret returns a new endpoint secret: whsec_ and base64 of 32 random bytes.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails on supported platforms
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// ErrBadSecret means a stored secret is not whsec_<base64>.
var ErrBadSecret = errors.New("webhook: secret is not whsec_<base64>")

func secretKey(secret string) ([]byte, error) {
	raw, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, ErrBadSecret
	}
	k, err := base64.StdEncoding.DecodeString(raw)
	if err != nil || len(k) == 0 {
		return nil, ErrBadSecret
	}
	return k, nil
}

// Signature returns the webhook-signature header value for a message under
// each secret, space-separated, per Standard Webhooks v1: "v1,<base64
// HMAC-SHA256(key, id.timestamp.body)>". Errors: ErrBadSecret.
func Signature(secrets []string, msgID string, at time.Time, body []byte) (string, error) {
	return signature(secrets, msgID, strconv.FormatInt(at.Unix(), 10), body)
}

func signature(secrets []string, msgID, ts string, body []byte) (string, error) {
	const sigLen = len("v1,") + 44 // base64 of 32 bytes
	out := make([]byte, 0, len(secrets)*(sigLen+1))
	var sum [sha256.Size]byte
	for i, s := range secrets {
		pool, err := macPool(s)
		if err != nil {
			return "", err
		}
		m := pool.Get().(hash.Hash)
		m.Write([]byte(msgID))
		m.Write([]byte{'.'})
		m.Write([]byte(ts))
		m.Write([]byte{'.'})
		m.Write(body)
		if i > 0 {
			out = append(out, ' ')
		}
		out = append(out, "v1,"...)
		out = base64.StdEncoding.AppendEncode(out, m.Sum(sum[:0]))
		m.Reset()
		pool.Put(m)
	}
	return string(out), nil
}

// macs keeps, for each secret signed with lately, HMAC-SHA256 states keyed
// with it and ready to sign again: keying one (the key's inner and outer
// blocks, two hashes and their buffers) is a large share of a signature's
// cost (BenchmarkSetHeaders), and every delivery to an endpoint signs with
// the same secret. After its first use, a state's
// Reset restores the keyed state it saved instead of hashing the key again.
// Bounded by maxMacSecrets; the pools' states are dropped by the collector
// when unused.
var (
	macs     sync.Map // secret -> *sync.Pool of hash.Hash
	macCount atomic.Int64
)

// maxMacSecrets bounds macs: past it, macs starts again empty.
const maxMacSecrets = 4096

// macPool returns the pool of HMAC states keyed with secret. Errors:
// ErrBadSecret.
func macPool(secret string) (*sync.Pool, error) {
	if p, ok := macs.Load(secret); ok {
		return p.(*sync.Pool), nil
	}
	k, err := secretKey(secret)
	if err != nil {
		return nil, err
	}
	if macCount.Add(1) > maxMacSecrets {
		macs.Clear()
		macCount.Store(1)
	}
	p, _ := macs.LoadOrStore(secret, &sync.Pool{New: func() any { return hmac.New(sha256.New, k) }})
	return p.(*sync.Pool), nil
}

// SetHeaders sets the Standard Webhooks headers and the content type of a
// delivery signed at at. Errors: ErrBadSecret.
func SetHeaders(h http.Header, secrets []string, msgID string, at time.Time, body []byte) error {
	ts := strconv.FormatInt(at.Unix(), 10)
	sig, err := signature(secrets, msgID, ts, body)
	if err != nil {
		return err
	}
	// Canonical keys set directly: what h.Set would store, without
	// canonicalising each name and allocating each value's slice.
	v := []string{"application/json", "agenttrust-webhooks/1", msgID, ts, sig}
	h["Content-Type"] = v[0:1:1]
	h["User-Agent"] = v[1:2:2]
	h["Webhook-Id"] = v[2:3:3]
	h["Webhook-Timestamp"] = v[3:4:4]
	h["Webhook-Signature"] = v[4:5:5]
	return nil
}
