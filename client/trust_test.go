package client_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
)

func TestTrust(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from, to := b.register(b.c, "payer", "100"), b.register(b.c, "payee", "100")
	other := b.otherOrg()
	stranger := b.register(other, "stranger", "10")

	p, err := b.c.Trust.Query(b.ctx, from.ID)
	if err != nil || p.AgentID != from.ID || p.Score < 0 || p.Score > 1000 || p.Assessment == "" || p.UpdatedAt.IsZero() || len(p.Contributions) == 0 {
		t.Fatalf("query: %+v %v", p, err)
	}
	sum := 0
	for _, c := range p.Contributions {
		if c.Factor == "" || c.Description == "" {
			t.Fatalf("contribution %+v", c)
		}
		sum += c.Points
	}
	if sum != p.Score {
		t.Fatalf("contributions add up to %d, score %d", sum, p.Score)
	}
	// Trust reads work for any organization's agent.
	if sp, err := b.c.Trust.Query(b.ctx, stranger.ID); err != nil || sp.AgentID != stranger.ID {
		t.Fatalf("query another org's agent: %+v %v", sp, err)
	}
	if _, err := b.c.Trust.Query(b.ctx, "agent_nope"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("unknown agent: %v", err)
	}

	ev, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: from.ID, Action: "purchase", Amount: dec("100"), Currency: "USD"})
	if err != nil || !ev.Allowed || ev.ReasonCode != client.ReasonOK || ev.Reason == "" {
		t.Fatalf("evaluate at the limit: %+v %v", ev, err)
	}
	ev, err = b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: from.ID, Action: "sell", Amount: dec("1"), Currency: "USD", ToAgent: to.ID})
	if err != nil || ev.Allowed || ev.ReasonCode != client.ReasonActionNotAuthorized {
		t.Fatalf("evaluate an unauthorized action: %+v %v", ev, err)
	}
	if _, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: stranger.ID, Action: "purchase", Amount: dec("1"), Currency: "USD"}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("evaluate another org's agent: %v", err)
	}

	b.execute(from.ID, to.ID, "10")
	sums, err := b.c.Trust.BatchQuery(b.ctx, []string{to.ID, stranger.ID, from.ID})
	if err != nil || len(sums) != 3 || sums[0].AgentID != to.ID || sums[1].AgentID != stranger.ID || sums[2].AgentID != from.ID {
		t.Fatalf("batch: %+v %v", sums, err)
	}
	if _, err := b.c.Trust.BatchQuery(b.ctx, []string{from.ID, "agent_nope"}); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("batch with an unknown id: %v", err)
	}

	// A dispute against another organization's agent, backed by a payment to it.
	paid := b.execute(from.ID, stranger.ID, "5")
	d, err := b.c.Trust.Report(b.ctx, client.ReportInput{AgentID: stranger.ID, Reason: "never delivered", EvidenceIDs: []string{paid.ID}})
	if err != nil || d.AgentID != stranger.ID || d.ID == "" || len(d.EvidenceIDs) != 1 || d.EvidenceIDs[0] != paid.ID || d.Reason != "never delivered" ||
		d.Status != client.DisputeOpen || !strings.HasPrefix(d.ReporterOrgID, "org_") {
		t.Fatalf("report: %+v %v", d, err)
	}
	if _, err := b.c.Trust.Report(b.ctx, client.ReportInput{AgentID: to.ID, Reason: "x"}); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("report without evidence: %v", err)
	}
	if _, err := b.c.Trust.Report(b.ctx, client.ReportInput{AgentID: to.ID, Reason: "x", EvidenceIDs: []string{paid.ID}}); !errors.Is(err, client.ErrValidation) {
		t.Fatalf("report with evidence not involving the agent: %v", err)
	}

	hist, err := b.c.Trust.GetHistory(b.ctx, from.ID, time.Time{})
	if err != nil || len(hist) == 0 || hist[len(hist)-1].Cause != "registration:"+from.ID {
		t.Fatalf("history: %+v %v", hist, err)
	}
	for i := 1; i < len(hist); i++ {
		if hist[i].Timestamp.After(hist[i-1].Timestamp) {
			t.Fatalf("history not newest first: %+v", hist)
		}
	}
	if recent, err := b.c.Trust.GetHistory(b.ctx, from.ID, time.Now().Add(time.Hour)); err != nil || len(recent) != 0 {
		t.Fatalf("history since the future: %+v %v", recent, err)
	}
}
