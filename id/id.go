// Package id makes the service's prefixed, URL-safe, unguessable identifiers.
package id

import (
	"crypto/rand"
	"encoding/base32"
	"strings"
)

// Prefixes of every identifier kind in the contract.
const (
	Org         = "org_"
	Agent       = "agent_"
	Transaction = "tx_"
	Webhook     = "wh_"
	Dispute     = "disp_"
	Event       = "evt_"
	Key         = "key_"
	Delivery    = "dlv_"
	Mandate     = "mdt_"
)

var enc = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// New returns prefix followed by 128 random bits in lower-case base32 (26 chars).
func New(prefix string) string {
	return prefix + Random(16)
}

// Random returns n random bytes encoded in lower-case base32.
func Random(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return enc.EncodeToString(b)
}

// Has reports whether s looks like an identifier with the given prefix.
func Has(s, prefix string) bool {
	if !strings.HasPrefix(s, prefix) || len(s) == len(prefix) || len(s) > len(prefix)+64 {
		return false
	}
	for _, r := range s[len(prefix):] {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}
