package policy

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/money"
)

// MaxSimulatedOutcomes is how many refused or held transactions a
// simulation lists.
const MaxSimulatedOutcomes = 100

// Past is one completed transaction of the sender, as a replay judges it:
// the receiver as it is now but with the score it had then, and the
// sender's score then.
type Past struct {
	At       time.Time
	Action   string
	Amount   money.Amount
	Currency money.Currency
	Receiver Party
	// SenderScore is the sender's trust score when the transaction was made
	// (nil: unknown) and SenderAssessment its assessment.
	SenderScore      *int
	SenderAssessment string
	// MandateID is the mandate the transaction was made under; nil: none.
	MandateID *string
}

// Replay is what Simulate replays.
type Replay struct {
	// Sender is the agent with the policy to simulate; its Score and Status
	// are replaced for every transaction.
	Sender Party
	// History is the completed transactions to replay, oldest first.
	History []Past
	// Before is the sender's real outflow before the first transaction that
	// the policy's windows can count from then on: rows dated from
	// Sender.Since(History[0].At) on, and per action, dated at the zero
	// time, what its total holds beyond them (as spendHistory gives it).
	Before []Outflow
	// Mandates are the mandates History names, by id, with Spent and Uses as
	// they were when the period began; a mandate absent here is not found.
	Mandates map[string]*mandate.Mandate
	// FinalScore is the sender's score at the end of the period: the trust
	// tier of a limit the replay never used is judged at it.
	FinalScore *int
}

// Outcome is the decision on one replayed transaction, History[Index].
type Outcome struct {
	Index    int
	Decision Decision
}

// ReasonCount is how many replayed transactions one reason code refused.
type ReasonCount struct {
	ReasonCode string
	Count      int
}

// LimitPeak is the most of one spend limit a replay used.
type LimitPeak struct {
	Window  LimitWindow
	Mode    WindowMode
	Actions []string
	// Limit is the limit after the trust tier that applied at the peak (at
	// the end of the period when the replay allowed nothing it counts).
	Limit money.Amount
	// Peak is the window's use just after the allowed transaction that
	// used it most; zero when none counted.
	Peak money.Amount
	// At is when the peak was reached; nil when Peak is zero.
	At *time.Time
}

// Simulation is what a policy would have decided on a history.
type Simulation struct {
	Replayed, Allowed, Refused, HeldForApproval int
	// RefusedByCode counts refusals by code, largest count first, then by code.
	RefusedByCode []ReasonCount
	// Outcomes are the first MaxSimulatedOutcomes refused or held, oldest first.
	Outcomes []Outcome
	// Peaks has one entry per limit of spendLimits, in its order (the rolling
	// day entry dailyLimit stands for first when the policy has one).
	Peaks []LimitPeak
}

// Simulate decides every transaction of r.History, oldest first, with
// Evaluate, as an execute at that moment would have: the sender with its
// score then, the receiver with its score then, and as outflow r.Before and
// the transactions the replay allowed so far (one refused or held for
// approval counts toward no later window, velocity limit or mandate).
// Both parties are judged active: each transaction completed, so both were.
// The outflow is summed between the windows' edges, as the store sums it;
// a listed refusal whose reason says when enough frees up (velocity,
// rolling windows) is decided again with that window's rows, as the store
// reads them to explain a refusal, so every listed reason is an execute's
// to the word.
func Simulate(r Replay) Simulation {
	s := newReplayState(r)
	var out Simulation
	refused := map[string]int{}
	for i, p := range r.History {
		in := s.input(p)
		in.Outflow = s.sums(p.At, time.Time{})
		d := Evaluate(in)
		if (!d.Allowed || d.RequiresApproval) && len(out.Outcomes) < MaxSimulatedOutcomes {
			if from, ok := s.explainedFrom(d, p.At); ok {
				in.Outflow = s.sums(p.At, from)
				d = Evaluate(in)
			}
			out.Outcomes = append(out.Outcomes, Outcome{Index: i, Decision: d})
		}
		switch {
		case !d.Allowed:
			out.Refused++
			refused[d.ReasonCode]++
		case d.RequiresApproval:
			out.HeldForApproval++
		default:
			out.Allowed++
			s.allow(p)
		}
	}
	out.Replayed = len(r.History)
	for code, n := range refused {
		out.RefusedByCode = append(out.RefusedByCode, ReasonCount{ReasonCode: code, Count: n})
	}
	slices.SortFunc(out.RefusedByCode, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.ReasonCode, b.ReasonCode))
	})
	out.Peaks = s.finalPeaks(r.FinalScore)
	return out
}

// edges are Party.Edges(now) of the sender, sorted and without repeats,
// in a buffer reused by the next call.
func (s *replayState) edges(now time.Time) []time.Time {
	edges := s.edgeBuf[:0]
	for _, l := range s.limits {
		if l.Window != WindowTotal {
			edges = append(edges, l.SpanAt(now, s.loc).From)
		}
	}
	for _, v := range s.r.Sender.Policy.VelocityLimits {
		edges = append(edges, now.Add(-time.Duration(v.WindowSeconds)*time.Second))
	}
	slices.SortFunc(edges, time.Time.Compare)
	edges = slices.CompactFunc(edges, time.Time.Equal)
	s.edgeBuf = edges
	return edges
}

// explainedFrom is where the rows a refusal's reason is written from
// begin: a velocity refusal says when the next transaction fits, a rolling
// window's when enough frees up, both from the rows in their windows; the
// earliest window start of the refusing kind, and true. Every other
// decision reads the same from the sums, and false.
func (s *replayState) explainedFrom(d Decision, now time.Time) (time.Time, bool) {
	from, found := now, false
	if d.ReasonCode == ReasonVelocityLimitExceeded {
		for _, v := range s.r.Sender.Policy.VelocityLimits {
			from, found = earlier(from, now.Add(-time.Duration(v.WindowSeconds)*time.Second)), true
		}
		return from, found
	}
	for _, l := range s.limits {
		if !d.Allowed && l.Mode == ModeRolling && l.Window != WindowTotal && windowCode(l.Window) == d.ReasonCode {
			from, found = earlier(from, l.SpanAt(now, time.UTC).From), true
		}
	}
	return from, found
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// replayState is the outflow a replay has allowed so far, per action, with
// running sums for exact window sums in logarithmic time.
type replayState struct {
	r       Replay
	flows   map[string]*actionFlows
	actions []string     // the keys of flows, in first-seen order, so sums come out in a stable order
	limits  []SpendLimit // the sender's spend limits in spendLimits order
	peaks   []peak
	spent   map[string]*mandate.Mandate // each mandate with the replay's spending
	total   bool                        // whether the policy has a total limit
	loc     *time.Location              // the policy's timezone
	out     []Outflow                   // sums' result, reused
	cuts    []int                       // sums' boundaries, reused
	edgeBuf []time.Time                 // edges' result, reused
}

// peak is the most of one limit the replay used, when, and the sender's
// score then.
type peak struct {
	used  money.Amount
	at    *time.Time
	score *int
}

// actionFlows are one action's counted outflows, oldest first: base is
// what the total holds before them, sums[k] the sum of the first k.
type actionFlows struct {
	base money.Amount
	at   []time.Time
	amt  []money.Amount
	sums []money.Amount
}

func newReplayState(r Replay) *replayState {
	s := &replayState{r: r, flows: map[string]*actionFlows{}, total: r.Sender.HasTotal(), spent: map[string]*mandate.Mandate{}}
	before := slices.Clone(r.Before)
	slices.SortStableFunc(before, func(a, b Outflow) int { return a.At.Compare(b.At) })
	for _, o := range before {
		if o.At.IsZero() {
			f := s.action(o.Action)
			f.base = f.base.Add(o.Amount)
			continue
		}
		s.add(o.Action, o.At, o.Amount)
	}
	for id, m := range r.Mandates {
		c := *m
		s.spent[id] = &c
	}
	daily := r.Sender.DailyLimit != nil && !slices.ContainsFunc(r.Sender.Policy.SpendLimits, SpendLimit.IsDaily)
	if daily {
		s.limits = append(s.limits, SpendLimit{Amount: *r.Sender.DailyLimit, Window: WindowDay, Mode: ModeRolling})
	}
	s.limits = append(s.limits, r.Sender.Policy.SpendLimits...)
	s.peaks = make([]peak, len(s.limits))
	s.loc = r.Sender.Policy.Location()
	return s
}

func (s *replayState) action(a string) *actionFlows {
	f := s.flows[a]
	if f == nil {
		f = &actionFlows{sums: []money.Amount{{}}}
		s.flows[a] = f
		s.actions = append(s.actions, a)
	}
	return f
}

// add appends an outflow no older than the last one of its action.
func (s *replayState) add(action string, at time.Time, amount money.Amount) {
	f := s.action(action)
	f.at = append(f.at, at)
	f.amt = append(f.amt, amount)
	f.sums = append(f.sums, f.sums[len(f.sums)-1].Add(amount))
}

// input is Evaluate's input for p, without its outflow.
func (s *replayState) input(p Past) Input {
	sender := s.r.Sender
	sender.Score, sender.Status = p.SenderScore, StatusActive
	receiver := p.Receiver
	receiver.Status = StatusActive
	in := Input{Sender: sender, Receiver: &receiver, Action: p.Action, Amount: p.Amount, Currency: p.Currency,
		Now: p.At, SenderAssessment: p.SenderAssessment}
	if p.MandateID != nil {
		in.Mandate = &MandateRef{ID: *p.MandateID}
		if m := s.spent[*p.MandateID]; m != nil {
			at := *m
			if at.RevokedAt != nil && at.RevokedAt.After(p.At) {
				at.RevokedAt, at.RevokeReason = nil, nil // revoked only later
			}
			in.Mandate.Mandate = &at
		}
	}
	return in
}

// allow counts an allowed transaction: toward later windows, its mandate,
// and the peaks of the limits that count it.
func (s *replayState) allow(p Past) {
	s.add(p.Action, p.At, p.Amount)
	if p.MandateID != nil {
		if m := s.spent[*p.MandateID]; m != nil {
			m.Spent, m.Uses = m.Spent.Add(p.Amount), m.Uses+1
		}
	}
	for i, l := range s.limits {
		if !Counts(l.Actions, p.Action) {
			continue
		}
		used := s.used(l, l.SpanAt(p.At, s.loc))
		if pk := &s.peaks[i]; pk.at == nil || used.Cmp(pk.used) > 0 {
			at := p.At
			*pk = peak{used: used, at: &at, score: p.SenderScore}
		}
	}
}

// used sums what l counts in span.
func (s *replayState) used(l SpendLimit, span Span) money.Amount {
	var sum money.Amount
	for _, a := range s.actions {
		if !Counts(l.Actions, a) {
			continue
		}
		f := s.flows[a]
		if l.Window == WindowTotal {
			sum = sum.Add(f.base).Add(f.sums[len(f.at)])
			continue
		}
		sum = sum.Add(f.sums[len(f.at)].Sub(f.sums[f.from(span.From, span.Inclusive)]))
	}
	return sum
}

// scaled is l's amount after the trust tier that applies at score.
func (s *replayState) scaled(l SpendLimit, score *int) money.Amount {
	pct, _ := tierFor(s.r.Sender.Policy.TrustTiers, score)
	return l.Amount.Percent(int64(pct), max(s.r.Sender.Currency.MinorUnits(), 0))
}

// finalPeaks completes the peaks of limits nothing was counted toward.
func (s *replayState) finalPeaks(final *int) []LimitPeak {
	out := make([]LimitPeak, len(s.limits))
	for i, l := range s.limits {
		p := s.peaks[i]
		if p.at == nil {
			p.score = final
		}
		out[i] = LimitPeak{Window: l.Window, Mode: l.Mode, Actions: l.Actions, Limit: s.scaled(l, p.score), Peak: p.used, At: p.at}
	}
	return out
}

// from is the index of the first outflow at or after t (inclusive) or
// after t.
func (f *actionFlows) from(t time.Time, inclusive bool) int {
	return sort.Search(len(f.at), func(i int) bool {
		if inclusive {
			return !f.at[i].Before(t)
		}
		return f.at[i].After(t)
	})
}

// sums is the outflow at now summed per action between the edges of the
// sender's windows (Party.Edges): the outflows exactly at an edge apart,
// each sum dated at its oldest outflow, and with a total limit what lies
// before the first edge at the zero time. No sum straddles an edge, so
// Evaluate decides on them as on the rows. With rows not zero (an edge),
// the outflows from rows on come one row each, as the store reads them to
// explain a refusal. The result is valid until the next call.
func (s *replayState) sums(now, rows time.Time) []Outflow {
	edges := s.edges(now)
	out := s.out[:0]
	for _, a := range s.actions {
		f := s.flows[a]
		cuts := s.cuts[:0]
		for _, e := range edges {
			cuts = append(cuts, f.from(e, true), f.from(e, false))
		}
		cuts = append(cuts, len(f.at))
		s.cuts = cuts
		start, single := len(f.at), len(f.at)
		if len(edges) > 0 {
			start = cuts[0]
		}
		if !rows.IsZero() {
			single = f.from(rows, true)
		}
		if s.total {
			out = append(out, Outflow{Amount: f.base.Add(f.sums[start]), Action: a})
		}
		for _, end := range cuts[1:] {
			end = min(end, single)
			if end > start {
				out = append(out, Outflow{Amount: f.sums[end].Sub(f.sums[start]), At: f.at[start], Action: a, Count: end - start})
				start = end
			}
		}
		for i := max(start, single); i < len(f.at); i++ {
			out = append(out, Outflow{Amount: f.amt[i], At: f.at[i], Action: a})
		}
	}
	s.out = out
	return out
}
