// Package trust computes an agent's trust score (0..1000) from explainable
// factors kept as per-agent counters.
//
// # Model
//
// Tenure and volume make a base in 0..1 where 0.5 means "no evidence either
// way"; failed attempts, disputes and reversals multiply it by penalties:
//
//	base        = 0.25·(0.5 + 0.5·days/(days + 30)) + 0.75·(0.5 + 0.5·transactions/(transactions + 50))
//	p_failures  = max(0.05, 1 − (failures/(attempts + 20)) / 1.00)
//	p_disputes  = max(0.05, 1 − (disputes/(transactions + 20)) / 0.25)
//	p_reversals = max(0.05, 1 − (reversed/(transactions + 20)) / 0.40)
//	score       = round(1000 · base · p_failures · p_disputes · p_reversals · (suspended ? 0.2 : 1))
//
// failures = attempts − completed-and-not-reversed (refused attempts fail).
// The 20 pseudo-events without a bad outcome in each denominator are the
// prior: a new agent scores exactly 500, five clean transactions about 530,
// and one dispute or reversal on a one-transaction history costs about 10 to
// 20%, not everything; a sustained failure, dispute or reversal ratio drives
// the score to High Risk whatever the rest of the record. Confidence =
// n/(n + 10) with n = transactions + refused attempts. Every parameter lives
// in [Weights].
package trust

import (
	"math"
	"time"
)

// Assessment labels returned by [Assess].
const (
	// Verified is the assessment for scores of VerifiedMin and above.
	Verified = "Verified"
	// Moderate is the assessment for scores from ModerateMin to VerifiedMin−1.
	Moderate = "Moderate"
	// HighRisk is the assessment for scores below ModerateMin.
	HighRisk = "High Risk"
)

// Score bounds and assessment thresholds.
const (
	// MinScore is the lowest possible score.
	MinScore = 0
	// MaxScore is the highest possible score.
	MaxScore = 1000
	// VerifiedMin is the lowest score assessed as Verified.
	VerifiedMin = 700
	// ModerateMin is the lowest score assessed as Moderate.
	ModerateMin = 400
)

// Model holds every weight and parameter of the score.
type Model struct {
	// Tenure and Volume weight the base; they sum to 1.
	Tenure float64
	Volume float64
	// Prior is the number of pseudo-observations without a bad outcome added
	// to every penalty's denominator, so small samples cannot be extreme.
	Prior float64
	// FailureTolerance, DisputeTolerance and ReversalTolerance are the
	// smoothed ratios at which each penalty multiplier reaches PenaltyFloor.
	FailureTolerance  float64
	DisputeTolerance  float64
	ReversalTolerance float64
	// PenaltyFloor is the smallest penalty multiplier.
	PenaltyFloor float64
	// TenureHalfDays is the tenure at which the tenure quality is 0.75.
	TenureHalfDays float64
	// VolumeHalf is the transaction count at which the volume quality is 0.75.
	VolumeHalf float64
	// ConfidenceHalf is the evidence count at which confidence is 0.5.
	ConfidenceHalf float64
	// SuspendedMultiplier scales the score of a suspended agent.
	SuspendedMultiplier float64
}

// Weights is the one place the factor weights and model parameters live.
var Weights = Model{
	Tenure: 0.25,
	Volume: 0.75,

	Prior:               20,
	FailureTolerance:    1.00,
	DisputeTolerance:    0.25,
	ReversalTolerance:   0.40,
	PenaltyFloor:        0.05,
	TenureHalfDays:      30,
	VolumeHalf:          50,
	ConfidenceHalf:      10,
	SuspendedMultiplier: 0.2,
}

// Counters are the per-agent tallies kept incrementally in the database.
type Counters struct {
	Attempts     int64 // executes attempted as sender: completed + refused
	Completed    int64 // completed as sender, including later reversed ones
	Refused      int64 // refused by policy as sender
	Reversed     int64 // the agent's transactions (either side) that were reversed
	Disputes     int64 // disputes filed against the agent
	Transactions int64 // transactions the agent took part in (either side, completed incl. reversed)
	Suspended    bool
	RegisteredAt time.Time
}

// Factors are the observed, unsmoothed inputs of a score, for explanation.
type Factors struct {
	// CompletionRate is (Completed − Reversed)/Attempts clamped to 0..1; 0 with no attempts.
	// Reversed counts both sides, so this is a conservative lower bound.
	CompletionRate float64
	// DisputeRatio is Disputes/Transactions capped at 1; 0 with no transactions.
	DisputeRatio float64
	// ReversalRate is Reversed/Transactions capped at 1; 0 with no transactions.
	ReversalRate float64
	// TenureDays is the time since registration in days (0 if unknown or in the future).
	TenureDays float64
	// Volume is the transaction count (Transactions).
	Volume float64
	// Confidence is n/(n+Weights.ConfidenceHalf) with n = Transactions + Refused, in 0..1.
	Confidence float64
}

// Result is a computed trust score with its assessment and factors.
type Result struct {
	Score      int     // 0..1000
	Assessment string  // Assess(Score)
	Factors    Factors // the observed inputs, for explanation
}

// qualities are the smoothed inputs that enter the score.
type qualities struct {
	Tenure, Volume                                  float64 // 0.5..1, 0.5 = no evidence
	FailurePenalty, DisputePenalty, ReversalPenalty float64 // PenaltyFloor..1, 1 = no penalty
}

// Compute returns the deterministic trust score of an agent at time now (see the package doc).
func Compute(c Counters, now time.Time) Result {
	f, q := evaluate(c, now)
	w := Weights
	p := (w.Tenure*q.Tenure + w.Volume*q.Volume) * q.FailurePenalty * q.DisputePenalty * q.ReversalPenalty
	if c.Suspended {
		p *= w.SuspendedMultiplier
	}
	score := clampScore(math.Round(MaxScore * p))
	return Result{Score: score, Assessment: Assess(score), Factors: f}
}

// Assess maps a score to Verified (>= 700), Moderate (400..699) or High Risk (< 400).
func Assess(score int) string {
	switch {
	case score >= VerifiedMin:
		return Verified
	case score >= ModerateMin:
		return Moderate
	default:
		return HighRisk
	}
}

// evaluate computes the raw factors and the smoothed qualities.
func evaluate(c Counters, now time.Time) (Factors, qualities) {
	w := Weights
	attempts := nonNeg(c.Attempts)
	txs := nonNeg(c.Transactions)
	reversed := math.Min(nonNeg(c.Reversed), txs)
	disputes := math.Min(nonNeg(c.Disputes), txs)
	good := clamp(nonNeg(c.Completed)-nonNeg(c.Reversed), 0, attempts)
	days := tenureDays(c.RegisteredAt, now)
	evidence := txs + nonNeg(c.Refused)

	f := Factors{
		CompletionRate: ratio(good, attempts),
		DisputeRatio:   ratio(disputes, txs),
		ReversalRate:   ratio(reversed, txs),
		TenureDays:     days,
		Volume:         txs,
		Confidence:     saturate(evidence, w.ConfidenceHalf),
	}
	q := qualities{
		Tenure:          0.5 + 0.5*saturate(days, w.TenureHalfDays),
		Volume:          0.5 + 0.5*saturate(txs, w.VolumeHalf),
		FailurePenalty:  penalty(attempts-good, attempts, w.FailureTolerance),
		DisputePenalty:  penalty(disputes, txs, w.DisputeTolerance),
		ReversalPenalty: penalty(reversed, txs, w.ReversalTolerance),
	}
	return f, q
}

// penalty smooths bad/n towards 0 with Prior pseudo-observations and maps
// the smoothed ratio linearly from 1 (none) down to PenaltyFloor (at tol).
func penalty(bad, n, tol float64) float64 {
	smoothed := bad / (n + Weights.Prior)
	return clamp(1-smoothed/tol, Weights.PenaltyFloor, 1)
}

// saturate returns x/(x+half) in 0..1 (0 for x <= 0).
func saturate(x, half float64) float64 {
	if x <= 0 {
		return 0
	}
	return x / (x + half)
}

// ratio returns a/b clamped to 0..1, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return clamp(a/b, 0, 1)
}

// tenureDays is the whole-and-fractional days between registration and now.
func tenureDays(registered, now time.Time) float64 {
	if registered.IsZero() || !now.After(registered) {
		return 0
	}
	return now.Sub(registered).Hours() / 24
}

// nonNeg converts a counter to float64, treating negative values as 0.
func nonNeg(v int64) float64 {
	if v < 0 {
		return 0
	}
	return float64(v)
}

// clamp bounds x to [lo, hi]; NaN becomes lo.
func clamp(x, lo, hi float64) float64 {
	if x >= hi {
		return hi
	}
	if x >= lo {
		return x
	}
	return lo
}

// clampScore bounds a raw score to MinScore..MaxScore; NaN becomes MinScore.
func clampScore(x float64) int {
	return int(clamp(x, MinScore, MaxScore))
}
