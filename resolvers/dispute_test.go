package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
)

func TestDisputeLifecycle(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	reportedOrg, reportedKey := b.NewOrg("globex")
	_, thirdKey := b.NewOrg("initech")
	mine := b.Register(nil)
	mine2 := b.Register(map[string]any{"name": "mine2"})
	theirs := b.RegisterAs(reportedKey, nil)
	var txs []string
	for i := 0; i < 4; i++ {
		clk.Advance(time.Second)
		txs = append(txs, b.MustExecute(b.Key, testkit.Pay(mine, theirs, "5")).ID)
	}
	clk.Advance(time.Second)
	before := b.Profile(b.Key, theirs.ID)

	var d testkit.Dispute
	b.Report(b.Key, theirs.ID, "never delivered", txs[0]).Into(t, "reportAgent", &d)
	if d.Status != "open" || d.ReporterOrgID != b.OrgID || d.DisputeID != d.ID || d.AgentID != theirs.ID {
		t.Fatalf("filed: %+v", d)
	}
	filed := b.EventsOf(reportedOrg, "dispute.filed")
	var fd map[string]any
	_ = json.Unmarshal(filed[0].Data, &fd)
	if len(filed) != 1 || fd["status"] != "open" || fd["reporter_org_id"] != b.OrgID || fd["dispute_id"] != d.ID {
		t.Fatalf("dispute.filed: %v", fd)
	}
	disputed := b.Profile(b.Key, theirs.ID)
	if disputed.Factors.OpenDisputes != 1 || disputed.Score >= before.Score || disputed.Points() != disputed.Score {
		t.Fatalf("disputed profile %+v, before %+v", disputed, before)
	}

	// Visibility: the reporter's and the reported agent's organizations; nobody else.
	for name, key := range map[string]string{"reporter": b.Key, "reported": reportedKey} {
		var got testkit.Dispute
		b.Do(key, `query($id: ID!) { dispute(id: $id) { `+testkit.DisputeFields+` } }`, map[string]any{"id": d.ID}).Into(t, "dispute", &got)
		if got.ID != d.ID || got.Status != "open" || got.ReporterOrgID != b.OrgID {
			t.Errorf("%s reads %+v", name, got)
		}
		if p := b.Disputes(key, nil); len(p.Nodes) != 1 || p.TotalCount != 1 || p.Nodes[0].ID != d.ID {
			t.Errorf("%s lists %+v", name, p)
		}
	}
	b.Do(thirdKey, `query($id: ID!) { dispute(id: $id) { id } }`, map[string]any{"id": d.ID}).Refused(t, "NOT_FOUND")
	if p := b.Disputes(thirdKey, nil); len(p.Nodes) != 0 || p.TotalCount != 0 {
		t.Errorf("a third organization lists %+v", p)
	}
	if p := b.Disputes(thirdKey, map[string]any{"agent": theirs.ID}); len(p.Nodes) != 0 {
		t.Errorf("a third organization lists by agent %+v", p)
	}
	b.Do(b.Key, testkit.DisputesQuery, map[string]any{"limit": 0}).Refused(t, "VALIDATION_FAILED")
	b.Do(b.Key, testkit.DisputesQuery, map[string]any{"after": "bogus"}).Refused(t, "VALIDATION_FAILED")

	// Only the reporter may withdraw.
	b.Do(reportedKey, testkit.WithdrawMutation, map[string]any{"id": d.ID}).Refused(t, "FORBIDDEN")
	b.Do(thirdKey, testkit.WithdrawMutation, map[string]any{"id": d.ID}).Refused(t, "NOT_FOUND")
	b.Do(b.Key, testkit.WithdrawMutation, map[string]any{"id": "disp_nope"}).Refused(t, "NOT_FOUND")
	clk.Advance(time.Minute)
	var w testkit.Dispute
	b.Do(b.Key, testkit.WithdrawMutation, map[string]any{"id": d.ID}).Into(t, "withdrawDispute", &w)
	if w.Status != "withdrawn" || w.ID != d.ID {
		t.Fatalf("withdrawn: %+v", w)
	}
	b.Do(b.Key, testkit.WithdrawMutation, map[string]any{"id": d.ID}).Refused(t, "CONFLICT")
	ours, theirEvents := b.EventsOf(b.OrgID, "dispute.withdrawn"), b.EventsOf(reportedOrg, "dispute.withdrawn")
	if len(ours) != 1 || len(theirEvents) != 1 || ours[0].ID != theirEvents[0].ID {
		t.Fatalf("dispute.withdrawn events: %v %v", ours, theirEvents)
	}
	var wd map[string]any
	_ = json.Unmarshal(ours[0].Data, &wd)
	if wd["dispute_id"] != d.ID || wd["status"] != "withdrawn" || wd["agent_id"] != theirs.ID {
		t.Fatalf("dispute.withdrawn data: %v", wd)
	}
	after := b.Profile(b.Key, theirs.ID)
	if after.Factors.OpenDisputes != 0 || after.Factors.DisputingOrgs != 0 || after.Score <= disputed.Score {
		t.Fatalf("after withdrawal %+v", after)
	}
	// The rescoring's snapshot and event name the dispute (the cause's id is
	// shown to the agent's own organization; others see its kind).
	var hist []struct{ Cause string }
	b.Do(reportedKey, `query($id: ID!) { trustHistory(agentId: $id) { cause } }`, map[string]any{"id": theirs.ID}).Into(t, "trustHistory", &hist)
	if hist[0].Cause != "withdrawal:"+d.ID {
		t.Fatalf("latest snapshot: %+v", hist)
	}
	scores := b.EventsOf(reportedOrg, "trust.score_changed")
	var last map[string]any
	_ = json.Unmarshal(scores[len(scores)-1].Data, &last)
	if last["cause_type"] != "withdrawal" || last["cause_id"] != d.ID || last["agent_id"] != theirs.ID {
		t.Fatalf("score event: %v", last)
	}
	var chain []map[string]any
	b.Do(reportedKey, `query($id: ID!) { agentAuditChain(agentId: $id) { action } }`, map[string]any{"id": theirs.ID}).Into(t, "agentAuditChain", &chain)
	if chain[len(chain)-1]["action"] != "dispute.withdrawn" {
		t.Fatalf("reported agent's chain: %v", chain)
	}

	// The evidence is free again; status filters and pages, newest first.
	var ids []string
	for _, tx := range txs {
		clk.Advance(time.Second)
		var nd testkit.Dispute
		b.Report(b.Key, theirs.ID, "again", tx).Into(t, "reportAgent", &nd)
		ids = append([]string{nd.ID}, ids...)
	}
	if p := b.Disputes(reportedKey, map[string]any{"status": "withdrawn"}); len(p.Nodes) != 1 || p.Nodes[0].ID != d.ID || p.TotalCount != 1 {
		t.Fatalf("withdrawn filter: %+v", p)
	}
	var seen []string
	var after2 any
	for {
		p := b.Disputes(reportedKey, map[string]any{"status": "open", "agent": theirs.ID, "limit": 3, "after": after2})
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
	if p := b.Profile(b.Key, theirs.ID); p.Factors.OpenDisputes != 4 || p.Factors.DisputingOrgs > 1.0001 || p.Score < disputed.Score-1 {
		t.Fatalf("four disputes from one organization: %+v (one: %d)", p, disputed.Score)
	}

	// A dispute from the agent's own organization counts for nothing.
	own := b.MustExecute(b.Key, testkit.Pay(mine, mine2, "1"))
	mineBefore := b.Profile(b.Key, mine2.ID)
	var od testkit.Dispute
	b.Report(b.Key, mine2.ID, "internal", own.ID).Into(t, "reportAgent", &od)
	if p := b.Profile(b.Key, mine2.ID); p.Score != mineBefore.Score || p.Factors.OpenDisputes != 0 {
		t.Fatalf("own organization's dispute counted: %+v", p)
	}
	if !strings.HasPrefix(od.ID, "disp_") || od.Status != "open" {
		t.Fatalf("own dispute: %+v", od)
	}
}

func TestReinstateAgent(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	otherOrg, otherKey := b.NewOrg("globex")
	_ = otherOrg
	a := b.Register(nil)
	const reinstate = `mutation($id: ID!, $reason: String) { reinstateAgent(id: $id, reason: $reason) { id status fingerprint } }`
	b.Do(b.Key, reinstate, map[string]any{"id": a.ID}).Refused(t, "CONFLICT")
	b.Query(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": a.ID})
	if p := b.Profile(b.Key, a.ID); p.Assessment != "High Risk" || p.Factors.Suspended != 1 {
		t.Fatalf("suspended: %+v", p)
	}
	b.Do(otherKey, reinstate, map[string]any{"id": a.ID}).Refused(t, "NOT_FOUND")
	b.Do(b.Key, reinstate, map[string]any{"id": a.ID, "reason": strings.Repeat("x", 2001)}).Refused(t, "VALIDATION_FAILED")
	var got struct{ ID, Status, Fingerprint string }
	b.Do(b.Key, reinstate, map[string]any{"id": a.ID, "reason": "appeal upheld"}).Into(t, "reinstateAgent", &got)
	if got.Status != "active" || got.Fingerprint != a.Fingerprint {
		t.Fatalf("reinstated: %+v", got)
	}
	b.Do(b.Key, reinstate, map[string]any{"id": a.ID}).Refused(t, "CONFLICT")
	if p := b.Profile(b.Key, a.ID); p.Score != 500 || p.Factors.Suspended != 0 {
		t.Fatalf("reinstated profile: %+v", p)
	}
	chain := chain(b, a.ID)
	if last := chain[len(chain)-1]; last["action"] != "agent.reinstated" || fmt.Sprint(last["details"].(map[string]any)["reason"]) != "appeal upheld" {
		t.Fatalf("chain: %v", last)
	}
	if evs := b.AgentEvents(b.OrgID); evs[len(evs)-1] != "agent.reinstated" {
		t.Fatalf("agent events: %v", evs)
	}
	re := b.EventsOf(b.OrgID, "agent.reinstated")
	var data map[string]any
	_ = json.Unmarshal(re[0].Data, &data)
	if len(re) != 1 || data["id"] != a.ID || data["status"] != "active" || data["reason"] != "appeal upheld" {
		t.Fatalf("agent.reinstated: %v", data)
	}
	var hist []struct{ Cause string }
	b.Query(`query($id: ID!) { trustHistory(agentId: $id) { cause } }`, map[string]any{"id": a.ID}).Into(t, "trustHistory", &hist)
	if hist[0].Cause != "reinstatement:"+a.ID || hist[1].Cause != "suspension:"+a.ID {
		t.Fatalf("history: %+v", hist)
	}
	to := b.Register(map[string]any{"name": "to"})
	b.MustExecute(b.Key, testkit.Pay(a, to, "1"))
}
