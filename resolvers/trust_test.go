package resolvers_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/uptrace/bun/driver/pgdriver" // registers the "pg" database/sql driver
)

type profileJSON struct {
	AgentID    string `json:"agentId"`
	Score      int    `json:"score"`
	Assessment string `json:"assessment"`
	Factors    struct {
		CompletionRate   float64 `json:"completionRate"`
		DisputeRatio     float64 `json:"disputeRatio"`
		ReversalRate     float64 `json:"reversalRate"`
		TenureDays       float64 `json:"tenureDays"`
		Volume           int     `json:"volume"`
		Confidence       float64 `json:"confidence"`
		CounterpartyOrgs int     `json:"counterpartyOrgs"`
		Failures         float64 `json:"failures"`
		LimitRefusals    float64 `json:"limitRefusals"`
		Reversals        float64 `json:"reversals"`
		DisputingOrgs    float64 `json:"disputingOrgs"`
		OpenDisputes     int     `json:"openDisputes"`
		Suspended        int     `json:"suspended"`
	} `json:"factors"`
	Contributions []struct {
		Factor      string `json:"factor"`
		Points      int    `json:"points"`
		Description string `json:"description"`
	} `json:"contributions"`
	UpdatedAt string `json:"updatedAt"`
}

const profileQuery = `query($id: ID!) { trustProfile(agentId: $id) { agentId score assessment updatedAt
	factors { completionRate disputeRatio reversalRate tenureDays volume confidence counterpartyOrgs failures limitRefusals reversals disputingOrgs openDisputes suspended }
	contributions { factor points description } } }`

func (b *bundle) profile(key, agentID string) profileJSON {
	b.t.Helper()
	var p profileJSON
	b.do(key, profileQuery, map[string]any{"id": agentID}).into(b.t, "trustProfile", &p)
	return p
}

type evaluation struct {
	Allowed    bool   `json:"allowed"`
	Reason     string `json:"reason"`
	ReasonCode string `json:"reasonCode"`
}

func (b *bundle) evaluate(agentID, action string, amount any, currency string) evaluation {
	b.t.Helper()
	var e evaluation
	b.q(`query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`,
		map[string]any{"in": map[string]any{"agentId": agentID, "action": action, "amount": amount, "currency": currency}}).
		into(b.t, "evaluateTrust", &e)
	return e
}

func TestTrustProfileOfNewAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	a := b.register(nil)
	p := b.profile(b.key, a.ID)
	if p.Score != 500 || p.Assessment != "Moderate" || p.Factors.Confidence != 0 || p.Factors.Volume != 0 || p.AgentID != a.ID {
		t.Fatalf("new agent profile: %+v", p)
	}
	if len(p.Contributions) != 9 || p.Contributions[0].Factor != "base" || p.Contributions[0].Points != 500 ||
		!strings.HasSuffix(p.Contributions[0].Description, ": +500") {
		t.Fatalf("new agent's contributions: %+v", p.Contributions)
	}
	// Trust reads work across organizations.
	if q := b.profile(otherKey, a.ID); q.Score != 500 {
		t.Fatalf("other org reads %+v", q)
	}
	if r := b.do(b.key, profileQuery, map[string]any{"id": "agent_nope"}); r.code() != "NOT_FOUND" {
		t.Fatalf("unknown agent: %s", r.code())
	}
	if r := b.do(b.key, `{ trustHistory(agentId: "agent_nope") { score } }`, nil); r.code() != "NOT_FOUND" {
		t.Fatalf("history of an unknown agent: %s", r.code())
	}
	var list struct {
		Nodes []struct {
			Trust profileJSON `json:"trust"`
		}
	}
	b.q(`{ agents { nodes { trust { score assessment } } } }`, nil).into(t, "agents", &list)
	if len(list.Nodes) != 1 || list.Nodes[0].Trust.Score != 500 {
		t.Fatalf("Agent.trust: %+v", list)
	}
}

func TestBatchTrust(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	var ids []any
	for i := 0; i < 60; i++ {
		key := b.key
		if i%2 == 1 {
			key = otherKey
		}
		ids = append(ids, b.registerAs(key, map[string]any{"name": fmt.Sprint("a", i)}).ID)
	}
	rand.Shuffle(len(ids), func(i, j int) { ids[i], ids[j] = ids[j], ids[i] })
	before := b.db.Statements()
	var got []struct {
		AgentID    string
		Score      int
		Assessment string
	}
	b.q(`query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`, map[string]any{"ids": ids}).into(t, "batchTrust", &got)
	if n := b.db.Statements() - before; n > 2 { // the key lookup and one read
		t.Fatalf("batchTrust ran %d statements", n)
	}
	for i := range ids {
		if got[i].AgentID != ids[i] || got[i].Score != 500 {
			t.Fatalf("answer %d: %+v, want %s", i, got[i], ids[i])
		}
	}
	r := b.do(b.key, `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId } }`, map[string]any{"ids": []any{ids[0], "agent_missing1", "agent_missing2"}})
	if r.code() != "NOT_FOUND" || !strings.Contains(r.Errors[0].Message, "agent_missing1") || !strings.Contains(r.Errors[0].Message, "agent_missing2") {
		t.Fatalf("unknown ids: %+v", r.Errors)
	}
	many := make([]any, 101)
	for i := range many {
		many[i] = ids[0]
	}
	if r := b.do(b.key, `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId } }`, map[string]any{"ids": many}); r.code() != "VALIDATION_FAILED" {
		t.Fatalf("101 ids: %s", r.code())
	}
}

func TestEvaluateTrustReasonCodes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	a := b.register(map[string]any{"spendingLimit": "100", "dailyLimit": "150"})
	to := b.register(map[string]any{"name": "to"})
	jpy := b.register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	foreign := b.registerAs(otherKey, nil)

	if e := b.evaluate(a.ID, "purchase", "100", "USD"); !e.Allowed || e.ReasonCode != "ok" || !strings.Contains(e.Reason, "100.00") {
		t.Fatalf("ok: %+v", e)
	}
	b.mustExecute(b.key, pay(a, to, "100"))
	chainBefore := len(b.chain(a.ID))
	for _, c := range []struct {
		action, amount, currency, code, has string
	}{
		{"purchase", "100.01", "USD", "amount_exceeds_limit", "100.00 USD"},
		{"purchase", "60", "USD", "daily_limit_exceeded", "50.00"},
		{"purchase", "50", "USD", "ok", ""},
		{"teleport", "1", "USD", "action_not_authorized", "teleport"},
		{"purchase", "1", "EUR", "currency_mismatch", "EUR"},
	} {
		e := b.evaluate(a.ID, c.action, c.amount, c.currency)
		if e.ReasonCode != c.code || e.Allowed != (c.code == "ok") || !strings.Contains(e.Reason, c.has) {
			t.Errorf("%s %s %s: %+v", c.action, c.amount, c.currency, e)
		}
		// An execute at that moment decides alike.
		r := b.execute(b.key, map[string]any{"fromAgent": a.ID, "toAgent": to.ID, "action": c.action, "amount": c.amount, "currency": c.currency})
		got := "ok"
		if r.code() != "" {
			got, _ = r.Errors[0].Extensions["reasonCode"].(string)
		}
		if got != c.code {
			t.Errorf("execute %s %s: %s, evaluate said %s", c.action, c.amount, got, c.code)
		}
		if c.code == "ok" { // undo so the next case sees the same budget
			var tx struct{ ID string }
			_ = json.Unmarshal(r.Data["executeTransaction"], &tx)
			b.q(reverseMutation, map[string]any{"id": tx.ID, "reason": "test"})
		}
	}
	if e := b.evaluate(jpy.ID, "purchase", "1.5", "JPY"); e.ReasonCode != "invalid_amount" {
		t.Errorf("JPY 1.5: %+v", e)
	}
	// With a counterparty, evaluate makes every check an execute to it makes.
	fresh := b.register(map[string]any{"name": "fresh"})
	prod := b.register(map[string]any{"name": "prod", "environment": "production"})
	gone := b.register(map[string]any{"name": "gone"})
	b.q(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": gone.ID})
	for _, c := range []struct {
		to   agentJSON
		code string
	}{{prod, "environment_mismatch"}, {gone, "counterparty_suspended"}, {foreign, "ok"}} {
		var e evaluation
		b.q(`query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`,
			map[string]any{"in": map[string]any{"agentId": fresh.ID, "toAgent": c.to.ID, "action": "purchase", "amount": "1", "currency": "USD"}}).
			into(t, "evaluateTrust", &e)
		r := b.execute(b.key, pay(fresh, c.to, "1"))
		got := "ok"
		if r.code() != "" {
			got, _ = r.Errors[0].Extensions["reasonCode"].(string)
		}
		if e.ReasonCode != c.code || got != c.code {
			t.Errorf("to %s: evaluate %s, execute %s, want %s", c.to.Name, e.ReasonCode, got, c.code)
		}
	}
	// Evaluating changes nothing: the chain only grew by what the executes above recorded.
	evals := len(b.chain(a.ID))
	b.evaluate(a.ID, "teleport", "1", "USD")
	if len(b.chain(a.ID)) != evals || evals <= chainBefore {
		t.Fatalf("evaluate changed the audit chain")
	}
	if r := b.do(b.key, `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed } }`,
		map[string]any{"in": map[string]any{"agentId": foreign.ID, "action": "purchase", "amount": 1, "currency": "USD"}}); r.code() != "NOT_FOUND" {
		t.Fatalf("foreign agent: %s", r.code())
	}
	b.q(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": a.ID})
	if e := b.evaluate(a.ID, "purchase", "1", "USD"); e.ReasonCode != "agent_suspended" {
		t.Fatalf("suspended: %+v", e)
	}
	if p := b.profile(b.key, a.ID); p.Assessment != "High Risk" {
		t.Fatalf("suspended agent's profile: %+v", p)
	}
}

func (b *bundle) chain(agentID string) []map[string]any {
	b.t.Helper()
	var chain []map[string]any
	b.q(`query($id: ID!) { agentAuditChain(agentId: $id) { sequence action details } }`, map[string]any{"id": agentID}).into(b.t, "agentAuditChain", &chain)
	return chain
}

func TestTrustTooLow(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(nil)
	to := b.register(map[string]any{"name": "to"})
	for i := 0; i < 12; i++ { // a run of refused attempts makes the agent High Risk
		in := pay(a, to, "1")
		in["action"] = "teleport"
		if r := b.execute(b.key, in); r.code() != "POLICY_DENIED" {
			t.Fatalf("refusal %d: %s", i, r.code())
		}
	}
	if p := b.profile(b.key, a.ID); p.Assessment != "High Risk" || p.Factors.CompletionRate != 0 {
		t.Fatalf("profile after refusals: %+v", p)
	}
	if e := b.evaluate(a.ID, "purchase", "1", "USD"); e.ReasonCode != "trust_too_low" || !strings.Contains(e.Reason, "High Risk") {
		t.Fatalf("evaluate: %+v", e)
	}
	if r := b.execute(b.key, pay(a, to, "1")); r.Errors[0].Extensions["reasonCode"] != "trust_too_low" {
		t.Fatalf("execute: %+v", r.Errors)
	}
	// Each score change left a snapshot (newest first) and an event with before and after.
	var hist []struct {
		Timestamp  string
		Score      int
		Assessment string
		Cause      *string
	}
	b.q(`query($id: ID!) { trustHistory(agentId: $id) { timestamp score assessment cause } }`, map[string]any{"id": a.ID}).into(t, "trustHistory", &hist)
	if len(hist) < 3 || hist[0].Assessment != "High Risk" || *hist[len(hist)-1].Cause != "registration:"+a.ID {
		t.Fatalf("history: %+v", hist)
	}
	for i := 1; i < len(hist); i++ {
		if hist[i].Timestamp > hist[i-1].Timestamp {
			t.Fatalf("history not newest first: %+v", hist)
		}
	}
	evs := b.eventsOf(b.orgID, "trust.score_changed")
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
	b.q(`query($id: ID!, $s: Time) { trustHistory(agentId: $id, since: $s) { score } }`, map[string]any{"id": a.ID, "s": "2999-01-01T00:00:00Z"}).into(t, "trustHistory", &since)
	if len(since) != 0 {
		t.Fatalf("since in the future: %+v", since)
	}
}

const reportMutation = `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id disputeId agentId reason evidenceIds createdAt } }`

func TestReportAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otherOrg, otherKey := b.newOrg("globex")
	_, strangerKey := b.newOrg("initech")
	mine := b.register(nil)
	theirs := b.registerAs(otherKey, nil)
	bystander := b.register(map[string]any{"name": "bystander"})
	s1 := b.registerAs(strangerKey, nil)
	s2 := b.registerAs(strangerKey, map[string]any{"name": "s2"})
	tx1 := b.mustExecute(b.key, pay(mine, theirs, "5"))
	tx2 := b.mustExecute(otherKey, pay(theirs, mine, "5"))
	unrelated := b.mustExecute(b.key, pay(mine, bystander, "5"))
	hidden := b.mustExecute(strangerKey, pay(s1, s2, "5"))

	report := func(agentID, reason string, evidence ...any) *response {
		return b.do(b.key, reportMutation, map[string]any{"in": map[string]any{"agentId": agentID, "reason": reason, "evidenceIds": evidence}})
	}
	r := report(theirs.ID, "never delivered", tx1.ID, unrelated.ID, hidden.ID, "tx_missing")
	if r.code() != "VALIDATION_FAILED" {
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
		if r := report(theirs.ID, reason, tx1.ID); r.code() != "VALIDATION_FAILED" {
			t.Errorf("%s reason: %s", name, r.code())
		}
	}
	if r := report("agent_nobody", "x", tx1.ID); r.code() != "NOT_FOUND" {
		t.Errorf("unknown agent: %s", r.code())
	}

	var d struct {
		ID, DisputeID, AgentID, Reason string
		EvidenceIDs                    []string `json:"evidenceIds"`
	}
	report(theirs.ID, "never delivered", tx1.ID, tx2.ID).into(t, "reportAgent", &d)
	if !strings.HasPrefix(d.ID, "disp_") || d.DisputeID != d.ID || d.AgentID != theirs.ID || len(d.EvidenceIDs) != 2 {
		t.Fatalf("dispute: %+v", d)
	}
	if r := report(theirs.ID, "again", tx1.ID); r.code() != "CONFLICT" {
		t.Fatalf("second open dispute on a transaction: %s", r.code())
	}
	p := b.profile(b.key, theirs.ID)
	if math.Abs(p.Factors.DisputeRatio-0.5) > 1e-3 || p.Factors.OpenDisputes != 1 || p.Score >= 500 || sumPoints(p) != p.Score {
		t.Fatalf("profile after dispute: %+v", p)
	}
	ours, their := b.eventsOf(b.orgID, "dispute.filed"), b.eventsOf(otherOrg, "dispute.filed")
	if len(ours) != 1 || len(their) != 1 || ours[0].ID != their[0].ID {
		t.Fatalf("dispute events: %v %v", ours, their)
	}
	var chain []map[string]any
	b.do(otherKey, `query($id: ID!) { agentAuditChain(agentId: $id) { action } }`, map[string]any{"id": theirs.ID}).into(t, "agentAuditChain", &chain)
	if chain[len(chain)-1]["action"] != "dispute.filed" {
		t.Fatalf("reported agent's chain: %v", chain)
	}
}

// sumPoints adds a profile's contribution points.
func sumPoints(p profileJSON) int {
	sum := 0
	for _, c := range p.Contributions {
		sum += c.Points
	}
	return sum
}
