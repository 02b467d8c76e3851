package db_test

import (
	"context"
	"testing"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/transaction"
	"github.com/agenttrust/service/trust"
)

// A page of transactions or disputes fills the fields asked for and leaves
// the others zero (their columns were not read); nil asks for all of them.
func TestPagesFillSelectedFields(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx := context.Background()
	p := dbtest.Admin(t, d, "acme")
	agents, txs, trustSvc := db.NewAgentService(d), db.NewTransactionService(d), db.NewTrustService(d)
	var ids []string
	for _, name := range []string{"buyer", "seller"} {
		a, err := agents.Register(ctx, p, agent.RegisterInput{Name: name, AuthorizedActions: []string{"purchase"},
			SpendingLimit: money.MustParse("100"), Currency: "USD", Environment: agent.Sandbox})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	memo := "tickets"
	tx, err := txs.Execute(ctx, p, transaction.ExecuteInput{FromAgent: ids[0], ToAgent: ids[1], Action: "purchase",
		Amount: money.MustParse("5"), Currency: "USD", Memo: &memo})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := trustSvc.Report(ctx, p, trust.ReportInput{AgentID: ids[1], Reason: "late", EvidenceIDs: []string{tx.ID}}); err != nil {
		t.Fatal(err)
	}
	window := paging.Window{Limit: 10}

	for _, fields := range [][]string{{"amount"}, nil} {
		page, err := txs.List(ctx, p, transaction.ListFilter{Window: window, Fields: fields})
		if err != nil || len(page.Transactions) != 1 {
			t.Fatalf("transactions %v: %v, %+v", fields, err, page)
		}
		got := page.Transactions[0]
		all := fields == nil
		if got.ID != tx.ID || got.CreatedAt.IsZero() || got.Amount.String() != "5" ||
			(got.Memo != nil) != all || (got.FromAgent != "") != all || (got.FromOrg != "") != all || (got.Status != "") != all {
			t.Fatalf("transactions %v: %+v", fields, *got)
		}
	}
	for _, fields := range [][]string{{"reason"}, nil} {
		page, err := trustSvc.Disputes(ctx, p, trust.DisputeFilter{Window: window, Fields: fields})
		if err != nil || len(page.Disputes) != 1 {
			t.Fatalf("disputes %v: %v, %+v", fields, err, page)
		}
		got := page.Disputes[0]
		all := fields == nil
		if got.ID == "" || got.Reason != "late" || (got.AgentID != "") != all || (got.EvidenceIDs != nil) != all ||
			(got.AgentOrg != "") != all || got.CreatedAt.IsZero() == all {
			t.Fatalf("disputes %v: %+v", fields, *got)
		}
	}
}
