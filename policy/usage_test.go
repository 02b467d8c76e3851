package policy_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

// UsageAt agrees with Evaluate for every window kind and mode, with a
// trust tier and with actions: the remaining amount passes, a cent more is
// refused with the window's code.
func TestUsageAgreesWithEvaluate(t *testing.T) {
	t.Parallel()
	nyc, _ := time.LoadLocation("America/New_York")
	flows := []policy.Outflow{
		act("7.50", now.Add(-20*time.Minute), "pay"),
		act("12", now.Add(-5*time.Hour), "pay"),
		act("30", now.Add(-3*24*time.Hour), "pay"),
		act("25", now.Add(-20*24*time.Hour), "pay"),
		act("100", now.Add(-90*24*time.Hour), "pay"),
		act("40", now.Add(-2*time.Hour), "read"),
	}
	for _, w := range []policy.LimitWindow{policy.WindowDay, policy.WindowWeek, policy.WindowMonth, policy.WindowTotal} {
		for _, m := range []policy.WindowMode{policy.ModeRolling, policy.ModeCalendar} {
			for _, actions := range [][]string{nil, {"pay"}} {
				name := fmt.Sprintf("%s/%s/%v", w, m, actions)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					in := scored()
					in.Sender.SpendingLimit = amt("100000")
					in.Sender.Policy.Timezone = "America/New_York"
					in.Sender.Policy.TrustTiers = []policy.TrustTier{{MinScore: 600, LimitPercent: 80}}
					in.Sender.Policy.SpendLimits = []policy.SpendLimit{{Amount: amt("500"), Window: w, Mode: m, Actions: actions}}
					in.Outflow = flows
					u := policy.UsageAt(in)
					if len(u.SpendLimits) != 1 {
						t.Fatalf("usage: %+v", u)
					}
					lu := u.SpendLimits[0]
					if lu.Limit.Cmp(amt("400")) != 0 || lu.Used.Add(lu.Remaining).Cmp(lu.Limit) != 0 {
						t.Fatalf("limit %s used %s remaining %s", lu.Limit, lu.Used, lu.Remaining)
					}
					in.Amount = lu.Remaining
					if d := policy.Evaluate(in); !d.Allowed {
						t.Fatalf("remaining %s refused: %s", lu.Remaining, d.Reason)
					}
					in.Amount = lu.Remaining.Add(amt("0.01"))
					d := policy.Evaluate(in)
					if d.Allowed || d.ReasonCode != map[policy.LimitWindow]string{policy.WindowDay: policy.ReasonDailyLimitExceeded,
						policy.WindowWeek: policy.ReasonWeeklyLimitExceeded, policy.WindowMonth: policy.ReasonMonthlyLimitExceeded,
						policy.WindowTotal: policy.ReasonTotalLimitExceeded}[w] {
						t.Fatalf("a cent over remaining: %+v", d)
					}
					switch {
					case w == policy.WindowTotal:
						if lu.ResetsAt != nil || lu.FreesUpAt != nil {
							t.Errorf("total: resetsAt %v freesUpAt %v", lu.ResetsAt, lu.FreesUpAt)
						}
					case m == policy.ModeCalendar:
						span := in.Sender.Policy.SpendLimits[0].SpanAt(now, nyc)
						if lu.ResetsAt == nil || !lu.ResetsAt.Equal(span.Until) || lu.FreesUpAt != nil {
							t.Errorf("calendar: resetsAt %v, want %v", lu.ResetsAt, span.Until)
						}
					default:
						if lu.FreesUpAt == nil || lu.ResetsAt != nil {
							t.Fatalf("rolling: freesUpAt %v resetsAt %v", lu.FreesUpAt, lu.ResetsAt)
						}
					}
				})
			}
		}
	}
}

func TestUsageFigures(t *testing.T) {
	t.Parallel()
	in := scored()
	in.Sender.DailyLimit = ptr(amt("50"))
	in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("20", policy.WindowWeek, policy.ModeRolling, "read")}
	in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 5, WindowSeconds: 3600}, {MaxCount: 2, WindowSeconds: 60, Actions: []string{"read"}}}
	in.Outflow = []policy.Outflow{
		act("30", now.Add(-10*time.Hour), "pay"),
		act("25", now.Add(-30*time.Minute), "read"),
		{Amount: amt("3"), At: now.Add(-40 * time.Minute), Action: "pay", Count: 3},
	}
	u := policy.UsageAt(in)
	day, week := u.SpendLimits[0], u.SpendLimits[1]
	if day.Window != policy.WindowDay || day.Used.Cmp(amt("58")) != 0 || !day.Remaining.IsZero() {
		t.Errorf("day (listed first): %+v", day)
	}
	if want := now.Add(-10 * time.Hour).Add(24 * time.Hour); day.FreesUpAt == nil || !day.FreesUpAt.Equal(want) {
		t.Errorf("day frees up at %v, want %v", day.FreesUpAt, want)
	}
	if week.Used.Cmp(amt("25")) != 0 || !week.Remaining.IsZero() || week.Limit.Cmp(amt("20")) != 0 {
		t.Errorf("week on read: %+v", week)
	}
	if v := u.VelocityLimits; len(v) != 2 || v[0].Count != 4 || v[1].Count != 0 || v[0].MaxCount != 5 {
		t.Errorf("velocity: %+v", v)
	}
	empty := policy.UsageAt(policy.Input{Sender: policy.Party{Currency: money.Currency("USD")}, Now: now})
	if empty.SpendLimits == nil || empty.VelocityLimits == nil || len(empty.SpendLimits)+len(empty.VelocityLimits) != 0 {
		t.Errorf("no limits: %+v", empty)
	}
}
