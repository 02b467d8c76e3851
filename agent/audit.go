package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// Audit actions recorded on an agent's chain: the one spelling of each, for
// the Go that writes entries and the SQL that counts them.
const (
	AuditRegistered           = "agent.registered"
	AuditUpdated              = "agent.updated"
	AuditSuspended            = "agent.suspended"
	AuditReinstated           = "agent.reinstated"
	AuditPolicyChanged        = "agent.policy_changed"
	AuditTransactionCompleted = "transaction.completed"
	AuditTransactionRefused   = "transaction.refused"
	AuditTransactionReversed  = "transaction.reversed"
	AuditDisputeFiled         = "dispute.filed"
	AuditDisputeWithdrawn     = "dispute.withdrawn"
	AuditMandateCreated       = "mandate.created"
	AuditMandateRevoked       = "mandate.revoked"
)

// AuditEntry is one link of an agent's append-only, hash-linked audit chain.
type AuditEntry struct {
	AgentID      string
	Sequence     int
	Action       string
	Timestamp    time.Time
	Actor        string
	Details      json.RawMessage // canonical JSON (sorted keys), or nil
	Hash         string
	PreviousHash string // "" for the first entry
}

// link is what an entry's hash covers, in this order (version 1).
type link struct {
	V            int             `json:"v"`
	AgentID      string          `json:"agent_id"`
	Sequence     int             `json:"sequence"`
	Action       string          `json:"action"`
	Timestamp    string          `json:"timestamp"`
	Actor        string          `json:"actor"`
	Details      json.RawMessage `json:"details"`
	PreviousHash string          `json:"previous_hash"`
}

// TimestampFormat is the precision the chain hashes: microseconds, as Postgres stores.
const TimestampFormat = "2006-01-02T15:04:05.000000Z"

// ComputeHash returns the hex SHA-256 of the entry's canonical link encoding,
// which covers the previous hash, so changing any entry breaks every later one.
func (e AuditEntry) ComputeHash() (string, error) {
	details, err := CanonicalJSON(e.Details)
	if err != nil {
		return "", fmt.Errorf("canonicalize audit details: %w", err)
	}
	return e.linkHash(details)
}

// linkHash is ComputeHash for details already in canonical form.
func (e AuditEntry) linkHash(details json.RawMessage) (string, error) {
	l := link{
		V: 1, AgentID: e.AgentID, Sequence: e.Sequence, Action: e.Action,
		Timestamp: e.Timestamp.UTC().Truncate(time.Microsecond).Format(TimestampFormat),
		Actor:     e.Actor, Details: details, PreviousHash: e.PreviousHash,
	}
	b, ok := l.appendPlain(make([]byte, 0, 256+len(details)))
	if !ok {
		var err error
		if b, err = json.Marshal(l); err != nil {
			return "", fmt.Errorf("encode audit link: %w", err)
		}
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// appendPlain appends json.Marshal's encoding of l when every string in it
// (details included) is plain ASCII that json.Marshal writes verbatim, and
// reports whether it did; otherwise the caller marshals.
func (l link) appendPlain(b []byte) ([]byte, bool) {
	for _, s := range [...]string{l.AgentID, l.Action, l.Timestamp, l.Actor, l.PreviousHash} {
		if !plainString(s) {
			return b, false
		}
	}
	// json.Marshal compacts a RawMessage and escapes <, > and & in it (and
	// U+2028, U+2029): canonical details without those bytes, nor any
	// non-ASCII byte, nor a control byte, come out unchanged.
	for _, c := range []byte(l.Details) {
		if c < 0x20 || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(l.V), 10)
	b = append(append(append(b, `,"agent_id":"`...), l.AgentID...), `","sequence":`...)
	b = strconv.AppendInt(b, int64(l.Sequence), 10)
	b = append(append(append(b, `,"action":"`...), l.Action...), `","timestamp":"`...)
	b = append(append(append(b, l.Timestamp...), `","actor":"`...), l.Actor...)
	b = append(append(append(b, `","details":`...), l.Details...), `,"previous_hash":"`...)
	return append(append(b, l.PreviousHash...), `"}`...), true
}

// plainString reports whether encoding/json writes s verbatim between quotes
// whether or not it escapes HTML: printable ASCII without ", \, <, > or &.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// NextEntry builds the entry that follows prev (nil for the first) and seals it with its hash.
func NextEntry(prev *AuditEntry, agentID, action, actor string, at time.Time, details any) (AuditEntry, error) {
	raw, err := canonicalDetails(details)
	if err != nil {
		return AuditEntry{}, err
	}
	e := AuditEntry{AgentID: agentID, Sequence: 1, Action: action, Actor: actor, Details: raw,
		Timestamp: at.UTC().Truncate(time.Microsecond)}
	if prev != nil {
		e.Sequence = prev.Sequence + 1
		e.PreviousHash = prev.Hash
	}
	if e.Hash, err = e.linkHash(raw); err != nil {
		return AuditEntry{}, err
	}
	return e, nil
}

// canonicalDetails is CanonicalJSON of details' JSON encoding. A flat object
// of plain strings (what transactions record) is written directly, keys
// sorted as encoding/json sorts them; anything else goes through
// CanonicalJSON.
func canonicalDetails(details any) (json.RawMessage, error) {
	if m, ok := details.(map[string]any); ok && m != nil {
		if b, ok := appendPlainObject(nil, m); ok {
			return b, nil
		}
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return nil, fmt.Errorf("encode audit details: %w", err)
	}
	return CanonicalJSON(raw)
}

// appendPlainObject appends m as canonical JSON when its keys and values are
// all plain strings (plainString), and reports whether it did.
func appendPlainObject(b []byte, m map[string]any) ([]byte, bool) {
	var keys [16]string
	ks := keys[:0]
	n := 2
	for k, v := range m {
		s, ok := v.(string)
		if !ok || !plainString(k) || !plainString(s) {
			return b, false
		}
		ks = append(ks, k)
		n += len(k) + len(s) + 6
	}
	slices.Sort(ks)
	b = slices.Grow(b, n)
	b = append(b, '{')
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), k...), `":"`...)
		b = append(append(b, m[k].(string)...), '"')
	}
	return append(b, '}'), true
}

// VerifyChain re-walks a chain in sequence order: sequences count up from 1,
// each entry links to its predecessor's hash, and each hash matches its content.
func VerifyChain(entries []AuditEntry) bool {
	prev := ""
	for i, e := range entries {
		if e.Sequence != i+1 || e.PreviousHash != prev {
			return false
		}
		h, err := e.ComputeHash()
		if err != nil || h != e.Hash {
			return false
		}
		prev = e.Hash
	}
	return true
}

// LastFingerprint returns the fingerprint recorded by the latest entry that records one.
func LastFingerprint(entries []AuditEntry) string {
	for i := len(entries) - 1; i >= 0; i-- {
		var d struct {
			Fingerprint string `json:"fingerprint"`
		}
		if json.Unmarshal(entries[i].Details, &d) == nil && d.Fingerprint != "" {
			return d.Fingerprint
		}
	}
	return ""
}

// CanonicalJSON re-encodes JSON with object keys sorted and numbers kept
// verbatim, so the same value hashes alike however Postgres stored it.
func CanonicalJSON(raw json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return json.RawMessage("null"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("decode json: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// ChainSignPurpose scopes the server's signatures of chain positions.
const ChainSignPurpose = "agenttrust audit chain head v1"

// HeadMessage is what the server signs for a chain position: the agent id,
// sequence, entry hash and the latest fingerprint recorded up to it. Every
// chain head is signed (fingerprint "") so that cutting or rewriting a chain
// in the database is detected; verification checkpoints are signed with the
// fingerprint they proved.
func HeadMessage(agentID string, sequence int, hash, fingerprint string) []byte {
	b := make([]byte, 0, len(agentID)+len(hash)+len(fingerprint)+24)
	b = append(append(b, agentID...), 0)
	b = append(strconv.AppendInt(b, int64(sequence), 10), 0)
	return append(append(append(b, hash...), 0), fingerprint...)
}

// ChainWalk checks a chain incrementally, one batch of entries at a time, from
// a proven position (sequence and hash; 0 and "" for the chain's start).
type ChainWalk struct {
	next        int    // the sequence the next entry must have
	prevHash    string // the hash it must link to
	fingerprint string // the latest fingerprint recorded so far
	ok          bool
}

// NewChainWalk starts a walk after the proven position seq/hash, whose latest
// recorded fingerprint was fingerprint.
func NewChainWalk(seq int, hash, fingerprint string) *ChainWalk {
	return &ChainWalk{next: seq + 1, prevHash: hash, fingerprint: fingerprint, ok: true}
}

// Add checks the next entries in sequence order; it reports whether the
// chain still holds. A broken walk goes on collecting fingerprints.
func (w *ChainWalk) Add(entries []AuditEntry) bool {
	for _, e := range entries {
		h, err := e.ComputeHash()
		if e.Sequence != w.next || e.PreviousHash != w.prevHash || err != nil || h != e.Hash {
			w.ok = false
		}
		if fp := LastFingerprint([]AuditEntry{e}); fp != "" {
			w.fingerprint = fp
		}
		w.next, w.prevHash = e.Sequence+1, e.Hash
	}
	return w.ok
}

// End reports whether the walk ended exactly at the head seq/hash (a cut
// tail ends early), and the latest fingerprint the chain recorded.
func (w *ChainWalk) End(seq int, hash string) (bool, string) {
	return w.ok && w.next == seq+1 && w.prevHash == hash, w.fingerprint
}
