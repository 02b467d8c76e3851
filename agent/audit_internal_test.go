package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"
)

// slowHash is the hash as encoding/json alone computes it: the reference the
// direct encodings (appendPlainObject, appendPlain) must match byte for byte.
func slowHash(t *testing.T, e AuditEntry, details any) (json.RawMessage, string) {
	t.Helper()
	raw, err := json.Marshal(details)
	if err != nil {
		t.Fatal(err)
	}
	if raw, err = CanonicalJSON(raw); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(link{V: 1, AgentID: e.AgentID, Sequence: e.Sequence, Action: e.Action,
		Timestamp: e.Timestamp.UTC().Truncate(time.Microsecond).Format(TimestampFormat),
		Actor:     e.Actor, Details: raw, PreviousHash: e.PreviousHash})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return raw, hex.EncodeToString(sum[:])
}

// FuzzNextEntryMatchesMarshal feeds NextEntry details and names with every
// kind of byte (quotes, backslashes, HTML, control, non-ASCII, invalid
// UTF-8): its entry must carry the details and hash encoding/json gives.
func FuzzNextEntryMatchesMarshal(f *testing.F) {
	f.Add("agent_a", "transaction.completed", "key_k", "tx_1", "outgoing", "1.00", "", 7)
	f.Add("agent_<b>", "a&b", "external", "x\"y\\z", "\u2028", "\xff", "é", 1)
	f.Add("a", "b", "c", "", "\x00\x1f", "<script>", "B", 0)
	f.Fuzz(func(t *testing.T, agentID, action, actor, v1, v2, v3, k3 string, seq int) {
		at := time.Date(2026, 11, 23, 11, 0, 0, 123456789, time.UTC)
		prev := &AuditEntry{Sequence: seq, Hash: v2}
		for _, details := range []any{
			map[string]any{"transaction_id": v1, "direction": v2, "amount": v3, "counterparty": v1},
			map[string]any{k3: v3, "z" + k3: v1, "a": v2},
			map[string]any{"n": 1, "s": v1},
			map[string]any{},
			map[string]any(nil),
			nil,
		} {
			e, err := NextEntry(prev, agentID, action, actor, at, details)
			if err != nil {
				t.Fatal(err)
			}
			raw, hash := slowHash(t, e, details)
			if string(e.Details) != string(raw) || e.Hash != hash {
				t.Fatalf("NextEntry(%q) = %s %s, encoding/json gives %s %s", details, e.Details, e.Hash, raw, hash)
			}
			if h, err := e.ComputeHash(); err != nil || h != e.Hash {
				t.Fatalf("ComputeHash = %s, %v; NextEntry sealed %s", h, err, e.Hash)
			}
		}
	})
}

func TestHeadMessage(t *testing.T) {
	t.Parallel()
	got := string(HeadMessage("agent_a", 42, "ab", "sha256:f"))
	if want := "agent_a\x0042\x00ab\x00sha256:f"; got != want {
		t.Errorf("HeadMessage = %q, want %q", got, want)
	}
}
