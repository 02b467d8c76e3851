package resolvers_test

import (
	"reflect"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

const chainPageQuery = `query($id: ID!, $after: Int, $limit: Int) {
	agentAuditChain(agentId: $id, after: $after, limit: $limit) { ` + testkit.AuditFields + ` }
	agent(id: $id) { auditChain(after: $after, limit: $limit) { ` + testkit.AuditFields + ` } } }`

// Audit chains page by sequence: limit/after on agentAuditChain and on
// Agent.auditChain give the same entries, in chain order.
func TestAuditChainPaging(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	for _, name := range []string{"b", "c", "d", "e"} {
		b.UpdateAgent(a.ID, map[string]any{"name": name})
	}
	full := b.AuditChain(a.ID)
	if len(full) != 5 {
		t.Fatalf("chain of %d entries, want 5", len(full))
	}
	page := func(after, limit any) []testkit.AuditEntry {
		t.Helper()
		var top []testkit.AuditEntry
		var nested struct{ AuditChain []testkit.AuditEntry }
		r := b.Query(chainPageQuery, map[string]any{"id": a.ID, "after": after, "limit": limit})
		r.Into(t, "agentAuditChain", &top)
		r.Into(t, "agent", &nested)
		if !reflect.DeepEqual(top, nested.AuditChain) {
			t.Fatalf("agentAuditChain %+v, agent.auditChain %+v", top, nested.AuditChain)
		}
		return top
	}
	for _, c := range []struct {
		after, limit any
		from, to     int // full[from:to]
	}{{nil, nil, 0, 5}, {0, 2, 0, 2}, {2, 2, 2, 4}, {4, 2, 4, 5}, {5, 2, 5, 5}, {9, 500, 5, 5}, {1, 1000, 1, 5}} {
		if got := page(c.after, c.limit); !reflect.DeepEqual(got, full[c.from:c.to]) && !(len(got) == 0 && c.from == c.to) {
			t.Fatalf("after %v limit %v: %+v, want entries %d..%d", c.after, c.limit, got, c.from+1, c.to)
		}
	}
	for _, bad := range []map[string]any{{"limit": 0}, {"limit": 1001}, {"after": -1}} {
		vars := map[string]any{"id": a.ID}
		for k, v := range bad {
			vars[k] = v
		}
		r := b.Do(b.Key, `query($id: ID!, $after: Int, $limit: Int) { agentAuditChain(agentId: $id, after: $after, limit: $limit) { sequence } }`, vars)
		if f := r.Fields(t); len(f) != 1 {
			t.Fatalf("%v: fields %v", bad, f)
		}
	}
	// Another organization's agent, even past its end, is NOT_FOUND.
	_, other := b.NewOrg("other")
	b.Do(other, testkit.AuditChainQuery, map[string]any{"id": a.ID}).Refused(t, "NOT_FOUND")
	b.Do(other, `query($id: ID!) { agentAuditChain(agentId: $id, after: 9) { sequence } }`, map[string]any{"id": a.ID}).Refused(t, "NOT_FOUND")
}

// verifyAgent compares the chain's end with the signed head: a cut tail, or a
// head rewound to match it, is caught; later verifications re-hash only
// entries after the checkpoint, and still catch changes there.
func TestVerifyAgentSignedHead(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	cases := []struct {
		name, tamper string
		valid        bool
	}{
		{"untampered", ``, true},
		{"suspension deleted", `DELETE FROM audit_entries WHERE agent_id = $1 AND sequence = 3`, false},
		{"suspension deleted, head rewound",
			`WITH cut AS (DELETE FROM audit_entries WHERE agent_id = $1 AND sequence = 3 RETURNING agent_id)
			 UPDATE agents SET audit_seq = 2, audit_head = (SELECT hash FROM audit_entries WHERE agent_id = $1 AND sequence = 2) WHERE id = $1`, false},
		{"head signature copied from another agent",
			`UPDATE agents SET audit_head_mac = (SELECT audit_head_mac FROM agents WHERE id <> $1 LIMIT 1) WHERE id = $1`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := b.For(t)
			b.Register(map[string]any{"name": "decoy " + c.name})
			a := b.Register(map[string]any{"name": c.name})
			b.UpdateAgent(a.ID, map[string]any{"spendingLimit": "120"})
			b.SuspendAgent(a.ID, "leaked key")
			if c.tamper != "" {
				b.Exec(c.tamper, a.ID)
			}
			if v := b.Verify(a.ID); v.AuditChainValid != c.valid {
				t.Fatalf("verifyAgent = %+v, want auditChainValid %v", v, c.valid)
			}
		})
	}

	// A head rolled back to an earlier genuinely signed one, with the entries
	// since deleted, is caught once a verification saw the longer chain.
	rb := b.Register(map[string]any{"name": "rolled back"})
	b.UpdateAgent(rb.ID, map[string]any{"spendingLimit": "120"})
	var seq int
	var head, mac string
	if err := b.SQL().QueryRow(`SELECT audit_seq, audit_head, audit_head_mac FROM agents WHERE id = $1`, rb.ID).Scan(&seq, &head, &mac); err != nil {
		t.Fatal(err)
	}
	b.SuspendAgent(rb.ID, "leaked key")
	if v := b.Verify(rb.ID); !v.AuditChainValid {
		t.Fatalf("before the rollback: %+v", v)
	}
	b.Exec(`DELETE FROM audit_entries WHERE agent_id = $1 AND sequence > $2`, rb.ID, seq)
	b.Exec(`UPDATE agents SET audit_seq = $2, audit_head = $3, audit_head_mac = $4, status = 'active' WHERE id = $1`, rb.ID, seq, head, mac)
	if v := b.Verify(rb.ID); v.AuditChainValid {
		t.Fatalf("a rolled-back chain verifies: %+v", v)
	}

	// Checkpoints: a verified chain is re-hashed only after its checkpoint,
	// and an entry changed after it is caught.
	a := b.Register(map[string]any{"name": "checkpointed"})
	if v := b.Verify(a.ID); !v.AuditChainValid || !v.Verified {
		t.Fatalf("first verification %+v", v)
	}
	b.UpdateAgent(a.ID, map[string]any{"name": "renamed"})
	b.Exec(`UPDATE audit_entries SET actor = 'key_forged' WHERE agent_id = $1 AND sequence = 2`, a.ID)
	if v := b.Verify(a.ID); v.AuditChainValid {
		t.Fatalf("an entry after the checkpoint changed, still valid: %+v", v)
	}
	b.Exec(`UPDATE audit_entries SET actor = (SELECT actor FROM audit_entries WHERE agent_id = $1 AND sequence = 1) WHERE agent_id = $1 AND sequence = 2`, a.ID)
	if v := b.Verify(a.ID); !v.AuditChainValid || !v.Verified {
		t.Fatalf("restored entry: %+v", v)
	}
	// A checkpoint that is not the server's own is ignored: the whole chain is walked.
	b.Exec(`UPDATE audit_checkpoints SET mac = repeat('0', 64) WHERE agent_id = $1`, a.ID)
	b.Exec(`UPDATE audit_entries SET action = 'x' WHERE agent_id = $1 AND sequence = 1`, a.ID)
	if v := b.Verify(a.ID); v.AuditChainValid {
		t.Fatalf("forged checkpoint trusted: %+v", v)
	}
}

// Entries written by another organization's request (a payment received)
// name no key of that organization; trust history causes are shown whole
// only to the agent's own organization.
func TestNoForeignIdentifiers(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	sender := b.Register(nil)
	otherOrg, otherKey := b.NewOrg("other")
	receiver := b.RegisterAs(otherKey, nil)
	tx := b.MustExecute(b.Key, testkit.Pay(sender, receiver, "5"))

	var chain []testkit.AuditEntry
	b.Do(otherKey, testkit.AuditChainQuery, map[string]any{"id": receiver.ID}).Into(t, "agentAuditChain", &chain)
	last := chain[len(chain)-1]
	if last.Action != "transaction.completed" || last.Actor != "external" {
		t.Fatalf("receiver's entry for an incoming payment: %+v", last)
	}
	if own := b.AuditChain(sender.ID); own[len(own)-1].Actor != b.KeyID {
		t.Fatalf("sender's own entry actor %q, want %s", own[len(own)-1].Actor, b.KeyID)
	}

	const history = `query($id: ID!) { trustHistory(agentId: $id) { cause } }`
	var mine, theirs []struct{ Cause *string }
	b.Do(otherKey, history, map[string]any{"id": receiver.ID}).Into(t, "trustHistory", &mine)
	b.Query(history, map[string]any{"id": receiver.ID}).Into(t, "trustHistory", &theirs)
	if len(mine) != len(theirs) || len(mine) < 2 || *mine[0].Cause != "transaction:"+tx.ID || *theirs[0].Cause != "transaction" {
		t.Fatalf("own view %v, other view %v (org %s)", mine[0].Cause, theirs[0].Cause, otherOrg)
	}
	for _, s := range theirs {
		if s.Cause != nil && (len(*s.Cause) > 20 || *s.Cause == "") {
			t.Fatalf("other organization sees cause %q", *s.Cause)
		}
	}
}
