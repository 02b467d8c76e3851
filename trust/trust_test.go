package trust_test

import (
	"math"
	"testing"
	"time"

	"github.com/agenttrust/service/trust"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func daysAgo(n int) time.Time { return now.Add(-time.Duration(n) * 24 * time.Hour) }

func perfect(n int64, days int) trust.Counters {
	return trust.Counters{Attempts: n, Completed: n, Transactions: n, RegisteredAt: daysAgo(days)}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	const maxI = math.MaxInt64
	withDisputes := perfect(100, 30)
	withDisputes.Disputes = 20
	withReversals := perfect(100, 30)
	withReversals.Reversed = 30
	suspended := perfect(5000, 90)
	suspended.Suspended = true
	refusals := trust.Counters{Attempts: 100, Completed: 30, Refused: 70, Transactions: 30, RegisteredAt: daysAgo(30)}

	tests := []struct {
		name     string
		c        trust.Counters
		min, max int
		assess   string
		maxConf  float64 // Confidence must be <= maxConf
		minConf  float64 // Confidence must be >= minConf
	}{
		{"new agent", trust.Counters{RegisteredAt: now}, 500, 500, trust.Moderate, 0, 0},
		{"zero value counters", trust.Counters{}, 500, 500, trust.Moderate, 0, 0},
		{"perfect 5, new", perfect(5, 0), 510, 699, trust.Moderate, 0.5, 0},
		{"perfect 5, one year", perfect(5, 365), 510, 699, trust.Moderate, 0.5, 0},
		{"perfect 5000 over 90 days", perfect(5000, 90), 850, 1000, trust.Verified, 1, 0.99},
		{"20% disputes", withDisputes, 0, 399, trust.HighRisk, 1, 0.9},
		{"30% reversals", withReversals, 0, 399, trust.HighRisk, 1, 0.9},
		{"70% refused", refusals, 0, 399, trust.HighRisk, 1, 0.9},
		{"suspended perfect record", suspended, 0, 399, trust.HighRisk, 1, 0.99},
		{"suspended new agent", trust.Counters{Suspended: true}, 0, 399, trust.HighRisk, 0, 0},
		{"disputes exceed transactions", trust.Counters{Attempts: 3, Completed: 3, Transactions: 3, Disputes: 1000}, 0, 399, trust.HighRisk, 1, 0},
		{"max perfect", trust.Counters{Attempts: maxI, Completed: maxI, Transactions: maxI, RegisteredAt: time.Unix(0, 0)}, 1000, 1000, trust.Verified, 1, 1},
		{"max everything bad", trust.Counters{Attempts: maxI, Refused: maxI, Reversed: maxI, Disputes: maxI, Transactions: maxI}, 0, 0, trust.HighRisk, 1, 1},
		{"max all counters", trust.Counters{Attempts: maxI, Completed: maxI, Refused: maxI, Reversed: maxI, Disputes: maxI, Transactions: maxI, Suspended: true}, 0, 0, trust.HighRisk, 1, 1},
		{"negative counters", trust.Counters{Attempts: -5, Completed: -1, Refused: math.MinInt64, Reversed: -3, Disputes: -2, Transactions: -9}, 500, 500, trust.Moderate, 0, 0},
		{"completed exceeds attempts", trust.Counters{Attempts: 1, Completed: 50, Transactions: 50}, 0, 1000, "", 1, 0},
		{"registered in the future", trust.Counters{RegisteredAt: now.Add(time.Hour)}, 500, 500, trust.Moderate, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := trust.Compute(tt.c, now)
			if r.Score < tt.min || r.Score > tt.max {
				t.Errorf("score = %d, want %d..%d", r.Score, tt.min, tt.max)
			}
			if r.Score < trust.MinScore || r.Score > trust.MaxScore {
				t.Errorf("score %d out of bounds", r.Score)
			}
			if tt.assess != "" && r.Assessment != tt.assess {
				t.Errorf("assessment = %q, want %q", r.Assessment, tt.assess)
			}
			if r.Assessment != trust.Assess(r.Score) {
				t.Errorf("assessment %q inconsistent with score %d", r.Assessment, r.Score)
			}
			f := r.Factors
			if f.Confidence > tt.maxConf || f.Confidence < tt.minConf {
				t.Errorf("confidence = %v, want %v..%v", f.Confidence, tt.minConf, tt.maxConf)
			}
			for name, v := range map[string]float64{"completion": f.CompletionRate, "dispute": f.DisputeRatio, "reversal": f.ReversalRate, "confidence": f.Confidence} {
				if math.IsNaN(v) || v < 0 || v > 1 {
					t.Errorf("%s = %v, want 0..1", name, v)
				}
			}
			if math.IsNaN(f.TenureDays) || f.TenureDays < 0 || math.IsNaN(f.Volume) || f.Volume < 0 {
				t.Errorf("bad factors %+v", f)
			}
			if again := trust.Compute(tt.c, now); again != r {
				t.Errorf("not deterministic: %+v vs %+v", r, again)
			}
		})
	}
}

func TestFactors(t *testing.T) {
	t.Parallel()
	c := trust.Counters{Attempts: 10, Completed: 8, Refused: 2, Reversed: 1, Disputes: 3, Transactions: 20, RegisteredAt: now.Add(-36 * time.Hour)}
	got := trust.Compute(c, now).Factors
	want := trust.Factors{CompletionRate: 0.7, DisputeRatio: 0.15, ReversalRate: 0.05, TenureDays: 1.5, Volume: 20, Confidence: 22.0 / 32.0}
	if !near(got.CompletionRate, want.CompletionRate) || !near(got.DisputeRatio, want.DisputeRatio) ||
		!near(got.ReversalRate, want.ReversalRate) || !near(got.TenureDays, want.TenureDays) ||
		!near(got.Volume, want.Volume) || !near(got.Confidence, want.Confidence) {
		t.Errorf("factors = %+v, want %+v", got, want)
	}
	capped := trust.Compute(trust.Counters{Transactions: 2, Disputes: 7, Reversed: 9}, now).Factors
	if capped.DisputeRatio != 1 || capped.ReversalRate != 1 {
		t.Errorf("ratios not capped: %+v", capped)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

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

func TestWeightsSumToOne(t *testing.T) {
	t.Parallel()
	w := trust.Weights
	if sum := w.Tenure + w.Volume; !near(sum, 1) {
		t.Errorf("weights sum to %v, want 1", sum)
	}
}

func TestMonotonic(t *testing.T) {
	t.Parallel()
	bases := []trust.Counters{perfect(0, 0), perfect(5, 3), perfect(100, 30), perfect(5000, 90),
		{Attempts: 40, Completed: 30, Refused: 10, Transactions: 60, Reversed: 4, RegisteredAt: daysAgo(12)}}
	for _, base := range bases {
		for k := int64(0); k <= 120; k++ {
			c := base
			c.Disputes = k
			more := c
			more.Disputes++
			if a, b := trust.Compute(c, now).Score, trust.Compute(more, now).Score; b > a {
				t.Fatalf("%+v: one more dispute raised the score %d -> %d", c, a, b)
			}
			c.Disputes, more.Disputes = 0, 0
			c.Reversed = k
			more.Reversed = k + 1
			if a, b := trust.Compute(c, now).Score, trust.Compute(more, now).Score; b > a {
				t.Fatalf("%+v: one more reversal raised the score %d -> %d", c, a, b)
			}
			susp := c
			susp.Suspended = true
			if a, b := trust.Compute(c, now).Score, trust.Compute(susp, now).Score; b > a {
				t.Fatalf("%+v: suspension raised the score %d -> %d", c, a, b)
			}
		}
	}
}

func TestMoreCleanHistoryHelps(t *testing.T) {
	t.Parallel()
	prev := -1
	for _, n := range []int64{0, 1, 5, 50, 500, 5000, 50000} {
		s := trust.Compute(perfect(n, 90), now).Score
		if s < prev {
			t.Errorf("perfect %d scored %d, below %d for less history", n, s, prev)
		}
		prev = s
	}
}

func TestSmallSamplesStayModerate(t *testing.T) {
	t.Parallel()
	young := daysAgo(0)
	for name, c := range map[string]trust.Counters{
		"one reversed transaction and one refusal": {Attempts: 2, Completed: 1, Refused: 1, Reversed: 1, Transactions: 1, RegisteredAt: young},
		"one dispute on one transaction":           {Attempts: 1, Completed: 1, Disputes: 1, Transactions: 1, RegisteredAt: young},
	} {
		if r := trust.Compute(c, now); r.Assessment != trust.Moderate {
			t.Errorf("%s: %d %s, want Moderate", name, r.Score, r.Assessment)
		}
	}
}
