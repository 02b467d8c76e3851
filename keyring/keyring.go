// Package keyring holds the server's secret keys (ENCRYPTION_KEY): it
// encrypts secrets at rest with AES-256-GCM and signs data with HMAC-SHA256.
// Several keys allow rotation: the first seals and signs, every key opens and
// verifies, so a new key can be put first while old ciphertexts still open.
package keyring

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// KeySize is the length of every key, in bytes.
const KeySize = 32

// ErrNoKey means a ciphertext was sealed under a key the ring does not hold.
var ErrNoKey = errors.New("keyring: sealed under a key this ring does not hold")

// ErrCorrupt means a ciphertext is malformed or fails authentication.
var ErrCorrupt = errors.New("keyring: ciphertext is malformed or was tampered with")

type key struct {
	id   string // first 4 bytes of SHA-256 of the key, hex: names the key in ciphertexts
	aead cipher.AEAD
	mac  []byte // HMAC key, derived so signing and encryption never share a key
}

// Ring is an ordered set of keys; the zero value is unusable, build one with Parse.
type Ring struct{ keys []key }

// Parse reads a comma-separated list of base64 keys of KeySize bytes each.
// Errors name the offending position, never the key.
func Parse(s string) (*Ring, error) {
	var r Ring
	seen := map[string]bool{}
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		raw, err := base64.StdEncoding.DecodeString(part)
		if err != nil {
			if raw, err = base64.RawStdEncoding.DecodeString(part); err != nil {
				return nil, fmt.Errorf("ENCRYPTION_KEY: key %d is not base64", i+1)
			}
		}
		if len(raw) != KeySize {
			return nil, fmt.Errorf("ENCRYPTION_KEY: key %d is %d bytes, want %d (generate one with: openssl rand -base64 32)", i+1, len(raw), KeySize)
		}
		k, err := newKey(raw)
		if err != nil {
			return nil, err
		}
		if seen[k.id] {
			continue
		}
		seen[k.id] = true
		r.keys = append(r.keys, k)
	}
	return &r, nil
}

func newKey(raw []byte) (key, error) {
	block, err := aes.NewCipher(raw)
	if err != nil {
		return key{}, fmt.Errorf("keyring: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return key{}, fmt.Errorf("keyring: %w", err)
	}
	sum := sha256.Sum256(raw)
	m := hmac.New(sha256.New, raw)
	m.Write([]byte("agenttrust hmac key v1"))
	return key{id: hex.EncodeToString(sum[:4]), aead: aead, mac: m.Sum(nil)}, nil
}

// Generate returns a new random key, base64 encoded as Parse reads it.
func Generate() string {
	b := make([]byte, KeySize)
	rand.Read(b)
	return base64.StdEncoding.EncodeToString(b)
}

// LoadOrCreate reads the key file at path, creating it (mode 0600) with a new
// key when it does not exist; created reports whether it did.
func LoadOrCreate(path string) (r *Ring, created bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, false, fmt.Errorf("create key directory: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) {
			return LoadOrCreate(path) // another process won the race
		}
		if err != nil {
			return nil, false, fmt.Errorf("create key file: %w", err)
		}
		k := Generate()
		if _, err := f.WriteString(k + "\n"); err != nil {
			f.Close()
			return nil, false, fmt.Errorf("write key file: %w", err)
		}
		if err := f.Close(); err != nil {
			return nil, false, fmt.Errorf("write key file: %w", err)
		}
		r, err := Parse(k)
		return r, true, err
	}
	if err != nil {
		return nil, false, fmt.Errorf("read key file: %w", err)
	}
	r, err = Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	return r, false, nil
}

// Seal encrypts plaintext under the first key, bound to aad (for example the
// id of the row it belongs to, so a ciphertext cannot be moved to another row).
// The result names its key: "<key id>.<base64 nonce|ciphertext>".
func (r *Ring) Seal(plaintext, aad []byte) string {
	k := r.keys[0]
	nonce := make([]byte, k.aead.NonceSize())
	rand.Read(nonce)
	ct := k.aead.Seal(nonce, nonce, plaintext, aad)
	return k.id + "." + base64.RawStdEncoding.EncodeToString(ct)
}

// Open decrypts what Seal produced under any key of the ring.
// Errors: ErrNoKey, ErrCorrupt.
func (r *Ring) Open(sealed string, aad []byte) ([]byte, error) {
	id, body, ok := strings.Cut(sealed, ".")
	if !ok {
		return nil, ErrCorrupt
	}
	ct, err := base64.RawStdEncoding.DecodeString(body)
	if err != nil {
		return nil, ErrCorrupt
	}
	for _, k := range r.keys {
		if k.id != id {
			continue
		}
		if len(ct) < k.aead.NonceSize() {
			return nil, ErrCorrupt
		}
		pt, err := k.aead.Open(nil, ct[:k.aead.NonceSize()], ct[k.aead.NonceSize():], aad)
		if err != nil {
			return nil, ErrCorrupt
		}
		return pt, nil
	}
	return nil, ErrNoKey
}

// Sign returns an HMAC-SHA256 of data under the first key, scoped to purpose
// so a signature made for one use never verifies for another.
func (r *Ring) Sign(purpose string, data []byte) []byte { return sign(r.keys[0], purpose, data) }

// Verify reports whether sig is Sign(purpose, data) under any key of the ring,
// comparing in constant time.
func (r *Ring) Verify(purpose string, data, sig []byte) bool {
	ok := false
	for _, k := range r.keys {
		ok = hmac.Equal(sign(k, purpose, data), sig) || ok
	}
	return ok
}

func sign(k key, purpose string, data []byte) []byte {
	m := hmac.New(sha256.New, k.mac)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(data)
	return m.Sum(nil)
}
