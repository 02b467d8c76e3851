package trust_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/trust"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// agent replays actions through trust.Apply, deriving the facts as the store
// does (transactions per counterparty organization, each reporter's open
// disputes).
type agent struct {
	c       trust.Counters
	withOrg map[string]int64
	open    map[string][]time.Time
}

func newAgent(at time.Time) *agent {
	return &agent{c: trust.Counters{At: at}, withOrg: map[string]int64{}, open: map[string][]time.Time{}}
}

const ownOrg = "org_own"

// execute records a completed transaction with an agent of org.
func (a *agent) execute(org string, at time.Time) {
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.Executed, At: at, SameOrg: org == ownOrg, WithOrgBefore: a.withOrg[org]})
	if org != ownOrg {
		a.withOrg[org]++
	}
}

// reverse records the reversal of a transaction with org sent at sentAt.
func (a *agent) reverse(org string, sender bool, sentAt, at time.Time) {
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.Reversed, At: at, SameOrg: org == ownOrg, Sender: sender, SentAt: sentAt, WithOrgBefore: a.withOrg[org]})
	if org != ownOrg {
		a.withOrg[org]--
	}
}

func (a *agent) refuse(code string, at time.Time) {
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.Refused, At: at, ReasonCode: code})
}

func first(times []time.Time) time.Time {
	var f time.Time
	for _, t := range times {
		if f.IsZero() || t.Before(f) {
			f = t
		}
	}
	return f
}

func (a *agent) dispute(org string, at time.Time) {
	before := first(a.open[org])
	a.open[org] = append(a.open[org], at)
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.DisputeFiled, At: at, SameOrg: org == ownOrg, OrgFirstBefore: before, OrgFirstAfter: first(a.open[org])})
}

func (a *agent) withdraw(org string, filedAt, at time.Time) {
	before := first(a.open[org])
	for i, t := range a.open[org] {
		if t.Equal(filedAt) {
			a.open[org] = append(a.open[org][:i:i], a.open[org][i+1:]...)
			break
		}
	}
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.DisputeWithdrawn, At: at, SameOrg: org == ownOrg, OrgFirstBefore: before, OrgFirstAfter: first(a.open[org])})
}

func (a *agent) score(at time.Time) trust.Result { return trust.Compute(a.c, at) }

// established has n clean transactions with orgs other organizations, spread
// evenly over the days before now.
func established(n, orgs, days int) *agent {
	start := now.Add(-time.Duration(days) * day)
	a := newAgent(start)
	for i := 0; i < n; i++ {
		a.execute(fmt.Sprint("org_", i%orgs), start.Add(time.Duration(days)*day/time.Duration(n)*time.Duration(i)))
	}
	return a
}

func points(r trust.Result, factor string) int {
	for _, c := range r.Contributions() {
		if c.Factor == factor {
			return c.Points
		}
	}
	return math.MinInt
}

func TestNewAgentScores500(t *testing.T) {
	t.Parallel()
	r := newAgent(now).score(now)
	if r.Score != 500 || r.Assessment != trust.Moderate || r.Factors.Confidence != 0 || points(r, trust.FactorBase) != 500 {
		t.Fatalf("new agent: %+v", r)
	}
	if r := trust.Compute(trust.Counters{}, now); r.Score != 500 {
		t.Fatalf("zero counters: %+v", r)
	}
}

// Issue 11's spiral: dailyLimit 150, 60 payments of 10 twice: 15 complete,
// 105 are refused over the limit; the agent never becomes High Risk and the
// refusals fade within days.
func TestNoSpiral(t *testing.T) {
	t.Parallel()
	for _, counterparty := range []string{"org_shop", ownOrg} {
		a := newAgent(now)
		for storm := 0; storm < 2; storm++ {
			for i := 0; i < 60; i++ {
				at := now.Add(time.Duration(storm)*time.Hour + time.Duration(i)*time.Millisecond)
				if storm == 0 && i < 15 {
					a.execute(counterparty, at)
				} else {
					a.refuse("daily_limit_exceeded", at)
				}
			}
		}
		r := a.score(now.Add(2 * time.Hour))
		if r.Assessment == trust.HighRisk || r.Factors.LimitRefusals < 100 {
			t.Errorf("with %s: after the storms %d %s %+v", counterparty, r.Score, r.Assessment, r.Factors)
		}
		if p := points(r, trust.FactorLimitRefusals); p > 0 || p < -int(trust.Weights.LimitPoints) {
			t.Errorf("limit refusals weigh %d", p)
		}
		later := a.score(now.Add(7 * day))
		if p := points(later, trust.FactorLimitRefusals); p*10 < points(r, trust.FactorLimitRefusals) {
			t.Errorf("with %s: limit refusals still weigh %d a week later", counterparty, p)
		}
		// trust_too_low, agent_suspended and counterparty_suspended refusals never count.
		before := a.c
		for _, code := range []string{"trust_too_low", "agent_suspended", "counterparty_suspended"} {
			a.refuse(code, now.Add(2*time.Hour))
		}
		if a.c.Failures != before.DecayTo(now.Add(2*time.Hour)).Failures || a.c.LimitRefusals != before.DecayTo(now.Add(2*time.Hour)).LimitRefusals {
			t.Errorf("a non-counting refusal counted: %+v", a.c)
		}
	}
}

// Two fresh agents of one organization paying each other 58 times stay at 500.
func TestSelfDealingAddsNothing(t *testing.T) {
	t.Parallel()
	a, b := newAgent(now), newAgent(now)
	for i := 0; i < 58; i++ {
		at := now.Add(time.Duration(i) * time.Minute)
		a.execute(ownOrg, at)
		b.execute(ownOrg, at)
	}
	a.dispute(ownOrg, now.Add(time.Hour)) // a dispute from its own organization counts for nothing
	for _, x := range []*agent{a, b} {
		if r := x.score(now.Add(2 * time.Hour)); r.Score != 500 {
			t.Fatalf("self-dealing scored %d: %+v", r.Score, r.Factors)
		}
	}
	// The same 58 payments with one other organization do count, but only
	// 15 of them for volume.
	c := newAgent(now)
	for i := 0; i < 58; i++ {
		c.execute("org_other", now.Add(time.Duration(i)*time.Minute))
	}
	r := c.score(now.Add(2 * time.Hour))
	if r.Score <= 500 || r.Assessment == trust.Verified || !strings.Contains(contribution(r, trust.FactorVolume), "15 of them counted") {
		t.Fatalf("58 payments with one organization: %d %s %v", r.Score, r.Assessment, r.Contributions())
	}
	// Diversity: the same 58 spread over 6 organizations count more.
	d := newAgent(now)
	for i := 0; i < 58; i++ {
		d.execute(fmt.Sprint("org_", i%6), now.Add(time.Duration(i)*time.Minute))
	}
	if s := d.score(now.Add(2 * time.Hour)).Score; s <= r.Score+50 {
		t.Fatalf("diverse counterparties %d vs one %d", s, r.Score)
	}
}

func contribution(r trust.Result, factor string) string {
	for _, c := range r.Contributions() {
		if c.Factor == factor {
			return c.Description
		}
	}
	return ""
}

// Issue 11's griefing: one organization with fresh agents runs 50
// send-and-reverse or send-and-dispute pairs against an agent with 100 clean
// transactions.
func TestGriefingIsBounded(t *testing.T) {
	t.Parallel()
	victim := func() *agent { return established(100, 5, 45) }
	base := victim().score(now).Score
	if base < trust.VerifiedMin {
		t.Fatalf("victim starts at %d", base)
	}

	reversed := victim()
	for i := 0; i < 50; i++ {
		at := now.Add(time.Duration(i) * time.Minute)
		reversed.execute("org_attacker", at)
		reversed.reverse("org_attacker", false, at, at.Add(time.Second))
	}
	if s := reversed.score(now.Add(time.Hour)).Score; s < base-1 {
		t.Errorf("send-and-reverse moved the victim %d -> %d", base, s)
	}

	disputed := victim()
	for i := 0; i < 50; i++ {
		at := now.Add(time.Duration(i) * time.Minute)
		disputed.execute("org_attacker", at)
		disputed.dispute("org_attacker", at.Add(time.Second))
	}
	r := disputed.score(now.Add(time.Hour))
	if r.Assessment == trust.HighRisk || r.Score < base-int(trust.Weights.DisputeOrgPoints) {
		t.Errorf("send-and-dispute moved the victim %d -> %d", base, r.Score)
	}
	if p := points(r, trust.FactorDisputes); p != -int(trust.Weights.DisputeOrgPoints) || r.Factors.OpenDisputes != 50 {
		t.Errorf("50 disputes from one organization weigh %d (%+v)", p, r.Factors)
	}
	// A new agent disputed by one organization stays out of High Risk too.
	fresh := newAgent(now)
	fresh.execute("org_attacker", now)
	fresh.dispute("org_attacker", now)
	if r := fresh.score(now); r.Assessment == trust.HighRisk {
		t.Errorf("one organization's dispute sank a new agent: %d", r.Score)
	}
	// Disputes weigh by the number of reporting organizations.
	many := victim()
	for i := 0; i < 5; i++ {
		many.dispute(fmt.Sprint("org_", i), now)
	}
	if r := many.score(now); r.Assessment != trust.HighRisk {
		t.Errorf("disputes from 5 organizations: %d %s", r.Score, r.Assessment)
	}
	// The reverser pays: reversals count against the sender.
	sender := established(100, 5, 45)
	for i := 0; i < 50; i++ {
		at := now.Add(time.Duration(i) * time.Minute)
		sender.execute("org_victim", at)
		sender.reverse("org_victim", true, at, at.Add(time.Second))
	}
	if r := sender.score(now.Add(time.Hour)); r.Score >= base-100 || r.Factors.Reversals < 49 {
		t.Errorf("50 reversals cost the sender only %d -> %d", base, r.Score)
	}
}

func TestWithdrawnDisputeStopsCounting(t *testing.T) {
	t.Parallel()
	a := established(100, 5, 45)
	base := a.score(now).Score
	a.dispute("org_x", now)
	a.dispute("org_x", now.Add(time.Hour))
	if s := a.score(now.Add(time.Hour)).Score; s >= base {
		t.Fatalf("disputes did not count: %d", s)
	}
	a.withdraw("org_x", now, now.Add(2*time.Hour)) // the earlier one: the org now weighs from the later one
	if r := a.score(now.Add(2 * time.Hour)); r.Factors.OpenDisputes != 1 || math.Abs(r.Factors.DisputingOrgs-trust.Weight(now.Add(time.Hour), now.Add(2*time.Hour), trust.Weights.DisputeHalfLife)) > 1e-9 {
		t.Fatalf("after one withdrawal: %+v", r.Factors)
	}
	a.withdraw("org_x", now.Add(time.Hour), now.Add(3*time.Hour))
	if r := a.score(now.Add(3 * time.Hour)); r.Factors.OpenDisputes != 0 || r.Factors.DisputingOrgs != 0 || r.Score < base-1 {
		t.Fatalf("after both withdrawals: %d %+v", r.Score, r.Factors)
	}
}

// The same record scored now and after 90 idle days: completions keep an
// eighth of their weight (30-day half-life), disputes half (90 days).
func TestDecay(t *testing.T) {
	t.Parallel()
	a := established(100, 5, 45)
	a.dispute("org_9", now)
	a.refuse("invalid_amount", now)
	r0, r90 := a.score(now), a.score(now.Add(90*day))
	if !near(r90.Factors.Volume, r0.Factors.Volume/8, 1e-9) || !near(r90.Factors.DisputingOrgs, 0.5, 1e-9) || !near(r90.Factors.Failures, 1.0/8, 1e-9) {
		t.Fatalf("decayed factors %+v from %+v", r90.Factors, r0.Factors)
	}
	if !near(float64(points(r90, trust.FactorDisputes)), float64(points(r0, trust.FactorDisputes))/2, 1) {
		t.Fatalf("dispute points %d -> %d", points(r0, trust.FactorDisputes), points(r90, trust.FactorDisputes))
	}
	if r90.Factors.TenureDays != r0.Factors.TenureDays+90 {
		t.Fatalf("tenure %v -> %v", r0.Factors.TenureDays, r90.Factors.TenureDays)
	}
	// Decay is consistent: decaying in steps equals decaying at once.
	stepped := a.c
	for i := 1; i <= 90; i++ {
		stepped = stepped.DecayTo(now.Add(time.Duration(i) * day))
	}
	if !stepped.Close(a.c.DecayTo(now.Add(90 * day))) {
		t.Fatalf("stepped decay %+v", stepped)
	}
}

// A clean year of 10,000 transactions, then a day of failures: the score
// moves within that day's evidence.
func TestRecentBehaviourFirst(t *testing.T) {
	t.Parallel()
	a := established(10000, 10, 365)
	before := a.score(now)
	for i := 0; i < 100; i++ {
		a.refuse("action_not_authorized", now.Add(time.Duration(i)*10*time.Minute))
	}
	after := a.score(now.Add(day))
	if before.Assessment != trust.Verified || after.Score > before.Score-100 {
		t.Fatalf("a day of 100 failures after 10,000 clean transactions: %d -> %d", before.Score, after.Score)
	}
}

func TestMonotonic(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 3000; i++ {
		c := randomCounters(rng)
		at := c.At
		more := trust.Apply(c, trust.Action{Kind: trust.DisputeFiled, At: at, OrgFirstAfter: at})
		if a, b := trust.Compute(c, at).Score, trust.Compute(more, at).Score; b > a {
			t.Fatalf("%+v: one more dispute raised %d -> %d", c, a, b)
		}
		again := trust.Apply(c, trust.Action{Kind: trust.DisputeFiled, At: at, OrgFirstBefore: at, OrgFirstAfter: at})
		if a, b := trust.Compute(c, at).Score, trust.Compute(again, at).Score; b > a {
			t.Fatalf("%+v: one more dispute from a disputing org raised %d -> %d", c, a, b)
		}
		clean := trust.Apply(c, trust.Action{Kind: trust.Executed, At: at})
		if a, b := trust.Compute(c, at).Score, trust.Compute(clean, at).Score; b < a {
			t.Fatalf("%+v: one more clean completion with a new organization lowered %d -> %d", c, a, b)
		}
		susp := trust.Apply(c, trust.Action{Kind: trust.Suspended, At: at})
		if a, b := trust.Compute(c, at).Score, trust.Compute(susp, at).Score; b > a {
			t.Fatalf("suspension raised %d -> %d", a, b)
		}
	}
}

func randomCounters(rng *rand.Rand) trust.Counters {
	pick := func(max float64) float64 {
		switch rng.IntN(4) {
		case 0:
			return 0
		case 1:
			return rng.Float64() * 3
		default:
			return rng.Float64() * max
		}
	}
	c := trust.Counters{At: now, Completed: pick(5000), Failures: pick(500), LimitRefusals: pick(300),
		Reversals: pick(300), DisputingOrgs: pick(8), OpenDisputes: int64(pick(40)), CounterpartyOrgs: int64(pick(60)),
		Suspended: rng.IntN(5) == 0}
	if rng.IntN(3) > 0 {
		c.FirstExternalAt = now.Add(-time.Duration(rng.Float64() * 400 * float64(day)))
	}
	return c
}

// Property: for random counters the contributions add up to the score, come
// largest effect first, and each sentence ends with its points.
func TestContributionsAddUp(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for i := 0; i < 5000; i++ {
		c := randomCounters(rng)
		r := trust.Compute(c, now)
		sum := 0
		for j, p := range r.Contributions() {
			sum += p.Points
			if j > 0 && abs(p.Points) > abs(r.Contributions()[j-1].Points) {
				t.Fatalf("not largest first: %+v", r.Contributions())
			}
			want := fmt.Sprintf("%+d", p.Points)
			want = strings.Replace(want, "-", "−", 1)
			if p.Points == 0 {
				want = "0"
			}
			if !strings.HasSuffix(p.Description, ": "+want) {
				t.Fatalf("description %q for %d points", p.Description, p.Points)
			}
		}
		if sum != r.Score || len(r.Contributions()) != 9 || r.Score < 0 || r.Score > 1000 || r.Assessment != trust.Assess(r.Score) {
			t.Fatalf("%+v: contributions sum to %d, score %d", c, sum, r.Score)
		}
	}
}

func abs(x int) int { return max(x, -x) }

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestBounds(t *testing.T) {
	t.Parallel()
	huge := trust.Counters{At: now, Completed: 1e300, CounterpartyOrgs: math.MaxInt64, FirstExternalAt: time.Unix(0, 0)}
	if r := trust.Compute(huge, now); r.Score != 1000 || r.Assessment != trust.Verified {
		t.Fatalf("best possible record: %+v", r)
	}
	worst := trust.Counters{At: now, Failures: 1e300, LimitRefusals: math.Inf(1), Reversals: 1e9, DisputingOrgs: 1e9, OpenDisputes: 5}
	r := trust.Compute(worst, now)
	if r.Score != 0 {
		t.Fatalf("worst record: %+v", r)
	}
	sum := 0
	for _, c := range r.Contributions() {
		sum += c.Points
	}
	if sum != 0 {
		t.Fatalf("worst record's contributions sum to %d", sum)
	}
	nan := trust.Counters{At: now, Completed: math.NaN(), Failures: -4, OpenDisputes: -3, CounterpartyOrgs: math.MinInt64}
	if r := trust.Compute(nan, now); r.Score != 500 {
		t.Fatalf("NaN and negative counters: %+v", r)
	}
	if r := trust.Compute(trust.Counters{At: now, Completed: 5, CounterpartyOrgs: 1, FirstExternalAt: now.Add(day)}, now); r.Factors.TenureDays != 0 {
		t.Fatalf("first external transaction in the future: %+v", r.Factors)
	}
}

func TestAssess(t *testing.T) {
	t.Parallel()
	tests := []struct {
		score int
		want  string
	}{
		{-1, trust.HighRisk}, {0, trust.HighRisk}, {399, trust.HighRisk},
		{400, trust.Moderate}, {500, trust.Moderate}, {699, trust.Moderate},
		{700, trust.Verified}, {1000, trust.Verified}, {1001, trust.Verified},
	}
	for _, tt := range tests {
		if got := trust.Assess(tt.score); got != tt.want {
			t.Errorf("Assess(%d) = %q, want %q", tt.score, got, tt.want)
		}
	}
}

func TestSuspensionAndReinstatement(t *testing.T) {
	t.Parallel()
	a := established(100, 5, 45)
	base := a.score(now)
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.Suspended, At: now})
	s := a.score(now)
	if s.Assessment != trust.HighRisk || s.Factors.Suspended != 1 || !near(float64(s.Score), float64(base.Score)*0.2, 1) {
		t.Fatalf("suspended: %d from %d", s.Score, base.Score)
	}
	a.c = trust.Apply(a.c, trust.Action{Kind: trust.Reinstated, At: now})
	if r := a.score(now); r.Score != base.Score {
		t.Fatalf("reinstated: %d, was %d", r.Score, base.Score)
	}
}

// Replaying the raw records gives the counters the actions left, for a
// random mix across days: what `trust rebuild` relies on.
func TestReplayMatchesApply(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 8))
	for round := 0; round < 50; round++ {
		a := newAgent(now)
		var h trust.History
		at := now
		var sent []int // indexes of transactions not yet reversed
		var open []int // indexes of open disputes
		orgs := []string{ownOrg, "org_1", "org_2", "org_3"}
		for step := 0; step < 150; step++ {
			at = at.Add(time.Duration(rng.IntN(6*3600)) * time.Second)
			switch k := rng.IntN(10); {
			case k < 4:
				org := orgs[rng.IntN(len(orgs))]
				sender := rng.IntN(2) == 0
				a.execute(org, at)
				h.Transactions = append(h.Transactions, trust.TransactionRecord{At: at, CounterpartyOrg: org, SameOrg: org == ownOrg, Sender: sender})
				sent = append(sent, len(h.Transactions)-1)
			case k < 6 && len(sent) > 0:
				i := rng.IntN(len(sent))
				tx := &h.Transactions[sent[i]]
				sent = append(sent[:i], sent[i+1:]...)
				a.reverse(tx.CounterpartyOrg, tx.Sender, tx.At, at)
				tx.ReversedAt = at
			case k < 7:
				code := []string{"invalid_amount", "daily_limit_exceeded", "trust_too_low", "amount_exceeds_limit", "action_not_authorized"}[rng.IntN(5)]
				a.refuse(code, at)
				h.Refusals = append(h.Refusals, trust.RefusalRecord{At: at, ReasonCode: code})
			case k < 9:
				org := orgs[rng.IntN(len(orgs))]
				a.dispute(org, at)
				h.Disputes = append(h.Disputes, trust.DisputeRecord{At: at, ReporterOrg: org, SameOrg: org == ownOrg})
				open = append(open, len(h.Disputes)-1)
			case len(open) > 0:
				i := rng.IntN(len(open))
				d := &h.Disputes[open[i]]
				open = append(open[:i], open[i+1:]...)
				a.withdraw(d.ReporterOrg, d.At, at)
				d.WithdrawnAt = at
			}
		}
		end := at.Add(time.Duration(rng.IntN(40)) * day)
		got, want := trust.Replay(h, end), a.c.DecayTo(end)
		if !got.Close(want) {
			t.Fatalf("round %d: replay %+v\nwant %+v", round, got, want)
		}
		if trust.Compute(got, end).Score != trust.Compute(want, end).Score {
			t.Fatalf("round %d: scores differ", round)
		}
	}
}

// Refusals over the agent's own limits count as limit refusals; refusals
// about the counterparty never count.
func TestRefusalClasses(t *testing.T) {
	t.Parallel()
	for code, counts := range map[string]bool{
		"amount_exceeds_limit": true, "velocity_limit_exceeded": true, "daily_limit_exceeded": true,
		"weekly_limit_exceeded": true, "monthly_limit_exceeded": true, "total_limit_exceeded": true,
		"invalid_amount": true, "counterparty_blocked": false, "counterparty_not_allowed": false,
		"counterparty_trust_too_low": false, "counterparty_suspended": false, "trust_too_low": false,
	} {
		if got := trust.RefusalCounts(code); got != counts {
			t.Errorf("RefusalCounts(%q) = %v, want %v", code, got, counts)
		}
	}
}
