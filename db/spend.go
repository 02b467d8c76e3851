package db

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

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
		if flows, err = readOutflows(ctx, q, "read outflow", outflowRowsSQL, p.ID, since); err != nil {
			return nil, err
		}
	}
	if !total {
		return flows, nil
	}
	totals, err := readOutflows(ctx, q, "read outflow totals", outflowTotalsSQL, p.ID, money.MaxAmount)
	if err != nil {
		return nil, err
	}
	return withTotals(flows, totals), nil
}

// outflowSums reads the outflow from the earliest edge's hour on,
// summed in the database into one outflow per action and stretch between
// edges, dated at its earliest transaction: the hourly buckets, except the
// edges' own hours, which are summed from their rows, split at the exact
// edges (a row exactly at an edge in a stretch of its own, as rolling
// windows exclude it and calendar ones include it). No sum straddles an
// edge, so every window's sum is exact, and what is shipped is bounded by
// the number of edges and actions, whatever the history. With totals, the
// same statement also reads the running totals (dated at the zero time), so
// a policy's whole check is one round trip.
func outflowSums(ctx context.Context, q bun.IDB, agentID string, edges []time.Time, totals bool) ([]policy.Outflow, error) {
	exact := make([]time.Time, len(edges))
	for i, e := range edges {
		exact[i] = e.UTC()
	}
	slices.SortFunc(exact, time.Time.Compare)
	exact = slices.CompactFunc(exact, time.Time.Equal)
	hours := make([]time.Time, len(exact))
	for i, e := range exact {
		hours[i] = outflowHour(e)
	}
	hours = slices.CompactFunc(hours, time.Time.Equal)
	flows, err := readOutflows(ctx, q, "sum outflow", outflowSumsSQL, agentID, pgdialect.Array(hours), pgdialect.Array(exact), money.MaxAmount, totals)
	if err != nil {
		return nil, err
	}
	var sums, running []policy.Outflow
	for _, o := range flows {
		if o.At.IsZero() {
			running = append(running, o)
		} else {
			sums = append(sums, o)
		}
	}
	return withTotals(sums, running), nil
}

// readOutflows runs one of the statements below, whose rows are outflows:
// (at, action, amount, count), at NULL for a running total.
func readOutflows(ctx context.Context, q bun.IDB, what, query string, args ...any) ([]policy.Outflow, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []policy.Outflow
	for rows.Next() {
		var o policy.Outflow
		var at *time.Time
		if err := rows.Scan(&at, &o.Action, &o.Amount, &o.Count); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		if at != nil {
			o.At = *at
		}
		out = append(out, o)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// outflowSumsSQL sums agent ?0's outflow per action and stretch: the
// buckets from the first hour of ?1 on, except the hours in ?1, summed
// between those hours; the rows of the hours in ?1, summed between the exact
// edges ?2 (each edge's own instant apart). With ?4, the running totals
// too, at NULL. Sums are capped at ?3. Each edge hour's rows are one index
// range scan: OFFSET 0 keeps the planner from joining them as one scan of
// all the agent's rows, which it prefers whenever it thinks the agent has
// few.
const outflowSumsSQL = `
SELECT min(first_at), action, least(sum(amount), ?3::numeric), sum(count)::int
  FROM agent_outflow_hours
 WHERE agent_id = ?0 AND hour >= (?1::timestamptz[])[1] AND hour <> ALL(?1::timestamptz[])
 GROUP BY width_bucket(hour, ?1::timestamptz[]), action
UNION ALL
SELECT min(created_at), action, least(sum(amount), ?3::numeric), count(*)::int
  FROM unnest(?1::timestamptz[]) AS h(start), LATERAL (
       SELECT created_at, action, amount FROM transactions
        WHERE from_agent = ?0 AND ` + countedOutflow + `
          AND created_at >= h.start AND created_at < h.start + interval '1 hour'
       OFFSET 0) AS t
 GROUP BY width_bucket(created_at, ?2::timestamptz[]), created_at = ANY(?2::timestamptz[]), action
UNION ALL
SELECT NULL, action, least(total, ?3::numeric), 0 FROM agent_outflow_totals WHERE agent_id = ?0 AND ?4::bool`

// outflowRowsSQL reads agent ?0's counted rows from ?1 on, one outflow each.
const outflowRowsSQL = `
SELECT created_at, action, amount, 1 FROM transactions
 WHERE from_agent = ?0 AND ` + countedOutflow + ` AND created_at >= ?1`

// outflowTotalsSQL reads agent ?0's running totals per action, capped at ?1.
const outflowTotalsSQL = `
SELECT NULL::timestamptz, action, least(total, ?1::numeric), 0 FROM agent_outflow_totals WHERE agent_id = ?0`

// withTotals appends, per action, the running total (an outflow at the zero
// time) less what flows already hold.
func withTotals(flows, totals []policy.Outflow) []policy.Outflow {
	for _, t := range totals {
		rest := t.Amount
		for _, o := range flows {
			if o.Action == t.Action {
				rest = rest.Sub(o.Amount)
			}
		}
		flows = append(flows, policy.Outflow{Amount: rest, Action: t.Action})
	}
	return flows
}
