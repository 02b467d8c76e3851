package policy_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

// simStart is a Monday 09:00 UTC, far from any window edge.
var simStart = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

// replayOf is a replay of payments of amounts at times by a sender with
// spending limit 100, no daily limit and policy p, to one receiver; every
// payment's scores are 500 unless the test sets them.
func replayOf(p policy.SpendPolicy, payments ...pay) policy.Replay {
	r := policy.Replay{Sender: policy.Party{ID: "agent_x", OrgID: "org_a", Status: policy.StatusActive, Environment: "sandbox",
		Currency: "USD", AuthorizedActions: []string{"pay", "read"}, SpendingLimit: amt("100"), Policy: p}}
	for _, py := range payments {
		r.History = append(r.History, py.past())
	}
	return r
}

// pay is one replayed payment: an amount at an offset from simStart.
type pay struct {
	amount string
	at     time.Duration
	action string // "" is pay
	score  int    // the sender's score; 0 is 500
	recv   int    // the receiver's score; 0 is 500
	mdt    string // the mandate named; "" none
}

func (p pay) past() policy.Past {
	action, score, recv := cmp.Or(p.action, "pay"), cmp.Or(p.score, 500), cmp.Or(p.recv, 500)
	assessment := "Moderate"
	if score < 400 {
		assessment = policy.AssessmentHighRisk
	}
	out := policy.Past{At: simStart.Add(p.at), Action: action, Amount: amt(p.amount), Currency: "USD",
		Receiver:    policy.Party{ID: "agent_y", OrgID: "org_b", Score: &recv, Status: policy.StatusActive, Environment: "sandbox", Currency: "USD"},
		SenderScore: &score, SenderAssessment: assessment}
	if p.mdt != "" {
		out.MandateID = &p.mdt
	}
	return out
}

// codes lists every replayed transaction's decision code: "ok", "held" or
// the refusal's code, found by replaying each prefix (the outcomes list
// only refusals and held ones).
func codes(t *testing.T, r policy.Replay) []string {
	t.Helper()
	s := policy.Simulate(r)
	out := make([]string, len(r.History))
	for i := range out {
		out[i] = "ok"
	}
	for _, o := range s.Outcomes {
		out[o.Index] = o.Decision.ReasonCode
		if o.Decision.RequiresApproval {
			out[o.Index] = "held"
		}
	}
	return out
}

const (
	hour = time.Hour
	day  = 24 * time.Hour
)

func TestSimulateWindows(t *testing.T) {
	t.Parallel()
	tokyo := "Asia/Tokyo" // UTC+9 all year: simStart is 18:00 there
	lim := func(a string, w policy.LimitWindow, m policy.WindowMode, actions ...string) policy.SpendPolicy {
		return policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit(a, w, m, actions...)}}
	}
	inTZ := func(p policy.SpendPolicy, tz string) policy.SpendPolicy { p.Timezone = tz; return p }
	tests := []struct {
		name     string
		policy   policy.SpendPolicy
		payments []pay
		want     []string
	}{
		{"rolling day: a payment exactly 24 h old has left the window", lim("100", policy.WindowDay, policy.ModeRolling),
			[]pay{{amount: "100"}, {amount: "1", at: day - time.Second}, {amount: "1", at: day}},
			[]string{"ok", policy.ReasonDailyLimitExceeded, "ok"}},
		{"a refused payment counts toward no later window", lim("100", policy.WindowDay, policy.ModeRolling),
			[]pay{{amount: "60"}, {amount: "60", at: hour}, {amount: "40", at: 2 * hour}, {amount: "1", at: 3 * hour}},
			[]string{"ok", policy.ReasonDailyLimitExceeded, "ok", policy.ReasonDailyLimitExceeded}},
		{"calendar day resets at midnight in the policy's timezone", inTZ(lim("100", policy.WindowDay, policy.ModeCalendar), tokyo),
			// simStart+6h is 00:00 in Tokyo.
			[]pay{{amount: "100"}, {amount: "1", at: 6*hour - time.Nanosecond}, {amount: "100", at: 6 * hour}, {amount: "1", at: 7 * hour}},
			[]string{"ok", policy.ReasonDailyLimitExceeded, "ok", policy.ReasonDailyLimitExceeded}},
		{"rolling week", lim("100", policy.WindowWeek, policy.ModeRolling),
			[]pay{{amount: "90"}, {amount: "20", at: 6 * day}, {amount: "20", at: 7 * day}},
			[]string{"ok", policy.ReasonWeeklyLimitExceeded, "ok"}},
		{"calendar week resets on Monday", lim("100", policy.WindowWeek, policy.ModeCalendar),
			// simStart is Monday 09:00 UTC; the next week starts 6 d 15 h later.
			[]pay{{amount: "90"}, {amount: "20", at: 6*day + 15*hour - time.Second}, {amount: "20", at: 6*day + 15*hour}},
			[]string{"ok", policy.ReasonWeeklyLimitExceeded, "ok"}},
		{"rolling month", lim("100", policy.WindowMonth, policy.ModeRolling),
			[]pay{{amount: "90"}, {amount: "20", at: 29 * day}, {amount: "20", at: 30 * day}},
			[]string{"ok", policy.ReasonMonthlyLimitExceeded, "ok"}},
		{"calendar month resets on the first", lim("100", policy.WindowMonth, policy.ModeCalendar),
			// December starts 28 d 15 h after simStart.
			[]pay{{amount: "90"}, {amount: "20", at: 28*day + 15*hour - time.Second}, {amount: "20", at: 28*day + 15*hour}},
			[]string{"ok", policy.ReasonMonthlyLimitExceeded, "ok"}},
		{"total never resets", lim("100", policy.WindowTotal, policy.ModeRolling),
			[]pay{{amount: "90"}, {amount: "20", at: 300 * day}, {amount: "10", at: 301 * day}, {amount: "1", at: 302 * day}},
			[]string{"ok", policy.ReasonTotalLimitExceeded, "ok", policy.ReasonTotalLimitExceeded}},
		{"a limit on some actions counts only those", lim("100", policy.WindowDay, policy.ModeRolling, "pay"),
			[]pay{{amount: "90"}, {amount: "5", at: hour, action: "read"}, {amount: "10", at: 2 * hour}, {amount: "1", at: 3 * hour}},
			[]string{"ok", "ok", "ok", policy.ReasonDailyLimitExceeded}},
		{"velocity: a transaction exactly a window old has left it",
			policy.SpendPolicy{VelocityLimits: []policy.VelocityLimit{{MaxCount: 2, WindowSeconds: 60}}},
			[]pay{{amount: "1"}, {amount: "1", at: 10 * time.Second}, {amount: "1", at: 20 * time.Second}, {amount: "1", at: 60 * time.Second},
				{amount: "1", at: 61 * time.Second}},
			[]string{"ok", "ok", policy.ReasonVelocityLimitExceeded, "ok", policy.ReasonVelocityLimitExceeded}},
		{"velocity on some actions", policy.SpendPolicy{VelocityLimits: []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 3600, Actions: []string{"pay"}}}},
			[]pay{{amount: "1", action: "read"}, {amount: "1", at: time.Minute}, {amount: "1", at: 2 * time.Minute}},
			[]string{"ok", "ok", policy.ReasonVelocityLimitExceeded}},
		{"approval: over the threshold is held and counts toward nothing",
			policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeRolling)},
				Approval: &policy.ApprovalRule{Above: amt("50"), ExpiresAfterSeconds: 3600}},
			[]pay{{amount: "60"}, {amount: "50", at: hour}, {amount: "50", at: 2 * hour}, {amount: "1", at: 3 * hour}, {amount: "60", at: 4 * hour}},
			[]string{"held", "ok", "ok", policy.ReasonDailyLimitExceeded, policy.ReasonDailyLimitExceeded}},
		{"equal to the threshold is not held", policy.SpendPolicy{Approval: &policy.ApprovalRule{Above: amt("50"), ExpiresAfterSeconds: 3600}},
			[]pay{{amount: "50"}, {amount: "50.01", at: hour}},
			[]string{"ok", "held"}},
		{"tiers follow the score the sender had at each moment",
			policy.SpendPolicy{TrustTiers: []policy.TrustTier{{MinScore: 0, LimitPercent: 50}, {MinScore: 700, LimitPercent: 100}}},
			[]pay{{amount: "80", score: 750}, {amount: "80", at: hour, score: 650}, {amount: "50", at: 2 * hour, score: 650}, {amount: "80", at: 3 * hour, score: 700}},
			[]string{"ok", policy.ReasonAmountExceedsLimit, "ok", "ok"}},
		{"a tier scales the windows too",
			policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeRolling)},
				TrustTiers: []policy.TrustTier{{MinScore: 0, LimitPercent: 50}, {MinScore: 700, LimitPercent: 100}}},
			[]pay{{amount: "40", score: 800}, {amount: "40", at: hour, score: 800}, {amount: "10", at: 2 * hour, score: 600}},
			[]string{"ok", "ok", policy.ReasonDailyLimitExceeded}},
		{"the sender's assessment then", policy.SpendPolicy{},
			[]pay{{amount: "1", score: 390}, {amount: "1", at: hour, score: 400}},
			[]string{policy.ReasonTrustTooLow, "ok"}},
		{"the receiver's score then", policy.SpendPolicy{MinCounterpartyScore: intp(600)},
			[]pay{{amount: "1", recv: 599}, {amount: "1", at: hour, recv: 600}},
			[]string{policy.ReasonCounterpartyTrustTooLow, "ok"}},
		{"counterparty rules", policy.SpendPolicy{Counterparties: policy.CounterpartyRules{DenyOrgs: []string{"org_b"}}},
			[]pay{{amount: "1"}},
			[]string{policy.ReasonCounterpartyBlocked}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := codes(t, replayOf(tt.policy, tt.payments...)); !slices.Equal(got, tt.want) {
				t.Errorf("decisions %v, want %v", got, tt.want)
			}
		})
	}
}

// The outflow before the period counts in the windows it falls in, and a
// total limit counts the whole history.
func TestSimulateCountsOutflowBeforeThePeriod(t *testing.T) {
	t.Parallel()
	p := policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeRolling), limit("550", policy.WindowTotal, policy.ModeRolling)}}
	r := replayOf(p, pay{amount: "20"}, pay{amount: "10", at: hour}, pay{amount: "10", at: 23 * hour}, pay{amount: "50", at: 24 * hour})
	r.Before = []policy.Outflow{act("95", simStart.Add(-hour), "pay"), act("400", time.Time{}, "pay")}
	if got, want := codes(t, r), []string{policy.ReasonDailyLimitExceeded, policy.ReasonDailyLimitExceeded, "ok", policy.ReasonTotalLimitExceeded}; !slices.Equal(got, want) {
		t.Errorf("decisions %v, want %v", got, want)
	}
}

func TestSimulateMandates(t *testing.T) {
	t.Parallel()
	revoked := simStart.Add(2 * hour)
	m := &mandate.Mandate{ID: "mdt_1", AgentID: "agent_x", Actions: []string{"pay"}, Budget: amt("100"), Currency: "USD",
		Spent: amt("30"), Uses: 1, ExpiresAt: simStart.Add(10 * day), RevokedAt: &revoked}
	r := replayOf(policy.SpendPolicy{RequireMandate: true},
		pay{amount: "50", mdt: "mdt_1"},                  // 30 + 50 of 100
		pay{amount: "30", at: time.Minute, mdt: "mdt_1"}, // 80 + 30: over what remains
		pay{amount: "20", at: hour, mdt: "mdt_1"},        // exactly the budget
		pay{amount: "1", at: 90 * time.Minute},           // none named
		pay{amount: "1", at: 2 * hour, mdt: "mdt_1"},     // revoked by then
		pay{amount: "1", at: 3 * hour, mdt: "mdt_2"},     // not the sender's
	)
	r.Mandates = map[string]*mandate.Mandate{"mdt_1": m}
	want := []string{"ok", policy.ReasonMandateAmountExceeded, "ok", policy.ReasonMandateRequired, policy.ReasonMandateRevoked, policy.ReasonMandateNotFound}
	if got := codes(t, r); !slices.Equal(got, want) {
		t.Errorf("decisions %v, want %v", got, want)
	}
	if m.Spent.Cmp(amt("30")) != 0 || m.Uses != 1 {
		t.Errorf("the replay changed its input mandate: spent %s, uses %d", m.Spent, m.Uses)
	}
}

func TestSimulateTally(t *testing.T) {
	t.Parallel()
	p := policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeRolling)},
		VelocityLimits: []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60}},
		Approval:       &policy.ApprovalRule{Above: amt("30"), ExpiresAfterSeconds: 3600}}
	var payments []pay
	// Per day: 35 held, 30 allowed, a velocity refusal 10 s later, 71 over
	// the day's budget once the velocity window has passed; 150 days.
	for d := range 150 {
		at := time.Duration(d) * day
		payments = append(payments, pay{amount: "35", at: at}, pay{amount: "30", at: at + time.Minute},
			pay{amount: "1", at: at + time.Minute + 10*time.Second}, pay{amount: "71", at: at + 2*time.Minute})
	}
	s := policy.Simulate(replayOf(p, payments...))
	if s.Replayed != 600 || s.Allowed != 150 || s.HeldForApproval != 150 || s.Refused != 300 {
		t.Errorf("replayed %d: allowed %d, held %d, refused %d", s.Replayed, s.Allowed, s.HeldForApproval, s.Refused)
	}
	// 150 each: ties by code.
	want := []policy.ReasonCount{{ReasonCode: policy.ReasonDailyLimitExceeded, Count: 150}, {ReasonCode: policy.ReasonVelocityLimitExceeded, Count: 150}}
	if !reflect.DeepEqual(s.RefusedByCode, want) {
		t.Errorf("by code %+v, want %+v", s.RefusedByCode, want)
	}
	if len(s.Outcomes) != policy.MaxSimulatedOutcomes {
		t.Fatalf("%d outcomes", len(s.Outcomes))
	}
	for i, o := range s.Outcomes {
		// Listed: the held, velocity and daily ones of each day, oldest first.
		if want := i/3*4 + []int{0, 2, 3}[i%3]; o.Index != want {
			t.Fatalf("outcome %d is transaction %d, want %d", i, o.Index, want)
		}
	}
	if d := s.Outcomes[2].Decision; !strings.Contains(d.Reason, "limit 100.00 USD, 30.00 USD spent in the last 24 hours") {
		t.Errorf("daily refusal's reason: %s", d.Reason)
	}
	peak := s.Peaks[0]
	if peak.Peak.Cmp(amt("30")) != 0 || !peak.At.Equal(simStart.Add(time.Minute)) || peak.Limit.Cmp(amt("100")) != 0 {
		t.Errorf("peak %+v", peak)
	}
}

func TestSimulatePeaks(t *testing.T) {
	t.Parallel()
	daily := amt("100")
	p := policy.SpendPolicy{SpendLimits: []policy.SpendLimit{limit("300", policy.WindowWeek, policy.ModeRolling),
		limit("500", policy.WindowTotal, policy.ModeRolling, "read"), limit("50", policy.WindowDay, policy.ModeCalendar)},
		TrustTiers: []policy.TrustTier{{MinScore: 0, LimitPercent: 50}, {MinScore: 600, LimitPercent: 100}}}
	r := replayOf(p, pay{amount: "30", score: 700}, pay{amount: "30", at: hour, score: 700}, pay{amount: "40", at: day, score: 800},
		pay{amount: "45", at: 2 * day, score: 550})
	r.Sender.DailyLimit = &daily
	r.Before = []policy.Outflow{act("70", simStart.Add(-2*day), "pay")}
	r.FinalScore = intp(500)
	s := policy.Simulate(r)
	type peak struct {
		window policy.LimitWindow
		limit  string
		peak   string
		at     time.Duration // -1: none
	}
	want := []peak{
		{policy.WindowDay, "100", "40", day},   // the rolling day dailyLimit stands for, first; the second 30 is refused by the calendar day
		{policy.WindowWeek, "300", "140", day}, // 70 before, 30 and 40; the 45 at 50% is refused by the calendar day
		{policy.WindowTotal, "250", "0", -1},   // it counts no pay: the limit at the final score's tier
		{policy.WindowDay, "50", "40", day},
	}
	var got []peak
	for _, pk := range s.Peaks {
		at := time.Duration(-1)
		if pk.At != nil {
			at = pk.At.Sub(simStart)
		}
		got = append(got, peak{pk.Window, pk.Limit.String(), pk.Peak.String(), at})
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("peaks\n got %+v\nwant %+v\ncodes %v", got, want, codes(t, r))
	}
}

// simPolicy combines a limit of every window and mode (calendar ones in New
// York, whose days are 23 to 25 hours long), velocity limits, tiers and an
// approval threshold.
func simPolicy() policy.SpendPolicy {
	return policy.SpendPolicy{Timezone: "America/New_York",
		SpendLimits: []policy.SpendLimit{limit("250", policy.WindowDay, policy.ModeCalendar),
			limit("500", policy.WindowWeek, policy.ModeRolling, "pay"), limit("900", policy.WindowWeek, policy.ModeCalendar),
			limit("2500", policy.WindowMonth, policy.ModeRolling), limit("1500", policy.WindowMonth, policy.ModeCalendar, "read"),
			limit("9000", policy.WindowTotal, policy.ModeRolling)},
		VelocityLimits: []policy.VelocityLimit{{MaxCount: 2, WindowSeconds: 3600}, {MaxCount: 2, WindowSeconds: 600, Actions: []string{"read"}}},
		TrustTiers:     []policy.TrustTier{{MinScore: 0, LimitPercent: 60}, {MinScore: 500, LimitPercent: 100}},
		Approval:       &policy.ApprovalRule{Above: amt("70"), ExpiresAfterSeconds: 3600}}
}

// randomReplay is n payments over about two months, some exactly at a
// window's edge (a day, a week or an hour after an earlier one, or
// midnight in New York), with scores that wander.
func randomReplay(seed uint64, n int) policy.Replay {
	rng := rand.New(rand.NewPCG(seed, 1))
	nyc, _ := time.LoadLocation("America/New_York")
	daily := amt("200")
	r := replayOf(simPolicy())
	r.Sender.DailyLimit = &daily
	r.Before = []policy.Outflow{act("90", simStart.Add(-20*hour), "pay"), act("300", simStart.Add(-6*day), "read"),
		act("2000", time.Time{}, "pay")}
	at, score := simStart, 600
	for i := range n {
		switch k := rng.IntN(10); {
		case k == 0 && i > 0:
			at = r.History[rng.IntN(i)].At.Add([]time.Duration{hour, day, 7 * day, 10 * time.Minute}[rng.IntN(4)])
			if at.Before(r.History[i-1].At) {
				at = r.History[i-1].At
			}
		case k == 1:
			y, m, d := at.In(nyc).Date()
			at = time.Date(y, m, d+1, 0, 0, 0, 0, nyc).UTC()
		default:
			at = at.Add(time.Duration(rng.ExpFloat64() * float64(hour)))
		}
		score = max(380, min(900, score+rng.IntN(61)-30))
		p := pay{amount: fmt.Sprintf("%d.%02d", 1+rng.IntN(90), rng.IntN(100)), action: []string{"pay", "read"}[rng.IntN(2)],
			score: score, recv: 400 + rng.IntN(400)}
		past := p.past()
		past.At = at
		r.History = append(r.History, past)
	}
	r.FinalScore = intp(score)
	return r
}

// naive replays r with the rows themselves: every allowed outflow, never
// summed, in one list; it is what Simulate must agree with.
func naive(r policy.Replay) policy.Simulation {
	var s policy.Simulation
	flows := slices.Clone(r.Before)
	byCode := map[string]int{}
	for i, p := range r.History {
		sender, receiver := r.Sender, p.Receiver
		sender.Score = p.SenderScore
		in := policy.Input{Sender: sender, Receiver: &receiver, Action: p.Action, Amount: p.Amount, Currency: p.Currency,
			Now: p.At, Outflow: flows, SenderAssessment: p.SenderAssessment}
		d := policy.Evaluate(in)
		if (!d.Allowed || d.RequiresApproval) && len(s.Outcomes) < policy.MaxSimulatedOutcomes {
			s.Outcomes = append(s.Outcomes, policy.Outcome{Index: i, Decision: d})
		}
		switch {
		case !d.Allowed:
			s.Refused++
			byCode[d.ReasonCode]++
		case d.RequiresApproval:
			s.HeldForApproval++
		default:
			s.Allowed++
			flows = append(flows, policy.Outflow{Amount: p.Amount, At: p.At, Action: p.Action})
		}
	}
	s.Replayed = len(r.History)
	for c, n := range byCode {
		s.RefusedByCode = append(s.RefusedByCode, policy.ReasonCount{ReasonCode: c, Count: n})
	}
	slices.SortFunc(s.RefusedByCode, func(a, b policy.ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.ReasonCode, b.ReasonCode))
	})
	return s
}

// Deciding on sums between the windows' edges gives every decision and
// every listed reason that deciding on the rows gives.
func TestSimulateAgreesWithTheRows(t *testing.T) {
	t.Parallel()
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			r := randomReplay(seed, 700)
			got, want := policy.Simulate(r), naive(r)
			got.Peaks = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("simulated %d/%d/%d %v, rows %d/%d/%d %v", got.Allowed, got.HeldForApproval, got.Refused, got.RefusedByCode,
					want.Allowed, want.HeldForApproval, want.Refused, want.RefusedByCode)
				for i := range min(len(got.Outcomes), len(want.Outcomes)) {
					if !reflect.DeepEqual(got.Outcomes[i], want.Outcomes[i]) {
						t.Fatalf("outcome %d:\n got %+v\nwant %+v", i, got.Outcomes[i], want.Outcomes[i])
					}
				}
			}
			if len(want.RefusedByCode) < 6 || want.Allowed < 100 || want.HeldForApproval < 10 {
				t.Errorf("the history is too tame to show anything: %d allowed, %d held, %v", want.Allowed, want.HeldForApproval, want.RefusedByCode)
			}
		})
	}
}

// Allowing every replayed transaction, the peaks are the largest window sums
// seen just after each, computed here from the rows.
func TestSimulatePeaksAgreeWithTheRows(t *testing.T) {
	t.Parallel()
	r := randomReplay(7, 300)
	r.Sender.Policy.VelocityLimits, r.Sender.Policy.Approval, r.Sender.Policy.TrustTiers = nil, nil, nil
	for i := range r.Sender.Policy.SpendLimits {
		r.Sender.Policy.SpendLimits[i].Amount = amt("1000000")
	}
	r.Sender.DailyLimit = nil
	for i := range r.History {
		r.History[i].SenderAssessment = "Moderate"
	}
	s := policy.Simulate(r)
	if s.Allowed != len(r.History) {
		t.Fatalf("allowed %d of %d", s.Allowed, len(r.History))
	}
	loc := r.Sender.Policy.Location()
	for i, l := range r.Sender.Policy.SpendLimits {
		var peak money.Amount
		var at time.Time
		for k, p := range r.History {
			if !policy.Counts(l.Actions, p.Action) {
				continue
			}
			span := l.SpanAt(p.At, loc)
			var used money.Amount
			for _, o := range r.Before {
				if (span.Contains(o.At) || l.Window == policy.WindowTotal) && policy.Counts(l.Actions, o.Action) {
					used = used.Add(o.Amount)
				}
			}
			for _, q := range r.History[:k+1] {
				if (span.Contains(q.At) || l.Window == policy.WindowTotal) && policy.Counts(l.Actions, q.Action) {
					used = used.Add(q.Amount)
				}
			}
			if used.Cmp(peak) > 0 {
				peak, at = used, p.At
			}
		}
		got := s.Peaks[i]
		if got.Peak.Cmp(peak) != 0 || !got.At.Equal(at) || got.Window != l.Window {
			t.Errorf("limit %d (%s %s %v): peak %s at %v, want %s at %v", i, l.Window, l.Mode, l.Actions, got.Peak, got.At, peak, at)
		}
	}
}
