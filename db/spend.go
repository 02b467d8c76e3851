package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

// countedOutflow selects what spend windows count: completed outflow,
// reversed later or not (served by the transactions_spend index).
const countedOutflow = "reversal_of IS NULL AND status IN ('completed', 'reversed')"

// outflowHour is the UTC hour bucket an outflow at t is summed in.
func outflowHour(t time.Time) time.Time { return t.UTC().Truncate(time.Hour) }

// explainsWithRows reports whether a refusal's reason needs the window's
// rows: when enough frees up, or when the next transaction is allowed.
func explainsWithRows(code string) bool {
	switch code {
	case policy.ReasonVelocityLimitExceeded, policy.ReasonDailyLimitExceeded, policy.ReasonWeeklyLimitExceeded,
		policy.ReasonMonthlyLimitExceeded:
		return true
	}
	return false
}

// spendHistory reads what the sender's policy counts, for policy.Evaluate.
// Bounded windows and velocity limits: with rows false, the hourly buckets
// since the earliest window's start, except the hours in which a window
// starts, which are read as rows (index range scans of at most an hour
// each), so every sum is exact and no allowed execute reads more than the
// buckets of the longest window; with rows true, every row since then (to
// explain a refusal). Total limits: one synthetic outflow per action at the
// zero time, holding what the running total has beyond the rest, so all of
// them add up to the whole history without scanning it. A bucket or total
// beyond money.MaxAmount (no Amount holds it) is read as MaxAmount, still
// more than any limit, so the policy refuses as it would with the true sum.
func spendHistory(ctx context.Context, q bun.IDB, p policy.Party, now time.Time, rows bool) ([]policy.Outflow, error) {
	since, total := p.Since(now), p.HasTotal()
	if !since.Before(now) && !total {
		return nil, nil
	}
	if !rows {
		return outflowSums(ctx, q, p.ID, p.Edges(now), total)
	}
	var flows []policy.Outflow
	if since.Before(now) {
		var err error
		if flows, err = outflowRows(ctx, q, p.ID, since); err != nil {
			return nil, err
		}
	}
	if !total {
		return flows, nil
	}
	return addTotals(ctx, q, p.ID, flows)
}

// outflowSums reads the outflow from the earliest edge's hour on,
// summed in the database into one outflow per action and stretch between
// edges, dated at its earliest transaction: the hourly buckets, except the
// edges' own hours, which are summed from their rows, split at the exact
// edges (a row exactly at an edge in a stretch of its own, as rolling
// windows exclude it and calendar ones include it). No sum straddles an
// edge, so every window's sum is exact, and what is shipped is bounded by
// the number of edges and actions, whatever the history.
//
// With totals, the same statement also reads the running totals (as
// addTotals does), so a policy's whole check is one round trip.
func outflowSums(ctx context.Context, q bun.IDB, agentID string, edges []time.Time, totals bool) ([]policy.Outflow, error) {
	exact := slices.Clone(edges)
	slices.SortFunc(exact, time.Time.Compare)
	exact = slices.CompactFunc(exact, time.Time.Equal)
	hours := make([]time.Time, len(exact))
	for i, e := range exact {
		hours[i] = outflowHour(e)
	}
	hours = slices.CompactFunc(hours, time.Time.Equal)
	var sums []struct {
		At     *time.Time   `bun:"at"` // nil: a running total
		Action string       `bun:"action"`
		Amount money.Amount `bun:"amount"`
		Count  int          `bun:"count"`
	}
	var sql string
	var args []any
	switch {
	case len(exact) > 0 && totals:
		sql, args = outflowSumsSQL+" UNION ALL "+outflowTotalsSQL, []any{agentID, hours[0], pgTimes(hours), pgTimes(exact), money.MaxAmount}
	case len(exact) > 0:
		sql, args = outflowSumsSQL, []any{agentID, hours[0], pgTimes(hours), pgTimes(exact), money.MaxAmount}
	default:
		sql, args = outflowTotalsSQL, []any{agentID, nil, nil, nil, money.MaxAmount}
	}
	if err := q.NewRaw(sql, args...).Scan(ctx, &sums); err != nil {
		return nil, fmt.Errorf("sum outflow: %w", err)
	}
	var flows []policy.Outflow
	var running []runningTotal
	for _, s := range sums {
		if s.At == nil {
			running = append(running, runningTotal{Action: s.Action, Total: s.Amount})
			continue
		}
		flows = append(flows, policy.Outflow{Amount: s.Amount, At: *s.At, Action: s.Action, Count: s.Count})
	}
	return withTotals(flows, running), nil
}

// outflowTotalsSQL reads an agent's running totals per action (at NULL),
// in outflowSumsSQL's columns and parameters.
const outflowTotalsSQL = `
SELECT NULL::timestamptz, action, least(total, ?4::numeric), 0 FROM agent_outflow_totals WHERE agent_id = ?0`

// outflowSumsSQL sums an agent's outflow since hour ?1 per action and
// stretch: buckets of the hours not in ?2 between the hours of ?2, rows of
// the hours in ?2 between the exact edges ?3 (each edge's own instant apart).
const outflowSumsSQL = `
SELECT min(hour) AS at, action, least(sum(amount), ?4::numeric) AS amount, sum(count)::int AS count
  FROM agent_outflow_hours
 WHERE agent_id = ?0 AND hour >= ?1 AND hour <> ALL(?2::timestamptz[])
 GROUP BY width_bucket(hour, ?2::timestamptz[]), action
UNION ALL
SELECT min(created_at), action, least(sum(amount), ?4::numeric), count(*)::int
  FROM transactions, unnest(?2::timestamptz[]) AS h(start)
 WHERE from_agent = ?0 AND ` + countedOutflow + `
   AND created_at >= h.start AND created_at < h.start + interval '1 hour'
 GROUP BY width_bucket(created_at, ?3::timestamptz[]), created_at = ANY(?3::timestamptz[]), action`

// outflowRows reads the sender's counted rows from since on.
func outflowRows(ctx context.Context, q bun.IDB, agentID string, since time.Time) ([]policy.Outflow, error) {
	var rows []struct {
		Amount    money.Amount `bun:"amount"`
		Action    string       `bun:"action"`
		CreatedAt time.Time    `bun:"created_at"`
	}
	err := q.NewSelect().Table("transactions").Column("amount", "action", "created_at").
		Where("from_agent = ?", agentID).Where(countedOutflow).Where("created_at >= ?", since).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("read outflow: %w", err)
	}
	out := make([]policy.Outflow, len(rows))
	for i, r := range rows {
		out[i] = policy.Outflow{Amount: r.Amount, Action: r.Action, At: r.CreatedAt}
	}
	return out, nil
}

// runningTotal is an agent's running outflow total for one action.
type runningTotal struct {
	Action string       `bun:"action"`
	Total  money.Amount `bun:"total"`
}

// addTotals appends, per action, the running total less what flows already hold.
func addTotals(ctx context.Context, q bun.IDB, agentID string, flows []policy.Outflow) ([]policy.Outflow, error) {
	var totals []runningTotal
	if err := q.NewSelect().Table("agent_outflow_totals").Column("action").ColumnExpr("least(total, ?::numeric) AS total", money.MaxAmount).Where("agent_id = ?", agentID).Scan(ctx, &totals); err != nil {
		return nil, fmt.Errorf("read outflow totals: %w", err)
	}
	return withTotals(flows, totals), nil
}

// withTotals appends, per action, the running total less what flows already hold.
func withTotals(flows []policy.Outflow, totals []runningTotal) []policy.Outflow {
	for _, t := range totals {
		rest := t.Total
		for _, o := range flows {
			if o.Action == t.Action {
				rest = rest.Sub(o.Amount)
			}
		}
		flows = append(flows, policy.Outflow{Amount: rest, Action: t.Action})
	}
	return flows
}

// pgTimes formats times as a Postgres array literal.
func pgTimes(ts []time.Time) string {
	b := []byte{'{'}
	for i, t := range ts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = t.UTC().AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	return string(append(b, '}'))
}
