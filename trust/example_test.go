package trust_test

import (
	"fmt"
	"time"

	"github.com/agenttrust/service/trust"
)

// The worked example of docs/trust.md: an agent trading with four other
// organizations for 40 days, with a few failures, limit refusals, one
// reversal and two open disputes from one organization. The counters are the
// decayed values at the moment of reading.
func ExampleCompute() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c := trust.Counters{
		At:               now,
		Completed:        41, // completed with other organizations, decayed (30-day half-life)
		Failures:         2,  // e.g. action_not_authorized refusals, decayed (30 days)
		LimitRefusals:    3,  // daily_limit_exceeded refusals, decayed (1 day)
		Reversals:        1,  // one transaction it sent and reversed (90 days)
		DisputingOrgs:    1,  // one other organization disputes it (90 days)
		OpenDisputes:     2,  // with two open disputes
		CounterpartyOrgs: 4,
		FirstExternalAt:  now.Add(-40 * 24 * time.Hour),
	}
	r := trust.Compute(c, now)
	fmt.Println(r.Score, r.Assessment)
	for _, p := range r.Contributions() {
		fmt.Printf("%-16s %4d  %s\n", p.Factor, p.Points, p.Description)
	}
	f := r.Factors
	fmt.Printf("completion %.4f, disputes %.4f, reversals %.4f, confidence %.4f\n", f.CompletionRate, f.DisputeRatio, f.ReversalRate, f.Confidence)
	// Output:
	// 598 Moderate
	// base              500  Every agent starts at 500, no evidence either way: +500
	// volume            127  41 completed transactions with other organizations in the last 30 days (decayed), 41 of them counted (at most 15 per organization): +127
	// disputeRatio      -90  2 open disputes from 1 other organization (decayed, 90-day half-life) over 41 transactions: −90
	// counterpartyOrgs   86  Completed transactions with 4 other organizations: +86
	// tenureDays         57  First transaction with another organization 40 days ago: +57
	// completionRate    -50  2 failed attempts against 41 completed transactions in the last 30 days (decayed; one failure weighs as 10 completions): −50
	// limitRefusals     -19  3 refusals over its own spending or daily limit in the last day (decayed): −19
	// reversalRate      -13  1 of its transactions reversed over 41 completed in the last 90 days (decayed; one reversal weighs as 5 completions): −13
	// suspended           0  The agent is active: 0
	// completion 0.9535, disputes 0.0488, reversals 0.0238, confidence 0.8214
}

func ExampleCompute_newAgent() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	r := trust.Compute(trust.Counters{At: now}, now)
	fmt.Println(r.Score, r.Assessment, r.Factors.Confidence)
	// Output: 500 Moderate 0
}

func ExampleAssess() {
	for _, s := range []int{399, 400, 699, 700} {
		fmt.Println(s, trust.Assess(s))
	}
	// Output:
	// 399 High Risk
	// 400 Moderate
	// 699 Moderate
	// 700 Verified
}
