package client_test

import (
	"fmt"
	"iter"
	"slices"
	"testing"

	"github.com/agenttrust/service/client"
)

// collect gathers an iteration's ids, failing on an error.
func collect[T any](t *testing.T, seq iter.Seq2[T, error], id func(T) string) []string {
	t.Helper()
	var out []string
	for v, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id(v))
	}
	return out
}

// The client pages every GraphQL list both ways: a backward walk returns
// the forward walk's items in reverse, and a page before a cursor is the
// items just before it.
func TestListsPageBothWays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from, to := b.register(b.c, "payer", "100"), b.register(b.c, "payee", "100")
	for i := range 7 {
		tx := b.execute(from.ID, to.ID, "1")
		if _, err := b.c.Trust.Report(b.ctx, client.ReportInput{AgentID: to.ID, Reason: fmt.Sprintf("r%d", i), EvidenceIDs: []string{tx.ID}}); err != nil {
			t.Fatal(err)
		}
		b.register(b.c, fmt.Sprintf("a%d", i), "10")
	}
	agentID := func(a client.Agent) string { return a.ID }
	txID := func(tx client.Transaction) string { return tx.ID }
	disputeID := func(d client.Dispute) string { return d.ID }
	for _, tc := range []struct {
		name              string
		forward, backward []string
	}{
		{"agents", collect(t, b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{Limit: 2}), agentID),
			collect(t, b.c.Agents.ListAllBackward(b.ctx, client.ListAgentsParams{Last: 3}), agentID)},
		{"agents, default size", collect(t, b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{}), agentID),
			collect(t, b.c.Agents.ListAllBackward(b.ctx, client.ListAgentsParams{}), agentID)},
		{"transactions", collect(t, b.c.Transactions.ListAll(b.ctx, client.ListTransactionsParams{Limit: 3}), txID),
			collect(t, b.c.Transactions.ListAllBackward(b.ctx, client.ListTransactionsParams{Last: 2}), txID)},
		{"disputes", collect(t, b.c.Trust.ListAllDisputes(b.ctx, client.ListDisputesParams{Limit: 4}), disputeID),
			collect(t, b.c.Trust.ListAllDisputesBackward(b.ctx, client.ListDisputesParams{Last: 3}), disputeID)},
	} {
		slices.Reverse(tc.backward)
		if len(tc.forward) < 7 || !slices.Equal(tc.forward, tc.backward) {
			t.Errorf("%s: forward %v, backward reversed %v", tc.name, tc.forward, tc.backward)
		}
	}

	all := collect(t, b.c.Agents.ListAll(b.ctx, client.ListAgentsParams{}), agentID)
	page, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Limit: 3, After: ""})
	if err != nil || page.PageInfo.StartCursor == "" || page.PageInfo.HasPreviousPage {
		t.Fatalf("first page: %+v %v", page, err)
	}
	next, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Limit: 3, After: page.PageInfo.EndCursor})
	if err != nil || !next.PageInfo.HasPreviousPage {
		t.Fatalf("second page: %+v %v", next, err)
	}
	prev, err := b.c.Agents.List(b.ctx, client.ListAgentsParams{Last: 2, Before: next.PageInfo.StartCursor})
	if err != nil || len(prev.Agents) != 2 || prev.Agents[0].ID != all[1] || prev.Agents[1].ID != all[2] || !prev.PageInfo.HasPreviousPage || !prev.PageInfo.HasNextPage {
		t.Fatalf("page before the second: %+v %v, want %v", prev, err, all[1:3])
	}
}
