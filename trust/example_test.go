package trust_test

import (
	"fmt"
	"time"

	"github.com/agenttrust/service/trust"
)

// The worked example of the README: an agent with a mostly clean history.
func ExampleCompute() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	c := trust.Counters{
		Attempts:     52, // 48 completed + 4 refused as sender
		Completed:    48,
		Refused:      4,
		Reversed:     1,
		Disputes:     1,
		Transactions: 60, // 48 sent + 12 received
		RegisteredAt: now.Add(-45 * 24 * time.Hour),
	}
	r := trust.Compute(c, now)
	f := r.Factors
	fmt.Println(r.Score, r.Assessment)
	fmt.Printf("completion %.4f, disputes %.4f, reversals %.4f\n", f.CompletionRate, f.DisputeRatio, f.ReversalRate)
	fmt.Printf("tenure %.0f days, volume %.0f, confidence %.4f\n", f.TenureDays, f.Volume, f.Confidence)
	// Output:
	// 668 Moderate
	// completion 0.9038, disputes 0.0167, reversals 0.0167
	// tenure 45 days, volume 60, confidence 0.8649
}

func ExampleCompute_newAgent() {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	r := trust.Compute(trust.Counters{RegisteredAt: now}, now)
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
