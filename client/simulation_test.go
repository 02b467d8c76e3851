package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/client"
)

func TestAgentsSimulatePolicy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	clk := b.kit.Clock()
	a, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "buyer", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("100"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	shop, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "shop", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("1"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	since := clk.Now()
	var txs []*client.Transaction
	for _, amount := range []string{"60", "30", "50"} {
		clk.Advance(time.Minute)
		tx, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase",
			Amount: dec(amount), Currency: "USD"})
		if err != nil {
			t.Fatal(err)
		}
		txs = append(txs, tx)
	}
	clk.Advance(time.Minute)

	// A daily limit of 100 would have refused the third; a read-only key may ask.
	_, readonly := b.kit.IssueKey(auth.RoleReadonly)
	change := client.SpendPolicyInput{SpendLimits: []client.SpendLimit{{Amount: dec("100"), Window: client.WindowDay}}}
	s, err := b.client(readonly).Agents.SimulatePolicy(b.ctx, a.ID, change, since, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Replayed != 3 || s.Allowed != 2 || s.Refused != 1 || len(s.RefusedByCode) != 1 || s.RefusedByCode[0].ReasonCode != "daily_limit_exceeded" {
		t.Fatalf("%+v", s)
	}
	if o := s.Outcomes[0]; len(s.Outcomes) != 1 || o.Transaction.ID != txs[2].ID || !o.Transaction.Amount.Equal(dec("50")) || o.Allowed {
		t.Fatalf("outcomes %+v", s.Outcomes)
	}
	if p := s.Peaks; len(p) != 1 || !p[0].Peak.Equal(dec("90")) || !p[0].Limit.Equal(dec("100")) || p[0].At == nil || !p[0].At.Equal(txs[1].CreatedAt) {
		t.Fatalf("peaks %+v", p)
	}
	// Nothing was changed: the agent still has no daily limit.
	if p, err := b.c.Agents.Policy(b.ctx, a.ID); err != nil || p.Version != 1 || len(p.SpendLimits) != 0 {
		t.Fatalf("policy after a simulation: %+v %v", p, err)
	}

	until := since
	_, err = b.c.Agents.SimulatePolicy(b.ctx, a.ID, change, since, &until)
	var ve *client.ValidationError
	if !errors.As(err, &ve) || len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "until" {
		t.Fatalf("until at since: %v", err)
	}
	_, agentKey := b.kit.IssueKey(auth.RoleAgent, a.ID)
	var fe *client.ForbiddenError
	if _, err := b.client(agentKey).Agents.SimulatePolicy(b.ctx, a.ID, change, since, nil); !errors.As(err, &fe) {
		t.Fatalf("as an agent key: %v", err)
	}
}
