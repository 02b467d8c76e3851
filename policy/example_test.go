package policy_test

import (
	"fmt"
	"time"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

func ExampleEvaluate() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	daily := money.MustParse("100")
	in := policy.Input{
		Sender: policy.Party{
			ID: "agent_x", Status: policy.StatusActive, Environment: "sandbox", Currency: "USD",
			AuthorizedActions: []string{"pay"}, SpendingLimit: money.MustParse("100"), DailyLimit: &daily,
		},
		Action:   "pay",
		Amount:   money.MustParse("30"),
		Currency: "USD",
		Now:      now,
		Outflow: []policy.Outflow{
			{Amount: money.MustParse("50"), At: now.Add(-4 * time.Hour)},
			{Amount: money.MustParse("30"), At: time.Date(2026, 11, 20, 19, 51, 27, 0, time.UTC)},
		},
	}
	d := policy.Evaluate(in)
	fmt.Println(d.Allowed, d.ReasonCode)
	fmt.Println(d.Reason)

	in.Amount = money.MustParse("20")
	d = policy.Evaluate(in)
	fmt.Println(d.Allowed, d.ReasonCode)
	fmt.Println(d.Reason)
	// Output:
	// false daily_limit_exceeded
	// amount 30.00 USD exceeds the remaining daily budget of 20.00 USD (limit 100.00 USD, 80.00 USD spent in the last 24 hours); 30.00 USD frees up at 2026-11-21T19:51:27Z
	// true ok
	// allowed: amount 20.00 USD is within the spending limit of 100.00 USD and the remaining daily budget of 20.00 USD
}

func ExampleUsageAt() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	limit := money.MustParse("100")
	in := policy.Input{Now: now, Sender: policy.Party{Currency: "USD", DailyLimit: &limit}, Outflow: []policy.Outflow{
		{Amount: money.MustParse("12.5"), At: now.Add(-time.Hour)},
		{Amount: money.MustParse("40"), At: now.Add(-policy.Window)}, // exactly 24h old: no longer counts
	}}
	day := policy.UsageAt(in).SpendLimits[0]
	fmt.Println(day.Window, day.Used, day.Remaining, day.FreesUpAt.Format(time.RFC3339))
	// Output: day 12.5 87.5 2026-11-22T11:00:00Z
}
