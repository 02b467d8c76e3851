package policy_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/policy"
)

// A limit restricted to some actions counts and judges only those: every
// limit kind, with and without actions, the transaction's action inside
// and outside the list. Each limit is already used up by a transfer, so it
// refuses exactly when it judges the transaction.
func TestLimitJudgesOnlyItsActions(t *testing.T) {
	t.Parallel()
	kinds := []struct {
		name string
		set  func(in *policy.Input, actions []string)
		code string
	}{
		{"velocity", func(in *policy.Input, actions []string) {
			in.Sender.Policy.VelocityLimits = []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: 3600, Actions: actions}}
		}, policy.ReasonVelocityLimitExceeded},
		{"rolling day", func(in *policy.Input, actions []string) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{{Amount: amt("50"), Window: policy.WindowDay, Mode: policy.ModeRolling, Actions: actions}}
		}, policy.ReasonDailyLimitExceeded},
		{"calendar week", func(in *policy.Input, actions []string) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{{Amount: amt("50"), Window: policy.WindowWeek, Mode: policy.ModeCalendar, Actions: actions}}
		}, policy.ReasonWeeklyLimitExceeded},
		{"rolling month", func(in *policy.Input, actions []string) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{{Amount: amt("50"), Window: policy.WindowMonth, Mode: policy.ModeRolling, Actions: actions}}
		}, policy.ReasonMonthlyLimitExceeded},
		{"total", func(in *policy.Input, actions []string) {
			in.Sender.Policy.SpendLimits = []policy.SpendLimit{{Amount: amt("50"), Window: policy.WindowTotal, Actions: actions}}
		}, policy.ReasonTotalLimitExceeded},
	}
	for _, k := range kinds {
		for _, actions := range [][]string{nil, {"transfer"}, {"transfer", "refund"}} {
			for _, action := range []string{"transfer", "payment"} {
				judged := actions == nil || strings.Contains(strings.Join(actions, ","), action)
				name := fmt.Sprintf("%s/actions=%v/%s", k.name, actions, action)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					in := scored()
					in.Sender.AuthorizedActions = []string{"transfer", "payment", "refund"}
					in.Sender.SpendingLimit = amt("1000")
					in.Action, in.Amount = action, amt("20")
					in.Outflow = []policy.Outflow{act("50", now.Add(-time.Minute), "transfer")}
					k.set(&in, actions)
					d := policy.Evaluate(in)
					if judged && d.ReasonCode != k.code {
						t.Fatalf("judged: got %s (%s), want %s", d.ReasonCode, d.Reason, k.code)
					}
					if !judged && !d.Allowed {
						t.Fatalf("a limit on %v judged a %s: %s (%s)", actions, action, d.ReasonCode, d.Reason)
					}
				})
			}
		}
	}
}

// The example: a daily limit of 50 on transfer lets a payment of
// 200 through, and says nothing of the transfer budget in its reason.
func TestLimitOnOtherActionLeavesPaymentAlone(t *testing.T) {
	t.Parallel()
	in := scored()
	in.Sender.AuthorizedActions = []string{"transfer", "payment"}
	in.Sender.SpendingLimit = amt("1000")
	in.Sender.Policy.SpendLimits = []policy.SpendLimit{limit("50", policy.WindowDay, policy.ModeRolling, "transfer")}
	in.Action, in.Amount = "payment", amt("200")
	d := policy.Evaluate(in)
	if !d.Allowed || strings.Contains(d.Reason, "transfer") {
		t.Fatalf("payment of 200 under a transfer-only limit: %+v", d)
	}
}

// In zones whose daylight saving time starts at midnight the day begins
// when the skipped hour ends: the window and its reset time agree.
func TestCalendarDayWhereMidnightIsSkipped(t *testing.T) {
	t.Parallel()
	havana, err := time.LoadLocation("America/Havana")
	if err != nil {
		t.Skip("no America/Havana in this zone database")
	}
	// 2026-03-08 00:00 CST does not exist in Havana: clocks jump to 01:00 CDT (05:00 UTC).
	dayStart := time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC)
	l := limit("100", policy.WindowDay, policy.ModeCalendar)
	before := l.SpanAt(time.Date(2026, 3, 7, 20, 0, 0, 0, havana), havana)
	if !before.Until.Equal(dayStart) {
		t.Errorf("7 March resets at %v, want %v", before.Until.UTC(), dayStart)
	}
	on := l.SpanAt(time.Date(2026, 3, 8, 12, 0, 0, 0, havana), havana)
	if !on.From.Equal(dayStart) {
		t.Errorf("8 March starts at %v, want %v", on.From.UTC(), dayStart)
	}
	// A week (Monday 2026-03-09 exists normally) and the reason's reset text.
	in := scored()
	in.Now = time.Date(2026, 3, 7, 20, 0, 0, 0, havana)
	in.Sender.Policy.Timezone = "America/Havana"
	in.Sender.Policy.SpendLimits = []policy.SpendLimit{l}
	in.Outflow = []policy.Outflow{act("95", in.Now.Add(-time.Hour), "pay")}
	d := policy.Evaluate(in)
	if want := "the budget resets at 2026-03-08T01:00:00-04:00"; !strings.Contains(d.Reason, want) {
		t.Errorf("reason %q\nwant it to contain %q", d.Reason, want)
	}
	// Month start where the 1st's midnight exists is unchanged.
	m := limit("100", policy.WindowMonth, policy.ModeCalendar).SpanAt(time.Date(2026, 3, 8, 12, 0, 0, 0, havana), havana)
	if !m.From.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, havana)) {
		t.Errorf("March starts at %v", m.From)
	}
}
