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
	var flows []policy.Outflow
	if since := p.Since(now); since.Before(now) {
		var err error
		if rows {
			flows, err = outflowRows(ctx, q, p.ID, []time.Time{since}, time.Time{})
		} else {
			flows, err = outflowBuckets(ctx, q, p.ID, p.Edges(now))
		}
		if err != nil {
			return nil, err
		}
	}
	if !p.HasTotal() {
		return flows, nil
	}
	return addTotals(ctx, q, p.ID, flows)
}

// outflowBuckets reads the buckets from the earliest edge's hour on, the
// edges' own hours as rows.
func outflowBuckets(ctx context.Context, q bun.IDB, agentID string, edges []time.Time) ([]policy.Outflow, error) {
	hours := make([]time.Time, len(edges))
	for i, e := range edges {
		hours[i] = outflowHour(e)
	}
	slices.SortFunc(hours, time.Time.Compare)
	hours = slices.CompactFunc(hours, time.Time.Equal)
	flows, err := outflowRows(ctx, q, agentID, hours, hours[0].Add(time.Hour))
	if err != nil {
		return nil, err
	}
	var buckets []struct {
		Hour   time.Time    `bun:"hour"`
		Action string       `bun:"action"`
		Amount money.Amount `bun:"amount"`
		Count  int          `bun:"count"`
	}
	err = q.NewSelect().Table("agent_outflow_hours").Column("hour", "action", "count").ColumnExpr("least(amount, ?::numeric) AS amount", money.MaxAmount).
		Where("agent_id = ?", agentID).Where("hour >= ?", hours[0]).Where("hour <> ALL(?::timestamptz[])", pgTimes(hours)).
		Scan(ctx, &buckets)
	if err != nil {
		return nil, fmt.Errorf("read outflow buckets: %w", err)
	}
	for _, b := range buckets {
		flows = append(flows, policy.Outflow{Amount: b.Amount, At: b.Hour, Action: b.Action, Count: b.Count})
	}
	return flows, nil
}

// outflowRows reads the sender's counted rows in each hour starting at
// hours (span: an hour each) or, with a zero span end, from hours[0] on.
func outflowRows(ctx context.Context, q bun.IDB, agentID string, hours []time.Time, spanEnd time.Time) ([]policy.Outflow, error) {
	var rows []struct {
		Amount    money.Amount `bun:"amount"`
		Action    string       `bun:"action"`
		CreatedAt time.Time    `bun:"created_at"`
	}
	sel := q.NewSelect().Table("transactions").Column("amount", "action", "created_at").
		Where("from_agent = ?", agentID).Where(countedOutflow)
	if spanEnd.IsZero() {
		sel = sel.Where("created_at >= ?", hours[0])
	} else {
		sel = sel.WhereGroup(" AND ", func(w *bun.SelectQuery) *bun.SelectQuery {
			for _, h := range hours {
				w = w.WhereOr("(created_at >= ? AND created_at < ?)", h, h.Add(time.Hour))
			}
			return w
		})
	}
	if err := sel.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("read outflow: %w", err)
	}
	out := make([]policy.Outflow, len(rows))
	for i, r := range rows {
		out[i] = policy.Outflow{Amount: r.Amount, Action: r.Action, At: r.CreatedAt}
	}
	return out, nil
}

// addTotals appends, per action, the running total less what flows already hold.
func addTotals(ctx context.Context, q bun.IDB, agentID string, flows []policy.Outflow) ([]policy.Outflow, error) {
	var totals []struct {
		Action string       `bun:"action"`
		Total  money.Amount `bun:"total"`
	}
	if err := q.NewSelect().Table("agent_outflow_totals").Column("action").ColumnExpr("least(total, ?::numeric) AS total", money.MaxAmount).Where("agent_id = ?", agentID).Scan(ctx, &totals); err != nil {
		return nil, fmt.Errorf("read outflow totals: %w", err)
	}
	for _, t := range totals {
		rest := t.Total
		for _, o := range flows {
			if o.Action == t.Action {
				rest = rest.Sub(o.Amount)
			}
		}
		flows = append(flows, policy.Outflow{Amount: rest, Action: t.Action})
	}
	return flows, nil
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
