package client_test

import (
	"errors"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestTransactionsApproval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(b.c, "buyer", "1000")
	shop := b.register(b.otherOrg(), "shop", "1")
	daily := dec("800")
	p, err := b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{
		SpendLimits: []client.SpendLimit{{Amount: daily, Window: client.WindowDay}},
		Approval:    &client.ApprovalRule{Above: dec("500"), ExpiresAfterSeconds: 600}}, nil)
	if err != nil || p.Approval == nil || !p.Approval.Above.Equal(dec("500")) || p.Approval.ExpiresAfterSeconds != 600 {
		t.Fatalf("set approval: %+v %v", p, err)
	}
	e, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: a.ID, Action: "purchase", Amount: dec("600"), Currency: "USD", ToAgent: shop.ID})
	if err != nil || !e.Allowed || e.ReasonCode != client.ReasonOK || !e.RequiresApproval {
		t.Fatalf("evaluate 600: %+v %v", e, err)
	}

	first, second := b.execute(a.ID, shop.ID, "600"), b.execute(a.ID, shop.ID, "700")
	if first.Status != client.TransactionPendingApproval || first.ExpiresAt == nil || !first.ExpiresAt.Equal(first.CreatedAt.Add(600e9)) {
		t.Fatalf("pending: %+v", first)
	}
	page, err := b.c.Transactions.List(b.ctx, client.ListTransactionsParams{Status: client.TransactionPendingApproval})
	if err != nil || page.TotalCount != 2 || page.Transactions[0].ID != second.ID {
		t.Fatalf("queue: %+v %v", page, err)
	}
	done, err := b.c.Transactions.Approve(b.ctx, first.ID)
	if err != nil || done.Status != client.TransactionCompleted || done.DecidedBy == "" || done.DecidedAt == nil || done.ExpiresAt != nil {
		t.Fatalf("approve: %+v %v", done, err)
	}
	var denied *client.PolicyDeniedError
	if _, err := b.c.Transactions.Approve(b.ctx, second.ID); !errors.As(err, &denied) || denied.ReasonCode != "daily_limit_exceeded" {
		t.Fatalf("approving past the daily limit: %v", err)
	}
	declined, err := b.c.Transactions.Decline(b.ctx, second.ID, "over budget")
	if err != nil || declined.Status != client.TransactionDeclined || declined.Reason != "over budget" || declined.DecidedBy != done.DecidedBy {
		t.Fatalf("decline: %+v %v", declined, err)
	}
	var conflict *client.ConflictError
	if _, err := b.c.Transactions.Decline(b.ctx, first.ID, "late"); !errors.As(err, &conflict) {
		t.Fatalf("declining a completed transaction: %v", err)
	}
	if _, err := b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{Approval: p.Approval, RemoveApproval: true}, nil); err == nil {
		t.Fatal("Approval with RemoveApproval accepted")
	}
	if p, err = b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{RemoveApproval: true}, nil); err != nil || p.Approval != nil {
		t.Fatalf("remove approval: %+v %v", p, err)
	}
	if tx := b.execute(a.ID, shop.ID, "150"); tx.Status != client.TransactionCompleted {
		t.Fatalf("without a rule: %s", tx.Status)
	}
}
