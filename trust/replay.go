package trust

import (
	"slices"
	"time"
)

// History is an agent's raw records, as `trust rebuild` reads them.
type History struct {
	Transactions []TransactionRecord
	Refusals     []RefusalRecord
	Disputes     []DisputeRecord
	Suspended    bool
}

// TransactionRecord is a completed transaction the agent took part in
// (reversal records excluded).
type TransactionRecord struct {
	At              time.Time
	CounterpartyOrg string
	SameOrg         bool
	Sender          bool
	ReversedAt      time.Time // zero unless reversed
}

// RefusalRecord is a refused execute by the agent.
type RefusalRecord struct {
	At         time.Time
	ReasonCode string
}

// DisputeRecord is a dispute filed against the agent.
type DisputeRecord struct {
	At          time.Time
	ReporterOrg string
	SameOrg     bool
	WithdrawnAt time.Time // zero unless withdrawn
}

// Replay recomputes an agent's counters from its raw records by applying
// every action in time order with [Apply], deriving the facts an action
// needs (transactions per counterparty organization, each reporter's open
// disputes) as the store does, and decays the result to now.
func Replay(h History, now time.Time) Counters {
	type step struct {
		at    time.Time
		order int // breaks ties: completions before reversals, filings before withdrawals
		apply func(Counters) Counters
	}
	var steps []step
	withOrg := map[string]int64{}
	for _, t := range h.Transactions {
		steps = append(steps, step{t.At, 0, func(c Counters) Counters {
			a := Action{Kind: Executed, At: t.At, SameOrg: t.SameOrg, WithOrgBefore: withOrg[t.CounterpartyOrg]}
			if !t.SameOrg {
				withOrg[t.CounterpartyOrg]++
			}
			return Apply(c, a)
		}})
		if !t.ReversedAt.IsZero() {
			steps = append(steps, step{t.ReversedAt, 1, func(c Counters) Counters {
				a := Action{Kind: Reversed, At: t.ReversedAt, SameOrg: t.SameOrg, Sender: t.Sender, SentAt: t.At,
					WithOrgBefore: withOrg[t.CounterpartyOrg]}
				if !t.SameOrg {
					withOrg[t.CounterpartyOrg]--
				}
				return Apply(c, a)
			}})
		}
	}
	for _, r := range h.Refusals {
		steps = append(steps, step{r.At, 0, func(c Counters) Counters {
			return Apply(c, Action{Kind: Refused, At: r.At, ReasonCode: r.ReasonCode})
		}})
	}
	open := map[string][]time.Time{} // reporter organization → creation times of its open disputes
	first := func(org string) time.Time {
		if len(open[org]) == 0 {
			return time.Time{}
		}
		return slices.MinFunc(open[org], func(a, b time.Time) int { return a.Compare(b) })
	}
	for _, d := range h.Disputes {
		steps = append(steps, step{d.At, 0, func(c Counters) Counters {
			before := first(d.ReporterOrg)
			open[d.ReporterOrg] = append(open[d.ReporterOrg], d.At)
			return Apply(c, Action{Kind: DisputeFiled, At: d.At, SameOrg: d.SameOrg, OrgFirstBefore: before, OrgFirstAfter: first(d.ReporterOrg)})
		}})
		if !d.WithdrawnAt.IsZero() {
			steps = append(steps, step{d.WithdrawnAt, 1, func(c Counters) Counters {
				before := first(d.ReporterOrg)
				times := open[d.ReporterOrg]
				if i := slices.IndexFunc(times, d.At.Equal); i >= 0 {
					open[d.ReporterOrg] = slices.Delete(times, i, i+1)
				}
				return Apply(c, Action{Kind: DisputeWithdrawn, At: d.WithdrawnAt, SameOrg: d.SameOrg, OrgFirstBefore: before, OrgFirstAfter: first(d.ReporterOrg)})
			}})
		}
	}
	slices.SortStableFunc(steps, func(a, b step) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.order - b.order
	})
	var c Counters
	for _, s := range steps {
		c = s.apply(c)
	}
	c = c.DecayTo(now)
	c.Suspended = h.Suspended
	return c
}
