package resolvers_test

import (
	"context"
	"reflect"
	"testing"
)

const (
	verifyQuery     = `query($id: ID!) { verifyAgent(id: $id) { verified fingerprint auditChainValid } }`
	auditChainQuery = `query($id: ID!) { agentAuditChain(agentId: $id) { ` + auditFields + ` } }`
)

type verificationJSON struct {
	Verified        bool   `json:"verified"`
	Fingerprint     string `json:"fingerprint"`
	AuditChainValid bool   `json:"auditChainValid"`
}

func (b *bundle) verify(id string) verificationJSON {
	b.t.Helper()
	var v verificationJSON
	b.q(verifyQuery, map[string]any{"id": id}).into(b.t, "verifyAgent", &v)
	return v
}

func (b *bundle) auditChain(id string) []auditEntryJSON {
	b.t.Helper()
	var chain []auditEntryJSON
	b.q(auditChainQuery, map[string]any{"id": id}).into(b.t, "agentAuditChain", &chain)
	return chain
}

// checkChain asserts chain order and links: sequences 1..n, each previousHash
// the hash before it, distinct hashes, timestamps never going back.
func checkChain(t *testing.T, chain []auditEntryJSON) {
	t.Helper()
	seen := map[string]bool{}
	for i, e := range chain {
		if e.Sequence != i+1 {
			t.Fatalf("entry %d has sequence %d", i, e.Sequence)
		}
		if i == 0 && e.PreviousHash != nil {
			t.Fatalf("first entry links to %q", *e.PreviousHash)
		}
		if i > 0 && (e.PreviousHash == nil || *e.PreviousHash != chain[i-1].Hash) {
			t.Fatalf("entry %d previousHash %v, want %s", e.Sequence, e.PreviousHash, chain[i-1].Hash)
		}
		if i > 0 && e.Timestamp < chain[i-1].Timestamp {
			t.Fatalf("entry %d is older than entry %d", e.Sequence, i)
		}
		if seen[e.Hash] {
			t.Fatalf("entry %d repeats hash %s", e.Sequence, e.Hash)
		}
		seen[e.Hash] = true
	}
}

func TestFingerprintAndAuditOnChange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cur := b.register(map[string]any{"dailyLimit": "500"})
	fingerprints := map[string]bool{cur.Fingerprint: true}
	steps := []struct {
		input   map[string]any
		changes bool
	}{
		{map[string]any{"name": "renamed"}, true},
		{map[string]any{"spendingLimit": "250"}, true},
		{map[string]any{"dailyLimit": "600.5"}, true},
		{map[string]any{"dailyLimit": nil}, true},
		{map[string]any{}, false},
		{map[string]any{"name": "renamed"}, false},
		{map[string]any{"spendingLimit": "250.00"}, false},
		{map[string]any{"name": nil, "spendingLimit": nil}, false},
	}
	for _, s := range steps {
		prev := cur
		cur = b.update(cur.ID, s.input)
		if !s.changes {
			if cur.Fingerprint != prev.Fingerprint || cur.UpdatedAt != prev.UpdatedAt || !reflect.DeepEqual(cur.AuditChain, prev.AuditChain) {
				t.Fatalf("no-op update %v changed the agent: %+v", s.input, cur)
			}
			continue
		}
		if fingerprints[cur.Fingerprint] {
			t.Fatalf("update %v kept a previous fingerprint %s", s.input, cur.Fingerprint)
		}
		fingerprints[cur.Fingerprint] = true
		if len(cur.AuditChain) != len(prev.AuditChain)+1 {
			t.Fatalf("update %v: chain grew from %d to %d", s.input, len(prev.AuditChain), len(cur.AuditChain))
		}
		last := cur.AuditChain[len(cur.AuditChain)-1]
		if last.Action != "agent.updated" || last.Actor != b.keyID || last.Details["fingerprint"] != cur.Fingerprint ||
			last.Timestamp != cur.UpdatedAt {
			t.Fatalf("update %v: entry %+v", s.input, last)
		}
	}

	suspended := b.suspend(cur.ID, "done")
	if suspended.Fingerprint != cur.Fingerprint {
		t.Fatalf("suspension changed the fingerprint")
	}
	chain := b.auditChain(cur.ID)
	checkChain(t, chain)
	if len(chain) != 6 || chain[5].Action != "agent.suspended" || !reflect.DeepEqual(chain, suspended.AuditChain) {
		t.Fatalf("agentAuditChain = %+v\nAgent.auditChain = %+v", chain, suspended.AuditChain)
	}
	if v := b.verify(cur.ID); !v.Verified || !v.AuditChainValid || v.Fingerprint != cur.Fingerprint {
		t.Fatalf("verifyAgent after changes: %+v, want fingerprint %s", v, cur.Fingerprint)
	}
}

// Each entry's actor is the API key that made the change.
func TestAuditActorIsAPIKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	keyID, key, err := b.orgs.CreateKey(context.Background(), b.orgID)
	if err != nil {
		t.Fatal(err)
	}
	b.do(key, updateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": "second"}})
	chain := b.auditChain(a.ID)
	checkChain(t, chain)
	if len(chain) != 2 || chain[0].Actor != b.keyID || chain[1].Actor != keyID {
		t.Fatalf("actors %+v, want %s then %s", chain, b.keyID, keyID)
	}
}

// auditChain is the same through agent, agents and agentAuditChain.
func TestAuditChainEverywhere(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	b.update(a.ID, map[string]any{"name": "two"})
	other := b.register(map[string]any{"name": "other"})
	chain := b.auditChain(a.ID)
	checkChain(t, chain)
	if len(chain) != 2 || !reflect.DeepEqual(b.agent(a.ID).AuditChain, chain) {
		t.Fatalf("agent(id).auditChain differs from agentAuditChain %+v", chain)
	}
	var page struct {
		Nodes []agentJSON `json:"nodes"`
	}
	b.q(`{ agents(limit: 10) { nodes { id auditChain { `+auditFields+` } } } }`, nil).into(t, "agents", &page)
	if len(page.Nodes) != 2 || page.Nodes[0].ID != other.ID || !reflect.DeepEqual(page.Nodes[1].AuditChain, chain) ||
		!reflect.DeepEqual(page.Nodes[0].AuditChain, other.AuditChain) {
		t.Fatalf("agents { auditChain } = %+v", page.Nodes)
	}
	b.do(b.key, auditChainQuery, map[string]any{"id": "agent_nope"}).refused(t, "NOT_FOUND")
}

func TestVerifyAgent(t *testing.T) {
	t.Parallel()
	// fingerprint: whether the recomputed fingerprint still equals the agent's.
	cases := []struct {
		name                         string
		tamper                       string // SQL with $1 = agent id
		verified, chain, fingerprint bool
	}{
		{"untampered", "", true, true, true},
		{"spending limit", `UPDATE agents SET spending_limit = 999 WHERE id = $1`, false, true, false},
		{"name", `UPDATE agents SET name = 'mallory' WHERE id = $1`, false, true, false},
		{"stored fingerprint", `UPDATE agents SET fingerprint = 'sha256:' || repeat('0', 64) WHERE id = $1`, false, true, true},
		{"audit action", `UPDATE audit_entries SET action = 'x' WHERE agent_id = $1 AND sequence = 1`, true, false, true},
		{"audit details", `UPDATE audit_entries SET details = jsonb_set(details, '{name}', '"mallory"') WHERE agent_id = $1 AND sequence = 1`, true, false, true},
		{"audit actor", `UPDATE audit_entries SET actor = 'key_forged' WHERE agent_id = $1 AND sequence = 2`, true, false, true},
		{"audit entry removed", `DELETE FROM audit_entries WHERE agent_id = $1 AND sequence = 1`, true, false, true},
		// The chain ends before its signed head: a cut tail is caught.
		{"latest audit entry removed", `DELETE FROM audit_entries WHERE agent_id = $1 AND sequence = 2`, false, false, true},
	}
	b := setup(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := b.with(t)
			a := b.register(map[string]any{"name": c.name})
			a = b.update(a.ID, map[string]any{"spendingLimit": "120"})
			if c.tamper != "" {
				b.exec(c.tamper, a.ID)
			}
			v := b.verify(a.ID)
			if v.Verified != c.verified || v.AuditChainValid != c.chain {
				t.Fatalf("verifyAgent = %+v, want verified %v, auditChainValid %v", v, c.verified, c.chain)
			}
			if !fingerprintPattern.MatchString(v.Fingerprint) {
				t.Fatalf("verification fingerprint %q", v.Fingerprint)
			}
			if (v.Fingerprint == a.Fingerprint) != c.fingerprint {
				t.Fatalf("verification fingerprint %s, agent's %s", v.Fingerprint, a.Fingerprint)
			}
		})
	}
	b.do(b.key, verifyQuery, map[string]any{"id": "agent_nope"}).refused(t, "NOT_FOUND")
}
