package client_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
)

func TestMandates(t *testing.T) {
	t.Parallel()
	b := setup(t)
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
	perTx := dec("40")
	m, err := b.c.Mandates.Create(b.ctx, client.CreateMandateInput{AgentID: a.ID, Description: "office chairs",
		Actions: []string{"purchase"}, Budget: dec("50"), MaxPerTransaction: &perTx, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || m.Status != client.MandateActive || !m.Remaining.Equal(dec("50")) || m.MaxPerTransaction == nil {
		t.Fatalf("create: %+v %v", m, err)
	}
	_, err = b.c.Mandates.Create(b.ctx, client.CreateMandateInput{AgentID: a.ID, Description: "x", Actions: []string{"purchase"},
		Budget: dec("0.001"), ExpiresAt: time.Now().Add(time.Hour)})
	var invalid *client.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("invalid budget: %v", err)
	}
	yes := true
	if p, err := b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{RequireMandate: &yes}, nil); err != nil || !p.RequireMandate {
		t.Fatalf("requireMandate: %+v %v", p, err)
	}
	ev, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: a.ID, Action: "purchase", Amount: dec("41"), Currency: "USD", MandateID: m.ID})
	if err != nil || ev.ReasonCode != client.ReasonMandateAmountExceeded {
		t.Fatalf("evaluate: %+v %v", ev, err)
	}
	tx, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase",
		Amount: dec("40"), Currency: "USD", MandateID: m.ID})
	if err != nil || tx.MandateID != m.ID {
		t.Fatalf("execute: %+v %v", tx, err)
	}
	_, err = b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase",
		Amount: dec("1"), Currency: "USD"})
	var denied *client.PolicyDeniedError
	if !errors.As(err, &denied) || denied.ReasonCode != client.ReasonMandateRequired {
		t.Fatalf("execute without a mandate: %v", err)
	}
	got, err := b.c.Mandates.Get(b.ctx, m.ID)
	if err != nil || !got.Spent.Equal(dec("40")) || got.Uses != 1 || !got.Remaining.Equal(dec("10")) {
		t.Fatalf("get: %+v %v", got, err)
	}
	for range 2 { // idempotent
		if got, err = b.c.Mandates.Revoke(b.ctx, m.ID, ""); err != nil || got.Status != client.MandateRevoked || got.RevokedAt == nil {
			t.Fatalf("revoke: %+v %v", got, err)
		}
	}
	var n int
	for m, err := range b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{AgentID: a.ID, Status: client.MandateRevoked, Limit: 1}) {
		if err != nil || m.ID != got.ID {
			t.Fatalf("list: %+v %v", m, err)
		}
		n++
	}
	var notFound *client.NotFoundError
	if _, err := b.c.Mandates.Get(b.ctx, "mdt_none"); n != 1 || !errors.As(err, &notFound) {
		t.Fatalf("listed %d; unknown mandate: %v", n, err)
	}
}
