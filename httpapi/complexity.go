package httpapi

import (
	"time"

	"github.com/agenttrust/service/dashboard"
	"github.com/agenttrust/service/graph"
	"github.com/agenttrust/service/policy"
	"github.com/agenttrust/service/transaction"
)

// complexity is gqlgen's complexity function of each field whose work is
// more than reading a column of a row already loaded: given the cost of the
// field's selection (child) and its arguments, it returns the field's cost.
// Every other field costs 1 plus its selection. operationLimits (cost.go)
// adds the fields of an operation up.
func complexity() graph.ComplexityRoot {
	var c graph.ComplexityRoot
	// An audit chain costs 1 plus its limit times its entry.
	c.Agent.AuditChain = func(child int, _, limit *int) int { return list(limit, child) }
	c.Query.AgentAuditChain = func(child int, _ string, _, limit *int) int { return list(limit, child) }
	// An export reads and renders up to 50,000 rows: most of one operation's budget.
	c.Query.ExportTransactions = func(child int, _ transaction.Format, _, _ *time.Time) int {
		return work(40000, 1, child)
	}
	// Counting is O(matching rows).
	counting := func(child int) int { return work(5000, 1, child) }
	c.AgentConnection.TotalCount = counting
	c.TransactionConnection.TotalCount = counting
	c.DisputeConnection.TotalCount = counting
	c.MandateConnection.TotalCount = counting
	// Verification re-hashes the chain entries since its last checkpoint.
	c.Query.VerifyAgent = func(child int, _ string) int { return work(1000, 1, child) }
	// A batch reads one row per id asked, and nodes one object per id.
	perID := func(child int, ids []string) int { return work(1, int64(max(len(ids), 1)), child) }
	c.Query.BatchTrust = perID
	c.Query.Nodes = perID
	// History keeps up to 1,000 snapshots per agent.
	c.Query.TrustHistory = func(child int, _ string, _ *time.Time) int { return work(1, 1000, child) }
	// Usage reads the agent and its policy's sums: two statements per agent.
	c.Agent.PolicyUsage = func(child int) int { return work(100, 1, child) }
	// A series answers up to 2,000 buckets.
	c.Query.SpendSeries = func(child int, _, _ *string, _ dashboard.Bucket, _, _ time.Time, _ *string) int {
		return work(2000, 1, child)
	}
	// The overview reads every agent's counters, like a count.
	c.Query.Overview = func(child int) int { return work(5000, 1, child) }
	// A simulation lists up to policy.MaxSimulatedOutcomes transactions (the
	// rows it reads are charged as they are read).
	c.PolicySimulation.Outcomes = func(child int) int { return work(1, policy.MaxSimulatedOutcomes, child) }
	return c
}

// work is the cost of a field whose own work is base and whose selection
// (of cost child) is answered per times.
func work(base, per int64, child int) int {
	return int(satAdd(base, satMul(per, int64(child))))
}

// list is the cost of a list of limit elements of cost child each; a null
// limit counts one element.
func list(limit *int, child int) int {
	if limit == nil {
		return work(1, 1, child)
	}
	return work(1, pageSize(int64(*limit)), child)
}

// pageSize is how many elements a page or list of the size asked for is
// charged: at least 1, at most 1,000,000.
func pageSize(n int64) int64 { return min(max(n, 1), 1_000_000) }
