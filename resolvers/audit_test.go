package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

func TestFingerprintAndAuditOnChange(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	cur := b.Register(map[string]any{"dailyLimit": "500"})
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
		cur = b.UpdateAgent(cur.ID, s.input)
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
		if last.Action != "agent.updated" || last.Actor != b.KeyID || last.Details["fingerprint"] != cur.Fingerprint ||
			last.Timestamp != cur.UpdatedAt {
			t.Fatalf("update %v: entry %+v", s.input, last)
		}
	}

	suspended := b.SuspendAgent(cur.ID, "done")
	if suspended.Fingerprint != cur.Fingerprint {
		t.Fatalf("suspension changed the fingerprint")
	}
	chain := b.AuditChain(cur.ID)
	testkit.CheckChain(t, chain)
	if len(chain) != 6 || chain[5].Action != "agent.suspended" || !reflect.DeepEqual(chain, suspended.AuditChain) {
		t.Fatalf("agentAuditChain = %+v\nAgent.auditChain = %+v", chain, suspended.AuditChain)
	}
	if v := b.Verify(cur.ID); !v.Verified || !v.AuditChainValid || v.Fingerprint != cur.Fingerprint {
		t.Fatalf("verifyAgent after changes: %+v, want fingerprint %s", v, cur.Fingerprint)
	}
}

// Each entry's actor is the API key that made the change.
func TestAuditActorIsAPIKey(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	keyID, key, err := b.Orgs.CreateKey(context.Background(), b.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	b.Do(key, testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": "second"}})
	chain := b.AuditChain(a.ID)
	testkit.CheckChain(t, chain)
	if len(chain) != 2 || chain[0].Actor != b.KeyID || chain[1].Actor != keyID {
		t.Fatalf("actors %+v, want %s then %s", chain, b.KeyID, keyID)
	}
}

// auditChain is the same through agent, agents and agentAuditChain.
func TestAuditChainEverywhere(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	b.UpdateAgent(a.ID, map[string]any{"name": "two"})
	other := b.Register(map[string]any{"name": "other"})
	chain := b.AuditChain(a.ID)
	testkit.CheckChain(t, chain)
	if len(chain) != 2 || !reflect.DeepEqual(b.Agent(a.ID).AuditChain, chain) {
		t.Fatalf("agent(id).auditChain differs from agentAuditChain %+v", chain)
	}
	var page struct {
		Nodes []testkit.Agent `json:"nodes"`
	}
	b.Query(`{ agents(limit: 10) { nodes { id auditChain { `+testkit.AuditFields+` } } } }`, nil).Into(t, "agents", &page)
	if len(page.Nodes) != 2 || page.Nodes[0].ID != other.ID || !reflect.DeepEqual(page.Nodes[1].AuditChain, chain) ||
		!reflect.DeepEqual(page.Nodes[0].AuditChain, other.AuditChain) {
		t.Fatalf("agents { auditChain } = %+v", page.Nodes)
	}
	b.Do(b.Key, testkit.AuditChainQuery, map[string]any{"id": "agent_nope"}).Refused(t, "NOT_FOUND")
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
	b := testkit.New(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := b.For(t)
			a := b.Register(map[string]any{"name": c.name})
			a = b.UpdateAgent(a.ID, map[string]any{"spendingLimit": "120"})
			if c.tamper != "" {
				b.Exec(c.tamper, a.ID)
			}
			v := b.Verify(a.ID)
			if v.Verified != c.verified || v.AuditChainValid != c.chain {
				t.Fatalf("verifyAgent = %+v, want verified %v, auditChainValid %v", v, c.verified, c.chain)
			}
			if !testkit.FingerprintPattern.MatchString(v.Fingerprint) {
				t.Fatalf("verification fingerprint %q", v.Fingerprint)
			}
			if (v.Fingerprint == a.Fingerprint) != c.fingerprint {
				t.Fatalf("verification fingerprint %s, agent's %s", v.Fingerprint, a.Fingerprint)
			}
		})
	}
	b.Do(b.Key, testkit.VerifyQuery, map[string]any{"id": "agent_nope"}).Refused(t, "NOT_FOUND")
}

// TestVerifyDuringUpdates verifies a genuine agent while updates commit: the
// row and its chain must be read in one snapshot, or a verification that
// reads the row before an update and the chain after it reports
// verified: false for an agent nobody tampered with.
func TestVerifyDuringUpdates(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	const updates = 60
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range updates {
			r := b.Do(b.Key, testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": fmt.Sprintf("n%d", i)}})
			if len(r.Errors) > 0 {
				t.Errorf("update %d: %s", i, r.Body)
				return
			}
		}
	}()
	verifies, failed := 0, 0
	for running := true; running; verifies++ {
		select {
		case <-done:
			running = false
		default:
		}
		r := b.Do(b.Key, testkit.VerifyQuery, map[string]any{"id": a.ID})
		var v testkit.Verification
		if err := json.Unmarshal(r.Data["verifyAgent"], &v); err != nil || len(r.Errors) > 0 {
			t.Fatalf("verify: %v %s", err, r.Body)
		}
		if !v.Verified || !v.AuditChainValid {
			failed++
		}
	}
	if failed > 0 {
		t.Fatalf("%d of %d verifications of a genuine agent failed while it was updated", failed, verifies)
	}
	if chain := b.AuditChain(a.ID); len(chain) != updates+1 {
		t.Fatalf("chain has %d entries, want %d", len(chain), updates+1)
	}
}
