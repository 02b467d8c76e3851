package resolvers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

func TestTrustProfileOfNewAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	a := b.Register(nil)
	p := b.Profile(b.Key, a.ID)
	if p.Score != 500 || p.Assessment != "Moderate" || p.Factors.Confidence != 0 || p.Factors.Volume != 0 || p.AgentID != a.ID {
		t.Fatalf("new agent profile: %+v", p)
	}
	if len(p.Contributions) != 9 || p.Contributions[0].Factor != "base" || p.Contributions[0].Points != 500 ||
		!strings.HasSuffix(p.Contributions[0].Description, ": +500") {
		t.Fatalf("new agent's contributions: %+v", p.Contributions)
	}
	// Trust reads work across organizations.
	if q := b.Profile(otherKey, a.ID); q.Score != 500 {
		t.Fatalf("other org reads %+v", q)
	}
	if r := b.Do(b.Key, testkit.ProfileQuery, map[string]any{"id": "agent_nope"}); r.Code() != "NOT_FOUND" {
		t.Fatalf("unknown agent: %s", r.Code())
	}
	if r := b.Do(b.Key, `{ trustHistory(agentId: "agent_nope") { score } }`, nil); r.Code() != "NOT_FOUND" {
		t.Fatalf("history of an unknown agent: %s", r.Code())
	}
	var list struct {
		Nodes []struct {
			Trust testkit.TrustProfile `json:"trust"`
		}
	}
	b.Query(`{ agents { nodes { trust { score assessment } } } }`, nil).Into(t, "agents", &list)
	if len(list.Nodes) != 1 || list.Nodes[0].Trust.Score != 500 {
		t.Fatalf("Agent.trust: %+v", list)
	}
}

func TestBatchTrust(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	var ids []any
	for i := 0; i < 60; i++ {
		key := b.Key
		if i%2 == 1 {
			key = otherKey
		}
		ids = append(ids, b.RegisterAs(key, map[string]any{"name": fmt.Sprint("a", i)}).ID)
	}
	rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	before := b.DB.Statements()
	var got []struct {
		AgentID    string
		Score      int
		Assessment string
	}
	b.Query(`query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`, map[string]any{"ids": ids}).Into(t, "batchTrust", &got)
	if n := b.DB.Statements() - before; n > 2 { // the key lookup and one read
		t.Fatalf("batchTrust ran %d statements", n)
	}
	for i := range ids {
		if got[i].AgentID != ids[i] || got[i].Score != 500 {
			t.Fatalf("answer %d: %+v, want %s", i, got[i], ids[i])
		}
	}
	r := b.Do(b.Key, `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId } }`, map[string]any{"ids": []any{ids[0], "agent_missing1", "agent_missing2"}})
	if r.Code() != "NOT_FOUND" || !strings.Contains(r.Errors[0].Message, "agent_missing1") || !strings.Contains(r.Errors[0].Message, "agent_missing2") {
		t.Fatalf("unknown ids: %+v", r.Errors)
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = ids[0]
	}
	if r := b.Do(b.Key, `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId } }`, map[string]any{"ids": many}); r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("101 ids: %s", r.Code())
	}
}

func TestEvaluateTrustReasonCodes(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	a := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "150"})
	to := b.Register(map[string]any{"name": "to"})
	jpy := b.Register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	foreign := b.RegisterAs(otherKey, nil)

	if e := b.Evaluate(a.ID, "purchase", "100", "USD"); !e.Allowed || e.ReasonCode != "ok" || !strings.Contains(e.Reason, "100.00") {
		t.Fatalf("ok: %+v", e)
	}
	b.MustExecute(b.Key, testkit.Pay(a, to, "100"))
	chainBefore := len(chain(b, a.ID))
	for _, c := range []struct {
		action, amount, currency, code, has string
	}{
		{"purchase", "100.01", "USD", "amount_exceeds_limit", "100.00 USD"},
		{"purchase", "60", "USD", "daily_limit_exceeded", "50.00"},
		{"purchase", "50", "USD", "ok", ""},
		{"teleport", "1", "USD", "action_not_authorized", "teleport"},
		{"purchase", "1", "EUR", "currency_mismatch", "EUR"},
	} {
		e := b.Evaluate(a.ID, c.action, c.amount, c.currency)
		if e.ReasonCode != c.code || e.Allowed != (c.code == "ok") || !strings.Contains(e.Reason, c.has) {
			t.Errorf("%s %s %s: %+v", c.action, c.amount, c.currency, e)
		}
		// An execute at that moment decides alike.
		r := b.Execute(b.Key, map[string]any{"fromAgent": a.ID, "toAgent": to.ID, "action": c.action, "amount": c.amount, "currency": c.currency})
		got := "ok"
		if r.Code() != "" {
			got, _ = r.Errors[0].Extensions["reasonCode"].(string)
		}
		if got != c.code {
			t.Errorf("execute %s %s: %s, evaluate said %s", c.action, c.amount, got, c.code)
		}
		if c.code == "ok" { // undo so the next case sees the same budget
			var tx struct{ ID string }
			_ = json.Unmarshal(r.Data["executeTransaction"], &tx)
			b.Query(testkit.ReverseMutation, map[string]any{"id": tx.ID, "reason": "test"})
		}
	}
	if e := b.Evaluate(jpy.ID, "purchase", "1.5", "JPY"); e.ReasonCode != "invalid_amount" {
		t.Errorf("JPY 1.5: %+v", e)
	}
	// With a counterparty, evaluate makes every check an execute to it makes.
	fresh := b.Register(map[string]any{"name": "fresh"})
	prod := b.Register(map[string]any{"name": "prod", "environment": "production"})
	gone := b.Register(map[string]any{"name": "gone"})
	b.Query(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": gone.ID})
	for _, c := range []struct {
		to   testkit.Agent
		code string
	}{{prod, "environment_mismatch"}, {gone, "counterparty_suspended"}, {foreign, "ok"}} {
		var e testkit.Evaluation
		b.Query(`query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`,
			map[string]any{"in": map[string]any{"agentId": fresh.ID, "toAgent": c.to.ID, "action": "purchase", "amount": "1", "currency": "USD"}}).
			Into(t, "evaluateTrust", &e)
		r := b.Execute(b.Key, testkit.Pay(fresh, c.to, "1"))
		got := "ok"
		if r.Code() != "" {
			got, _ = r.Errors[0].Extensions["reasonCode"].(string)
		}
		if e.ReasonCode != c.code || got != c.code {
			t.Errorf("to %s: evaluate %s, execute %s, want %s", c.to.Name, e.ReasonCode, got, c.code)
		}
	}
	// Evaluating changes nothing: the chain only grew by what the executes above recorded.
	evals := len(chain(b, a.ID))
	b.Evaluate(a.ID, "teleport", "1", "USD")
	if len(chain(b, a.ID)) != evals || evals <= chainBefore {
		t.Fatalf("evaluate changed the audit chain")
	}
	if r := b.Do(b.Key, `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed } }`,
		map[string]any{"in": map[string]any{"agentId": foreign.ID, "action": "purchase", "amount": 1, "currency": "USD"}}); r.Code() != "NOT_FOUND" {
		t.Fatalf("foreign agent: %s", r.Code())
	}
	b.Query(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": a.ID})
	if e := b.Evaluate(a.ID, "purchase", "1", "USD"); e.ReasonCode != "agent_suspended" {
		t.Fatalf("suspended: %+v", e)
	}
	if p := b.Profile(b.Key, a.ID); p.Assessment != "High Risk" {
		t.Fatalf("suspended agent's profile: %+v", p)
	}
}

func chain(b *testkit.Kit, agentID string) []map[string]any {
	b.T.Helper()
	var chain []map[string]any
	b.Query(`query($id: ID!) { agentAuditChain(agentId: $id) { sequence action details } }`, map[string]any{"id": agentID}).Into(b.T, "agentAuditChain", &chain)
	return chain
}

func TestTrustTooLow(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	to := b.Register(map[string]any{"name": "to"})
	for i := 0; i < 12; i++ { // a run of refused attempts makes the agent High Risk
		in := testkit.Pay(a, to, "1")
		in["action"] = "teleport"
		if r := b.Execute(b.Key, in); r.Code() != "POLICY_DENIED" {
			t.Fatalf("refusal %d: %s", i, r.Code())
		}
	}
	if p := b.Profile(b.Key, a.ID); p.Assessment != "High Risk" || p.Factors.CompletionRate != 0 {
		t.Fatalf("profile after refusals: %+v", p)
	}
	if e := b.Evaluate(a.ID, "purchase", "1", "USD"); e.ReasonCode != "trust_too_low" || !strings.Contains(e.Reason, "High Risk") {
		t.Fatalf("evaluate: %+v", e)
	}
	if r := b.Execute(b.Key, testkit.Pay(a, to, "1")); r.Errors[0].Extensions["reasonCode"] != "trust_too_low" {
		t.Fatalf("execute: %+v", r.Errors)
	}
	// Each score change left a snapshot (newest first) and an event with before and after.
	var hist []struct {
		Timestamp  string
		Score      int
		Assessment string
		Cause      *string
	}
	b.Query(`query($id: ID!) { trustHistory(agentId: $id) { timestamp score assessment cause } }`, map[string]any{"id": a.ID}).Into(t, "trustHistory", &hist)
	if len(hist) < 3 || hist[0].Assessment != "High Risk" || *hist[len(hist)-1].Cause != "registration:"+a.ID {
		t.Fatalf("history: %+v", hist)
	}
	for i := 1; i < len(hist); i++ {
		if hist[i].Timestamp > hist[i-1].Timestamp {
			t.Fatalf("history not newest first: %+v", hist)
		}
	}
	evs := b.EventsOf(b.OrgID, "trust.score_changed")
	if len(evs) != len(hist)-1 {
		t.Fatalf("%d score events for %d snapshots", len(evs), len(hist))
	}
	var last map[string]any
	_ = json.Unmarshal(evs[len(evs)-1].Data, &last)
	if last["agent_id"] != a.ID || last["assessment"] != "High Risk" || last["cause_type"] != "refusal" ||
		last["previous_score"] == nil || last["previous_assessment"] == nil || last["cause_id"] != a.ID {
		t.Fatalf("score event: %v", last)
	}
	var since []struct{ Score int }
	b.Query(`query($id: ID!, $s: Time) { trustHistory(agentId: $id, since: $s) { score } }`, map[string]any{"id": a.ID, "s": "2999-01-01T00:00:00Z"}).Into(t, "trustHistory", &since)
	if len(since) != 0 {
		t.Fatalf("since in the future: %+v", since)
	}
}

const reportMutation = `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id disputeId agentId reason evidenceIds createdAt } }`

func TestReportAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	otherOrg, otherKey := b.NewOrg("globex")
	_, strangerKey := b.NewOrg("initech")
	mine := b.Register(nil)
	theirs := b.RegisterAs(otherKey, nil)
	bystander := b.Register(map[string]any{"name": "bystander"})
	s1 := b.RegisterAs(strangerKey, nil)
	s2 := b.RegisterAs(strangerKey, map[string]any{"name": "s2"})
	tx1 := b.MustExecute(b.Key, testkit.Pay(mine, theirs, "5"))
	tx2 := b.MustExecute(otherKey, testkit.Pay(theirs, mine, "5"))
	unrelated := b.MustExecute(b.Key, testkit.Pay(mine, bystander, "5"))
	hidden := b.MustExecute(strangerKey, testkit.Pay(s1, s2, "5"))

	report := func(agentID, reason string, evidence ...any) *testkit.Response {
		return b.Do(b.Key, reportMutation, map[string]any{"in": map[string]any{"agentId": agentID, "reason": reason, "evidenceIds": evidence}})
	}
	r := report(theirs.ID, "never delivered", tx1.ID, unrelated.ID, hidden.ID, "tx_missing")
	if r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("bad evidence: %+v", r.Errors)
	}
	fields := fmt.Sprint(r.Errors[0].Extensions["fieldErrors"])
	for _, bad := range []string{unrelated.ID, hidden.ID, "tx_missing"} {
		if !strings.Contains(fields, bad) {
			t.Errorf("fieldErrors %s do not name %s", fields, bad)
		}
	}
	if strings.Contains(fields, "evidenceIds[0]") {
		t.Errorf("valid evidence was named: %s", fields)
	}
	for name, reason := range map[string]string{"blank": "  ", "too long": strings.Repeat("x", 2001)} {
		if r := report(theirs.ID, reason, tx1.ID); r.Code() != "VALIDATION_FAILED" {
			t.Errorf("%s reason: %s", name, r.Code())
		}
	}
	if r := report("agent_nobody", "x", tx1.ID); r.Code() != "NOT_FOUND" {
		t.Errorf("unknown agent: %s", r.Code())
	}

	var d struct {
		ID, DisputeID, AgentID, Reason string
		EvidenceIDs                    []string `json:"evidenceIds"`
	}
	report(theirs.ID, "never delivered", tx1.ID, tx2.ID).Into(t, "reportAgent", &d)
	if !strings.HasPrefix(d.ID, "disp_") || d.DisputeID != d.ID || d.AgentID != theirs.ID || len(d.EvidenceIDs) != 2 {
		t.Fatalf("dispute: %+v", d)
	}
	if r := report(theirs.ID, "again", tx1.ID); r.Code() != "CONFLICT" {
		t.Fatalf("second open dispute on a transaction: %s", r.Code())
	}
	p := b.Profile(b.Key, theirs.ID)
	if math.Abs(p.Factors.DisputeRatio-0.5) > 1e-3 || p.Factors.OpenDisputes != 1 || p.Score >= 500 || p.Points() != p.Score {
		t.Fatalf("profile after dispute: %+v", p)
	}
	ours, their := b.EventsOf(b.OrgID, "dispute.filed"), b.EventsOf(otherOrg, "dispute.filed")
	if len(ours) != 1 || len(their) != 1 || ours[0].ID != their[0].ID {
		t.Fatalf("dispute events: %v %v", ours, their)
	}
	var chain []map[string]any
	b.Do(otherKey, `query($id: ID!) { agentAuditChain(agentId: $id) { action } }`, map[string]any{"id": theirs.ID}).Into(t, "agentAuditChain", &chain)
	if chain[len(chain)-1]["action"] != "dispute.filed" {
		t.Fatalf("reported agent's chain: %v", chain)
	}
}
