package client_test

import (
	"errors"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestAgentsReinstate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(b.c, "bot", "10")
	if _, err := b.c.Agents.Reinstate(b.ctx, a.ID, ""); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("reinstating an active agent: %v", err)
	}
	if _, err := b.c.Agents.Suspend(b.ctx, a.ID, "lost key"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.otherOrg().Agents.Reinstate(b.ctx, a.ID, ""); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("reinstate by another organization: %v", err)
	}
	r, err := b.c.Agents.Reinstate(b.ctx, a.ID, "key rotated")
	if err != nil || r.Status != client.AgentActive || r.ID != a.ID {
		t.Fatalf("reinstate: %+v %v", r, err)
	}
	chain, err := b.c.Agents.GetAuditChain(b.ctx, a.ID, client.AuditChainParams{})
	if err != nil || len(chain) != 3 || chain[1].Action != "agent.suspended" || chain[2].Action != "agent.reinstated" {
		t.Fatalf("audit chain: %+v %v", chain, err)
	}
	ev, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: a.ID, Action: "purchase", Amount: dec("1"), Currency: "USD"})
	if err != nil || ev.ReasonCode == client.ReasonAgentSuspended {
		t.Fatalf("evaluate after reinstatement: %+v %v", ev, err)
	}
}
