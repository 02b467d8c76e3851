package id_test

import (
	"strings"
	"testing"

	"github.com/agenttrust/service/id"
)

// FuzzHas checks the identifier shape check that guards every id argument:
// an accepted id has its prefix, a bounded non-empty body of URL-safe
// characters only (no quotes, spaces, '%', '/' or control bytes), and ids the
// service makes are always accepted.
func FuzzHas(f *testing.F) {
	for _, s := range []string{"agent_abc", "agent_", "agent_' OR 1=1--", "agent_a/b", "tx_x", "evt_" + strings.Repeat("a", 65),
		"agent_ä", "agent_a\x00", "AGENT_abc", "agent_a%20b", "agent_" + id.Random(16)} {
		f.Add(s)
	}
	prefixes := []string{id.Org, id.Agent, id.Transaction, id.Webhook, id.Dispute, id.Event, id.Key}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range prefixes {
			if !id.Has(s, p) {
				continue
			}
			body := strings.TrimPrefix(s, p)
			if !strings.HasPrefix(s, p) || body == "" || len(body) > 64 {
				t.Fatalf("Has(%q, %q) accepted a bad length or prefix", s, p)
			}
			if strings.IndexFunc(body, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-')
			}) >= 0 {
				t.Fatalf("Has(%q, %q) accepted a character outside [a-z0-9_-]", s, p)
			}
		}
		if n := len(s) % 40; !id.Has(id.New(prefixes[n%len(prefixes)]), prefixes[n%len(prefixes)]) {
			t.Fatal("a new id fails its own shape check")
		}
	})
}
