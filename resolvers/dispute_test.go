package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// testClock is the service clock of one test: fixed until advanced.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// clock replaces the bundle's database clock before any request uses it.
func (b *bundle) clock() *testClock {
	c := &testClock{}
	c.ns.Store(time.Now().UTC().Truncate(time.Millisecond).UnixNano())
	b.db.Now = c.Now
	return c
}

const disputeFields = `id disputeId agentId reason evidenceIds createdAt status reporterOrgId`

type disputeJSON struct {
	ID            string   `json:"id"`
	DisputeID     string   `json:"disputeId"`
	AgentID       string   `json:"agentId"`
	Reason        string   `json:"reason"`
	EvidenceIDs   []string `json:"evidenceIds"`
	CreatedAt     string   `json:"createdAt"`
	Status        string   `json:"status"`
	ReporterOrgID string   `json:"reporterOrgId"`
}

type disputePage struct {
	Nodes    []disputeJSON `json:"nodes"`
	PageInfo struct {
		EndCursor   *string `json:"endCursor"`
		HasNextPage bool    `json:"hasNextPage"`
	} `json:"pageInfo"`
	TotalCount int `json:"totalCount"`
}

const disputesQuery = `query($agent: ID, $status: DisputeStatus, $limit: Int, $after: String) {
	disputes(agentId: $agent, status: $status, limit: $limit, after: $after) { nodes { ` + disputeFields + ` } pageInfo { endCursor hasNextPage } totalCount } }`

const withdrawMutation = `mutation($id: ID!) { withdrawDispute(id: $id) { ` + disputeFields + ` } }`

func (b *bundle) report(key, agentID, reason string, evidence ...string) *response {
	b.t.Helper()
	return b.do(key, `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { `+disputeFields+` } }`,
		map[string]any{"in": map[string]any{"agentId": agentID, "reason": reason, "evidenceIds": evidence}})
}

func (b *bundle) disputes(key string, vars map[string]any) disputePage {
	b.t.Helper()
	var p disputePage
	r := b.do(key, disputesQuery, vars)
	r.into(b.t, "disputes", &p)
	return p
}

func TestDisputeLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t)
	clk := b.clock()
	reportedOrg, reportedKey := b.newOrg("globex")
	_, thirdKey := b.newOrg("initech")
	mine := b.register(nil)
	mine2 := b.register(map[string]any{"name": "mine2"})
	theirs := b.registerAs(reportedKey, nil)
	var txs []string
	for i := 0; i < 4; i++ {
		clk.advance(time.Second)
		txs = append(txs, b.mustExecute(b.key, pay(mine, theirs, "5")).ID)
	}
	clk.advance(time.Second)
	before := b.profile(b.key, theirs.ID)

	var d disputeJSON
	b.report(b.key, theirs.ID, "never delivered", txs[0]).into(t, "reportAgent", &d)
	if d.Status != "open" || d.ReporterOrgID != b.orgID || d.DisputeID != d.ID || d.AgentID != theirs.ID {
		t.Fatalf("filed: %+v", d)
	}
	filed := b.eventsOf(reportedOrg, "dispute.filed")
	var fd map[string]any
	_ = json.Unmarshal(filed[0].Data, &fd)
	if len(filed) != 1 || fd["status"] != "open" || fd["reporter_org_id"] != b.orgID || fd["dispute_id"] != d.ID {
		t.Fatalf("dispute.filed: %v", fd)
	}
	disputed := b.profile(b.key, theirs.ID)
	if disputed.Factors.OpenDisputes != 1 || disputed.Score >= before.Score || sumPoints(disputed) != disputed.Score {
		t.Fatalf("disputed profile %+v, before %+v", disputed, before)
	}

	// Visibility: the reporter's and the reported agent's organizations; nobody else.
	for name, key := range map[string]string{"reporter": b.key, "reported": reportedKey} {
		var got disputeJSON
		b.do(key, `query($id: ID!) { dispute(id: $id) { `+disputeFields+` } }`, map[string]any{"id": d.ID}).into(t, "dispute", &got)
		if got.ID != d.ID || got.Status != "open" || got.ReporterOrgID != b.orgID {
			t.Errorf("%s reads %+v", name, got)
		}
		if p := b.disputes(key, nil); len(p.Nodes) != 1 || p.TotalCount != 1 || p.Nodes[0].ID != d.ID {
			t.Errorf("%s lists %+v", name, p)
		}
	}
	b.do(thirdKey, `query($id: ID!) { dispute(id: $id) { id } }`, map[string]any{"id": d.ID}).refused(t, "NOT_FOUND")
	if p := b.disputes(thirdKey, nil); len(p.Nodes) != 0 || p.TotalCount != 0 {
		t.Errorf("a third organization lists %+v", p)
	}
	if p := b.disputes(thirdKey, map[string]any{"agent": theirs.ID}); len(p.Nodes) != 0 {
		t.Errorf("a third organization lists by agent %+v", p)
	}
	b.do(b.key, disputesQuery, map[string]any{"limit": 0}).refused(t, "VALIDATION_FAILED")
	b.do(b.key, disputesQuery, map[string]any{"after": "bogus"}).refused(t, "VALIDATION_FAILED")

	// Only the reporter may withdraw.
	b.do(reportedKey, withdrawMutation, map[string]any{"id": d.ID}).refused(t, "FORBIDDEN")
	b.do(thirdKey, withdrawMutation, map[string]any{"id": d.ID}).refused(t, "NOT_FOUND")
	b.do(b.key, withdrawMutation, map[string]any{"id": "disp_nope"}).refused(t, "NOT_FOUND")
	clk.advance(time.Minute)
	var w disputeJSON
	b.do(b.key, withdrawMutation, map[string]any{"id": d.ID}).into(t, "withdrawDispute", &w)
	if w.Status != "withdrawn" || w.ID != d.ID {
		t.Fatalf("withdrawn: %+v", w)
	}
	b.do(b.key, withdrawMutation, map[string]any{"id": d.ID}).refused(t, "CONFLICT")
	ours, theirEvents := b.eventsOf(b.orgID, "dispute.withdrawn"), b.eventsOf(reportedOrg, "dispute.withdrawn")
	if len(ours) != 1 || len(theirEvents) != 1 || ours[0].ID != theirEvents[0].ID {
		t.Fatalf("dispute.withdrawn events: %v %v", ours, theirEvents)
	}
	var wd map[string]any
	_ = json.Unmarshal(ours[0].Data, &wd)
	if wd["dispute_id"] != d.ID || wd["status"] != "withdrawn" || wd["agent_id"] != theirs.ID {
		t.Fatalf("dispute.withdrawn data: %v", wd)
	}
	after := b.profile(b.key, theirs.ID)
	if after.Factors.OpenDisputes != 0 || after.Factors.DisputingOrgs != 0 || after.Score <= disputed.Score {
		t.Fatalf("after withdrawal %+v", after)
	}
	// The rescoring's snapshot and event name the dispute.
	var hist []struct{ Cause string }
	b.q(`query($id: ID!) { trustHistory(agentId: $id) { cause } }`, map[string]any{"id": theirs.ID}).into(t, "trustHistory", &hist)
	if hist[0].Cause != "withdrawal:"+d.ID {
		t.Fatalf("latest snapshot: %+v", hist)
	}
	scores := b.eventsOf(reportedOrg, "trust.score_changed")
	var last map[string]any
	_ = json.Unmarshal(scores[len(scores)-1].Data, &last)
	if last["cause_type"] != "withdrawal" || last["cause_id"] != d.ID || last["agent_id"] != theirs.ID {
		t.Fatalf("score event: %v", last)
	}
	var chain []map[string]any
	b.do(reportedKey, `query($id: ID!) { agentAuditChain(agentId: $id) { action } }`, map[string]any{"id": theirs.ID}).into(t, "agentAuditChain", &chain)
	if chain[len(chain)-1]["action"] != "dispute.withdrawn" {
		t.Fatalf("reported agent's chain: %v", chain)
	}

	// The evidence is free again; status filters and pages, newest first.
	var ids []string
	for _, tx := range txs {
		clk.advance(time.Second)
		var nd disputeJSON
		b.report(b.key, theirs.ID, "again", tx).into(t, "reportAgent", &nd)
		ids = append([]string{nd.ID}, ids...)
	}
	if p := b.disputes(reportedKey, map[string]any{"status": "withdrawn"}); len(p.Nodes) != 1 || p.Nodes[0].ID != d.ID || p.TotalCount != 1 {
		t.Fatalf("withdrawn filter: %+v", p)
	}
	var seen []string
	var after2 any
	for {
		p := b.disputes(reportedKey, map[string]any{"status": "open", "agent": theirs.ID, "limit": 3, "after": after2})
		for _, n := range p.Nodes {
			seen = append(seen, n.ID)
		}
		if p.TotalCount != 4 {
			t.Fatalf("totalCount %d", p.TotalCount)
		}
		if !p.PageInfo.HasNextPage {
			break
		}
		after2 = *p.PageInfo.EndCursor
	}
	if fmt.Sprint(seen) != fmt.Sprint(ids) {
		t.Fatalf("pages %v, want %v", seen, ids)
	}
	// Four open disputes from one organization weigh as one.
	if p := b.profile(b.key, theirs.ID); p.Factors.OpenDisputes != 4 || p.Factors.DisputingOrgs > 1.0001 || p.Score < disputed.Score-1 {
		t.Fatalf("four disputes from one organization: %+v (one: %d)", p, disputed.Score)
	}

	// A dispute from the agent's own organization counts for nothing.
	own := b.mustExecute(b.key, pay(mine, mine2, "1"))
	mineBefore := b.profile(b.key, mine2.ID)
	var od disputeJSON
	b.report(b.key, mine2.ID, "internal", own.ID).into(t, "reportAgent", &od)
	if p := b.profile(b.key, mine2.ID); p.Score != mineBefore.Score || p.Factors.OpenDisputes != 0 {
		t.Fatalf("own organization's dispute counted: %+v", p)
	}
	if !strings.HasPrefix(od.ID, "disp_") || od.Status != "open" {
		t.Fatalf("own dispute: %+v", od)
	}
}

func TestReinstateAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otherOrg, otherKey := b.newOrg("globex")
	_ = otherOrg
	a := b.register(nil)
	const reinstate = `mutation($id: ID!, $reason: String) { reinstateAgent(id: $id, reason: $reason) { id status fingerprint } }`
	b.do(b.key, reinstate, map[string]any{"id": a.ID}).refused(t, "CONFLICT")
	b.q(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": a.ID})
	if p := b.profile(b.key, a.ID); p.Assessment != "High Risk" || p.Factors.Suspended != 1 {
		t.Fatalf("suspended: %+v", p)
	}
	b.do(otherKey, reinstate, map[string]any{"id": a.ID}).refused(t, "NOT_FOUND")
	b.do(b.key, reinstate, map[string]any{"id": a.ID, "reason": strings.Repeat("x", 2001)}).refused(t, "VALIDATION_FAILED")
	var got struct{ ID, Status, Fingerprint string }
	b.do(b.key, reinstate, map[string]any{"id": a.ID, "reason": "appeal upheld"}).into(t, "reinstateAgent", &got)
	if got.Status != "active" || got.Fingerprint != a.Fingerprint {
		t.Fatalf("reinstated: %+v", got)
	}
	b.do(b.key, reinstate, map[string]any{"id": a.ID}).refused(t, "CONFLICT")
	if p := b.profile(b.key, a.ID); p.Score != 500 || p.Factors.Suspended != 0 {
		t.Fatalf("reinstated profile: %+v", p)
	}
	chain := b.chain(a.ID)
	if last := chain[len(chain)-1]; last["action"] != "agent.reinstated" || fmt.Sprint(last["details"].(map[string]any)["reason"]) != "appeal upheld" {
		t.Fatalf("chain: %v", last)
	}
	if evs := b.agentEvents(b.orgID); evs[len(evs)-1] != "agent.reinstated" {
		t.Fatalf("agent events: %v", evs)
	}
	re := b.eventsOf(b.orgID, "agent.reinstated")
	var data map[string]any
	_ = json.Unmarshal(re[0].Data, &data)
	if len(re) != 1 || data["id"] != a.ID || data["status"] != "active" || data["reason"] != "appeal upheld" {
		t.Fatalf("agent.reinstated: %v", data)
	}
	var hist []struct{ Cause string }
	b.q(`query($id: ID!) { trustHistory(agentId: $id) { cause } }`, map[string]any{"id": a.ID}).into(t, "trustHistory", &hist)
	if hist[0].Cause != "reinstatement:"+a.ID || hist[1].Cause != "suspension:"+a.ID {
		t.Fatalf("history: %+v", hist)
	}
	to := b.register(map[string]any{"name": "to"})
	b.mustExecute(b.key, pay(a, to, "1"))
}
