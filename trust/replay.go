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
	r := &replay{withOrg: map[string]int64{}, open: map[string][]time.Time{}}
	for _, t := range h.Transactions {
		r.transaction(t)
	}
	for _, rf := range h.Refusals {
		r.add(rf.At, 0, func(c Counters) Counters {
			return Apply(c, Action{Kind: Refused, At: rf.At, ReasonCode: rf.ReasonCode})
		})
	}
	for _, d := range h.Disputes {
		r.dispute(d)
	}
	slices.SortStableFunc(r.steps, func(a, b step) int {
		if c := a.at.Compare(b.at); c != 0 {
			return c
		}
		return a.order - b.order
	})
	var c Counters
	for _, s := range r.steps {
		c = s.apply(c)
	}
	c = c.DecayTo(now)
	c.Suspended = h.Suspended
	return c
}

// step is one action of an agent's history, applied to its counters.
type step struct {
	at    time.Time
	order int // breaks ties: completions before reversals, filings before withdrawals
	apply func(Counters) Counters
}

// replay collects the steps of a history, and what applying them in order
// derives beside the counters: the agent's transactions with each other
// organization, and each reporter organization's open disputes.
type replay struct {
	steps   []step
	withOrg map[string]int64       // counterparty organization → transactions with it
	open    map[string][]time.Time // reporter organization → creation times of its open disputes
}

func (r *replay) add(at time.Time, order int, apply func(Counters) Counters) {
	r.steps = append(r.steps, step{at, order, apply})
}

// transaction adds a completed transaction's step, and its reversal's.
func (r *replay) transaction(t TransactionRecord) {
	r.add(t.At, 0, func(c Counters) Counters {
		a := Action{Kind: Executed, At: t.At, SameOrg: t.SameOrg, WithOrgBefore: r.withOrg[t.CounterpartyOrg]}
		if !t.SameOrg {
			r.withOrg[t.CounterpartyOrg]++
		}
		return Apply(c, a)
	})
	if t.ReversedAt.IsZero() {
		return
	}
	r.add(t.ReversedAt, 1, func(c Counters) Counters {
		a := Action{Kind: Reversed, At: t.ReversedAt, SameOrg: t.SameOrg, Sender: t.Sender, SentAt: t.At,
			WithOrgBefore: r.withOrg[t.CounterpartyOrg]}
		if !t.SameOrg {
			r.withOrg[t.CounterpartyOrg]--
		}
		return Apply(c, a)
	})
}

// dispute adds a dispute's filing step, and its withdrawal's.
func (r *replay) dispute(d DisputeRecord) {
	r.add(d.At, 0, func(c Counters) Counters {
		before := r.first(d.ReporterOrg)
		r.open[d.ReporterOrg] = append(r.open[d.ReporterOrg], d.At)
		return Apply(c, Action{Kind: DisputeFiled, At: d.At, SameOrg: d.SameOrg, OrgFirstBefore: before, OrgFirstAfter: r.first(d.ReporterOrg)})
	})
	if d.WithdrawnAt.IsZero() {
		return
	}
	r.add(d.WithdrawnAt, 1, func(c Counters) Counters {
		before := r.first(d.ReporterOrg)
		times := r.open[d.ReporterOrg]
		if i := slices.IndexFunc(times, d.At.Equal); i >= 0 {
			r.open[d.ReporterOrg] = slices.Delete(times, i, i+1)
		}
		return Apply(c, Action{Kind: DisputeWithdrawn, At: d.WithdrawnAt, SameOrg: d.SameOrg, OrgFirstBefore: before, OrgFirstAfter: r.first(d.ReporterOrg)})
	})
}

// first is the creation time of org's oldest open dispute; zero when none.
func (r *replay) first(org string) time.Time {
	if len(r.open[org]) == 0 {
		return time.Time{}
	}
	return slices.MinFunc(r.open[org], func(a, b time.Time) int { return a.Compare(b) })
}
