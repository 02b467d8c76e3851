package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

func intp(i int) *int { return &i }

func act(s string, at time.Time, action string) policy.Outflow {
	return policy.Outflow{Amount: amt(s), At: at, Action: action}
}

// scored is base() with no daily limit, an empty policy and known scores:
// the sender at 700 in org_a, the receiver at 500 in org_b.
func scored() policy.Input {
	in := base()
	in.Sender.DailyLimit, in.Outflow = nil, nil
	in.Sender.OrgID, in.Sender.Score = "org_a", intp(700)
	in.Receiver.OrgID, in.Receiver.Score = "org_b", intp(500)
	return in
}

func limit(a string, w policy.LimitWindow, m policy.WindowMode, actions ...string) policy.SpendLimit {
	l := policy.SpendLimit{Amount: amt(a), Window: w, Mode: m}
	if len(actions) > 0 {
		l.Actions = actions
	}
	return l
}

func TestEvaluatePolicy(t *testing.T) {
	t.Parallel()
	nyc, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	// 2026-03-08 is the spring-forward day in New York: 02:00 EST becomes 03:00 EDT.
	dst := time.Date(2026, 3, 8, 12, 0, 0, 0, nyc)
	// The last second of November 2026 in New York.
	monthEnd := time.Date(2026, 11, 30, 23, 59, 59, 0, nyc)
	tests := []struct {
		name   string
		edit   func(*policy.Input)
		code   string
		substr string
	}{
		{"empty policy", func(*policy.Input) {}, policy.ReasonOK, "(no daily limit)"},

		{"deny agent", func(in *policy.Input) { in.Sender.Policy.Counterparties.DenyAgents = []string{"agent_y"} },
			policy.ReasonCounterpartyBlocked, "agent_y is on the policy's deny list"},
		{"deny org", func(in *policy.Input) { in.Sender.Policy.Counterparties.DenyOrgs = []string{"org_b"} },
			policy.ReasonCounterpartyBlocked, "agent_y's organization is on the policy's deny list"},
		{"deny wins over allow", func(in *policy.Input) {
			in.Sender.Policy.Counterparties = policy.CounterpartyRules{AllowAgents: []string{"agent_y"}, DenyOrgs: []string{"org_b"}}
		}, policy.ReasonCounterpartyBlocked, ""},
		{"allow list without it", func(in *policy.Input) { in.Sender.Policy.Counterparties.AllowAgents = []string{"agent_z"} },
			policy.ReasonCounterpartyNotAllowed, "agent_y is not on the policy's allow list, by agent or by organization"},
		{"allowed by org", func(in *policy.Input) {
			in.Sender.Policy.Counterparties = policy.CounterpartyRules{AllowAgents: []string{"agent_z"}, AllowOrgs: []string{"org_b"}}
		}, policy.ReasonOK, ""},
		{"allowed by agent", func(in *policy.Input) {
			in.Sender.Policy.Counterparties = policy.CounterpartyRules{AllowAgents: []string{"agent_y"}, AllowOrgs: []string{"org_c"}}
		}, policy.ReasonOK, ""},
		{"lists skipped without a receiver", func(in *policy.Input) {
			in.Receiver = nil
			in.Sender.Policy.Counterparties.AllowAgents = []string{"agent_z"}
			in.Sender.Policy.MinCounterpartyScore = intp(900)
		}, policy.ReasonOK, ""},
		{"counterparty score below minimum", func(in *policy.Input) { in.Sender.Policy.MinCounterpartyScore = intp(501) },
			policy.ReasonCounterpartyTrustTooLow, "trust score 500 is below the policy's minimum of 501"},
		{"counterparty score equal to minimum", func(in *policy.Input) { in.Sender.Policy.MinCounterpartyScore = intp(500) }, policy.ReasonOK, ""},
		{"counterparty score unknown", func(in *policy.Input) {
			in.Sender.Policy.MinCounterpartyScore, in.Receiver.Score = intp(0), nil
		}, policy.ReasonCounterpartyTrustTooLow, "unknown"},

		{"tier scales spending limit", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 0, LimitPercent: 10}, {MinScore: 600, LimitPercent: 50}, {MinScore: 800, LimitPercent: 100}}
			in.Amount = amt("50.01")
		}, policy.ReasonAmountExceedsLimit, "spending limit of 50.00 USD (trust tier 600+ applies at score 700: limits at 50%)"},
		{"tier limit reached exactly", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 600, LimitPercent: 50}}
			in.Amount = amt("50")
		}, policy.ReasonOK, "trust tier 600+"},
		{"tier at exactly the score applies", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 700, LimitPercent: 20}, {MinScore: 701, LimitPercent: 100}}
			in.Amount = amt("20.01")
		}, policy.ReasonAmountExceedsLimit, "tier 700+"},
		{"no tier at or below the score", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 800, LimitPercent: 10}}
			in.Amount = amt("100")
		}, policy.ReasonOK, ""},
		{"tier scales windows", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 0, LimitPercent: 25}}
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("200", policy.WindowWeek, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("40", now.Add(-time.Hour), "pay")}
			in.Amount = amt("10.01")
		}, policy.ReasonWeeklyLimitExceeded, "limit 50.00 USD, 40.00 USD spent in the last 7 days"},
		{"tier truncates to minor units", func(in *policy.Input) {
			in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 0, LimitPercent: 33}}
			in.Sender.SpendingLimit, in.Amount = amt("0.05"), amt("0.02")
		}, policy.ReasonAmountExceedsLimit, "spending limit of 0.01 USD"},

		{"velocity reached exactly", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 3, WindowSeconds: 3600}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-time.Minute), "pay"), act("1", now.Add(-2*time.Minute), "pay")}
		}, policy.ReasonOK, ""},
		{"velocity exceeded", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 2, WindowSeconds: 3600}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-10*time.Minute), "pay"), act("1", now.Add(-50*time.Minute), "pay")}
		}, policy.ReasonVelocityLimitExceeded, "velocity limit of 2 transactions per 3600 seconds reached (2 in the last 3600 seconds); the next one is allowed at 2026-11-21T12:10:00Z"},
		{"velocity: one exactly the window old has left", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-time.Minute), "pay")}
		}, policy.ReasonOK, ""},
		{"velocity: one a nanosecond younger counts", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-time.Minute+time.Nanosecond), "pay")}
		}, policy.ReasonVelocityLimitExceeded, "allowed at 2026-11-21T12:00:01Z"},
		{"velocity per action ignores others", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60, Actions: []string{"pay"}}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-time.Second), "read")}
		}, policy.ReasonOK, ""},
		{"velocity per action counts its own", func(in *policy.Input) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60, Actions: []string{"pay"}}}
			in.Outflow = []policy.Outflow{act("1", now.Add(-time.Second), "pay")}
		}, policy.ReasonVelocityLimitExceeded, "transactions on pay per 60 seconds"},

		{"rolling week reached exactly", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowWeek, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("90", now.Add(-6*24*time.Hour), "pay")}
		}, policy.ReasonOK, "remaining weekly budget of 10.00 USD"},
		{"rolling week exceeded", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowWeek, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("90.01", now.Add(-6*24*time.Hour), "pay")}
		}, policy.ReasonWeeklyLimitExceeded, "amount 10.00 USD exceeds the remaining weekly budget of 9.99 USD (limit 100.00 USD, 90.01 USD spent in the last 7 days); 10.00 USD frees up at 2026-11-22T12:00:00Z"},
		{"rolling week: exactly 7 days old has expired", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowWeek, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("100", now.Add(-policy.RollingWeek), "pay")}
		}, policy.ReasonOK, ""},
		{"rolling month: a nanosecond younger still counts", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowMonth, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("100", now.Add(-policy.RollingMonth+time.Nanosecond), "pay")}
		}, policy.ReasonMonthlyLimitExceeded, "in the last 30 days); 10.00 USD frees up at 2026-11-21T12:00:01Z"},
		{"limit on its own", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("5", policy.WindowMonth, policy.ModeCalendar)}
		}, policy.ReasonMonthlyLimitExceeded, "exceeds the monthly limit of 5.00 USD on its own"},
		{"per action limit ignores other actions", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("50", policy.WindowWeek, policy.ModeRolling, "buy")}
			in.Outflow = []policy.Outflow{act("90", now.Add(-time.Hour), "pay")}
		}, policy.ReasonOK, ""},
		{"per action limit counts its actions", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("50", policy.WindowWeek, policy.ModeRolling, "pay")}
			in.Outflow = []policy.Outflow{act("45", now.Add(-time.Hour), "pay"), act("1000", now.Add(-time.Hour), "read")}
		}, policy.ReasonWeeklyLimitExceeded, "(limit 50.00 USD on pay, 45.00 USD spent in the last 7 days)"},
		{"total limit", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("1000", policy.WindowTotal, policy.ModeRolling)}
			in.Outflow = []policy.Outflow{act("995", now.Add(-400*24*time.Hour), "pay")}
		}, policy.ReasonTotalLimitExceeded, "(limit 1000.00 USD, 995.00 USD spent in total); a total limit never resets"},
		{"total limit reached exactly", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("1000", policy.WindowTotal, policy.ModeCalendar)}
			in.Outflow = []policy.Outflow{act("990", now.Add(-400*24*time.Hour), "pay")}
		}, policy.ReasonOK, "remaining total budget of 10.00 USD"},
		{"dailyLimit is the rolling day entry", func(in *policy.Input) {
			in.Sender.DailyLimit = ptr(amt("15"))
			in.Outflow = []policy.Outflow{act("6", now.Add(-time.Hour), "pay")}
		}, policy.ReasonDailyLimitExceeded, "remaining daily budget of 9.00 USD (limit 15.00 USD, 6.00 USD spent in the last 24 hours)"},

		{"calendar day in timezone", func(in *policy.Input) {
			in.Sender.Policy.Timezone = "America/New_York"
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeCalendar)}
			// 04:59 UTC is still the previous day in New York (EST, UTC−5): it counts at 12:00 UTC.
			in.Outflow = []policy.Outflow{act("95", time.Date(2026, 11, 21, 5, 0, 0, 0, time.UTC), "pay"), act("500", time.Date(2026, 11, 21, 4, 59, 59, 0, time.UTC), "pay")}
		}, policy.ReasonDailyLimitExceeded, "(limit 100.00 USD, 95.00 USD spent since 2026-11-21T00:00:00-05:00); the budget resets at 2026-11-22T00:00:00-05:00"},
		{"calendar ISO week starts Monday", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowWeek, policy.ModeCalendar)}
			// now is Saturday 2026-11-21; the week began Monday 2026-11-16.
			in.Outflow = []policy.Outflow{act("95", time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC), "pay"), act("500", time.Date(2026, 11, 15, 23, 59, 59, 0, time.UTC), "pay")}
		}, policy.ReasonWeeklyLimitExceeded, "95.00 USD spent since 2026-11-16T00:00:00Z); the budget resets at 2026-11-23T00:00:00Z"},
		{"calendar month's last second still counts the month", func(in *policy.Input) {
			in.Now = monthEnd
			in.Sender.Policy.Timezone = "America/New_York"
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowMonth, policy.ModeCalendar)}
			in.Outflow = []policy.Outflow{act("95", time.Date(2026, 11, 1, 0, 0, 0, 0, nyc), "pay")}
		}, policy.ReasonMonthlyLimitExceeded, "since 2026-11-01T00:00:00-04:00); the budget resets at 2026-12-01T00:00:00-05:00"},
		{"calendar month resets a second later", func(in *policy.Input) {
			in.Now = monthEnd.Add(time.Second)
			in.Sender.Policy.Timezone = "America/New_York"
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowMonth, policy.ModeCalendar)}
			in.Outflow = []policy.Outflow{act("95", monthEnd, "pay")}
		}, policy.ReasonOK, "remaining monthly budget of 100.00 USD"},
		{"calendar day across spring forward", func(in *policy.Input) {
			in.Now = dst
			in.Sender.Policy.Timezone = "America/New_York"
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeCalendar)}
			// Local midnight is 05:00 UTC (EST); the day is 23 hours long and resets at 04:00 UTC (EDT).
			in.Outflow = []policy.Outflow{act("95", time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC), "pay"), act("500", time.Date(2026, 3, 8, 4, 59, 59, 0, time.UTC), "pay")}
		}, policy.ReasonDailyLimitExceeded, "since 2026-03-08T00:00:00-05:00); the budget resets at 2026-03-09T00:00:00-04:00"},

		// Precedence: each case breaks the rule under test and every later one.
		{"action beats deny list", func(in *policy.Input) {
			in.Action = "nope"
			in.Sender.Policy.Counterparties.DenyAgents = []string{"agent_y"}
		}, policy.ReasonActionNotAuthorized, ""},
		{"deny beats not allowed", func(in *policy.Input) {
			in.Sender.Policy.Counterparties = policy.CounterpartyRules{AllowAgents: []string{"agent_z"}, DenyAgents: []string{"agent_y"}}
			in.SenderAssessment = policy.AssessmentHighRisk
		}, policy.ReasonCounterpartyBlocked, ""},
		{"not allowed beats trust", func(in *policy.Input) {
			in.Sender.Policy.Counterparties.AllowAgents = []string{"agent_z"}
			in.SenderAssessment = policy.AssessmentHighRisk
		}, policy.ReasonCounterpartyNotAllowed, ""},
		{"trust beats counterparty trust", func(in *policy.Input) {
			in.SenderAssessment = policy.AssessmentHighRisk
			in.Sender.Policy.MinCounterpartyScore = intp(900)
		}, policy.ReasonTrustTooLow, ""},
		{"counterparty trust beats amount", func(in *policy.Input) {
			in.Sender.Policy.MinCounterpartyScore = intp(900)
			in.Amount = amt("500")
		}, policy.ReasonCounterpartyTrustTooLow, ""},
		{"amount beats velocity", func(in *policy.Input) {
			in.Amount = amt("500")
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60}}
			in.Outflow = []policy.Outflow{act("1", now, "pay")}
		}, policy.ReasonAmountExceedsLimit, ""},
		{"velocity beats daily", func(in *policy.Input) {
			in.Sender.DailyLimit = ptr(amt("1"))
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 60}}
			in.Outflow = []policy.Outflow{act("1", now, "pay")}
		}, policy.ReasonVelocityLimitExceeded, ""},
		{"daily beats weekly whatever the list order", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("1", policy.WindowWeek, policy.ModeRolling), limit("1", policy.WindowDay, policy.ModeCalendar)}
		}, policy.ReasonDailyLimitExceeded, ""},
		{"weekly beats monthly", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("1", policy.WindowMonth, policy.ModeRolling), limit("1", policy.WindowWeek, policy.ModeCalendar)}
		}, policy.ReasonWeeklyLimitExceeded, ""},
		{"monthly beats total", func(in *policy.Input) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("1", policy.WindowTotal, policy.ModeRolling), limit("1", policy.WindowMonth, policy.ModeCalendar)}
		}, policy.ReasonMonthlyLimitExceeded, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := scored()
			tt.edit(&in)
			d := policy.Evaluate(in)
			if d.ReasonCode != tt.code {
				t.Fatalf("code = %q (%s), want %q", d.ReasonCode, d.Reason, tt.code)
			}
			if d.Allowed != (tt.code == policy.ReasonOK) {
				t.Errorf("allowed = %v with code %q", d.Allowed, d.ReasonCode)
			}
			if !strings.Contains(d.Reason, tt.substr) {
				t.Errorf("reason = %q\nwant it to contain %q", d.Reason, tt.substr)
			}
		})
	}
}

func TestSince(t *testing.T) {
	t.Parallel()
	p := policy.Party{}
	if got := p.Since(now); !got.Equal(now) || p.HasTotal() {
		t.Errorf("no limits: Since = %v, HasTotal %v; want now, false", got, p.HasTotal())
	}
	p.DailyLimit = ptr(amt("1"))
	if got := p.Since(now); !got.Equal(now.Add(-24 * time.Hour)) {
		t.Errorf("daily limit: Since = %v", got)
	}
	p.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 3 * 24 * 3600}}
	if got := p.Since(now); !got.Equal(now.Add(-72 * time.Hour)) {
		t.Errorf("velocity 3 d: Since = %v", got)
	}
	p.Policy.SpendLimits = []policy.SpendLimit{limit("1", policy.WindowMonth, policy.ModeCalendar), limit("1", policy.WindowTotal, policy.ModeRolling)}
	if got := p.Since(now); !got.Equal(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) || !p.HasTotal() {
		t.Errorf("calendar month and total: Since = %v, HasTotal %v", got, p.HasTotal())
	}
}

func TestPercent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a      string
		p      int64
		places int32
		want   string
	}{{"100", 50, 2, "50"}, {"0.05", 33, 2, "0.01"}, {"999", 1, 0, "9"}, {"123.45", 100, 2, "123.45"}} {
		if got := amt(tt.a).Percent(tt.p, tt.places); got.Cmp(money.MustParse(tt.want)) != 0 {
			t.Errorf("%s.Percent(%d, %d) = %s, want %s", tt.a, tt.p, tt.places, got, tt.want)
		}
	}
}

// An outflow standing for several transactions counts as that many toward
// velocity, and the next slot is when enough of them have left.
func TestVelocityCounts(t *testing.T) {
	t.Parallel()
	in := scored()
	in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 4, WindowSeconds: 3600}}
	in.Outflow = []policy.Outflow{{Amount: amt("3"), At: now.Add(-50 * time.Minute), Action: "pay", Count: 3}}
	if d := policy.Evaluate(in); !d.Allowed {
		t.Fatalf("3 of 4: %+v", d)
	}
	in.Outflow = append(in.Outflow, act("1", now.Add(-10*time.Minute), "pay"))
	d := policy.Evaluate(in)
	if d.ReasonCode != policy.ReasonVelocityLimitExceeded || !strings.Contains(d.Reason, "(4 in the last 3600 seconds); the next one is allowed at 2026-11-21T12:10:00Z") {
		t.Fatalf("4 of 4: %+v", d)
	}
	p := in.Sender
	p.DailyLimit = ptr(amt("1"))
	if got := p.Edges(now); len(got) != 2 || !got[0].Equal(now.Add(-24*time.Hour)) || !got[1].Equal(now.Add(-time.Hour)) {
		t.Fatalf("Edges = %v", got)
	}
}
