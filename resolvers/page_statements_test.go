package resolvers_test

import (
	"fmt"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// Each read of the dashboard's mix that answers a list runs the same
// statements for a page of 2 as for a page of 20: nothing is read per row.
func TestMixStatementsConstantInPageSize(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	_, otherKey := k.NewOrg("counterparty")
	theirs := k.RegisterAs(otherKey, map[string]any{"name": "theirs"})
	var ids []string
	for i := range 20 {
		a := k.Register(map[string]any{"name": fmt.Sprint("agent ", i), "dailyLimit": "900"})
		ids = append(ids, a.ID)
		tx := k.MustExecute(k.Key, testkit.Pay(a, theirs, "1"))
		k.Report(k.Key, theirs.ID, "late", tx.ID).Into(t, "reportAgent", new(testkit.Dispute))
	}
	reads := map[string]func(n int) (string, map[string]any){
		"agents with trust": func(n int) (string, map[string]any) {
			return fmt.Sprintf(`{ agents(limit: %d) { nodes { id name spendingLimit trust { score assessment } } totalCount pageInfo { endCursor hasNextPage } } }`, n), nil
		},
		"transactions": func(n int) (string, map[string]any) {
			return fmt.Sprintf(`{ transactions(limit: %d) { nodes { id fromAgent toAgent amount memo status createdAt } edges { cursor } totalCount pageInfo { endCursor } } }`, n), nil
		},
		"disputes": func(n int) (string, map[string]any) {
			return fmt.Sprintf(`{ disputes(limit: %d) { nodes { id agentId reason evidenceIds status } edges { cursor } totalCount pageInfo { endCursor } } }`, n), nil
		},
		"batchTrust": func(n int) (string, map[string]any) {
			return `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`, map[string]any{"ids": ids[:n]}
		},
	}
	for name, read := range reads {
		count := func(n int) int64 {
			q, vars := read(n)
			before := k.DB.Statements()
			if r := k.Query(q, vars); len(r.Errors) > 0 {
				t.Fatalf("%s of %d: %s", name, n, r.Body)
			}
			return k.DB.Statements() - before
		}
		if small, large := count(2), count(20); small != large || small == 0 {
			t.Errorf("%s: %d statements for 2 rows, %d for 20", name, small, large)
		}
	}
}
