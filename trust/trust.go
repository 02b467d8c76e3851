// Package trust computes an agent's trust score (0..1000) from explainable
// factors kept as per-agent counters.
//
// # Model
//
// Every factor is turned into a quality q in [0, 1], where 0.5 means
// "no evidence either way" and 1 means "as good as it gets":
//
//   - completion: the failure rate f = 1 − completed-and-not-reversed/attempts
//     (refused attempts count as failures);
//   - disputes: the dispute ratio disputes/transactions;
//   - reversals: the reversal rate reversed/transactions.
//
// Each of these "bad-event" rates is smoothed with a Bayesian average whose
// prior mean is half of the factor's tolerance (the rate at which the
// quality reaches 0) and whose prior strength is [Weights].PriorStrength
// pseudo-observations:
//
//	smoothed = (bad + m·tol/2) / (n + m)
//	q        = 1 − min(1, smoothed/tol)
//
// so an agent without history has q = 0.5 and a handful of perfect
// transactions cannot produce an extreme score. The experience factors rise
// from 0.5 towards 1 with a saturating curve:
//
//	q_tenure = 0.5 + 0.5·days/(days + TenureHalfDays)
//	q_volume = 0.5 + 0.5·transactions/(transactions + VolumeHalf)
//
// The score is the weighted geometric mean of the qualities (weights sum to
// 1), scaled to 0..1000, multiplied by SuspendedMultiplier for a suspended
// agent, rounded and clamped:
//
//	score = round(1000 · Π q_i^w_i · (suspended ? SuspendedMultiplier : 1))
//
// A geometric mean lets one very bad factor (say 10% disputes, q = 0) pull
// the score down to High Risk no matter how good the others are, while all
// qualities equal to q give exactly 1000·q (a new agent scores 500).
//
// Confidence = n/(n + PriorStrength) with n = transactions + refused
// attempts: the share of a Bayesian average that comes from observed data
// rather than from the prior.
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

// Model holds every tunable parameter of the scoring model.
type Model struct {
	// Completion is the weight of the completion quality.
	Completion float64
	// Disputes is the weight of the dispute quality.
	Disputes float64
	// Reversals is the weight of the reversal quality.
	Reversals float64
	// Tenure is the weight of the tenure quality.
	Tenure float64
	// Volume is the weight of the volume quality.
	Volume float64

	// PriorStrength is the number of pseudo-observations of the prior in
	// every Bayesian average, and the k of Confidence = n/(n+k).
	PriorStrength float64
	// FailureTolerance is the failure rate (1 − completion rate) at which the completion quality reaches 0.
	FailureTolerance float64
	// DisputeTolerance is the dispute ratio at which the dispute quality reaches 0.
	DisputeTolerance float64
	// ReversalTolerance is the reversal rate at which the reversal quality reaches 0.
	ReversalTolerance float64
	// TenureHalfDays is the tenure in days at which the tenure quality is 0.75.
	TenureHalfDays float64
	// VolumeHalf is the transaction count at which the volume quality is 0.75.
	VolumeHalf float64
	// SuspendedMultiplier scales the score of a suspended agent.
	SuspendedMultiplier float64
}

// Weights is the one place the factor weights and model parameters live.
// The five factor weights sum to 1.
var Weights = Model{
	Completion: 0.25,
	Disputes:   0.30,
	Reversals:  0.20,
	Tenure:     0.10,
	Volume:     0.15,

	PriorStrength:       10,
	FailureTolerance:    0.50,
	DisputeTolerance:    0.05,
	ReversalTolerance:   0.10,
	TenureHalfDays:      30,
	VolumeHalf:          50,
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
	// Confidence is n/(n+PriorStrength) with n = Transactions + Refused, in 0..1.
	Confidence float64
}

// Result is a computed trust score with its assessment and factors.
type Result struct {
	Score      int     // 0..1000
	Assessment string  // Assess(Score)
	Factors    Factors // the observed inputs, for explanation
}

// qualities are the per-factor qualities in 0..1 that enter the score.
type qualities struct {
	Completion, Disputes, Reversals, Tenure, Volume float64
}

// Compute returns the deterministic trust score of an agent at time now.
func Compute(c Counters, now time.Time) Result {
	f, q := evaluate(c, now)
	w := Weights
	p := math.Pow(q.Completion, w.Completion) *
		math.Pow(q.Disputes, w.Disputes) *
		math.Pow(q.Reversals, w.Reversals) *
		math.Pow(q.Tenure, w.Tenure) *
		math.Pow(q.Volume, w.Volume)
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
		Confidence:     saturate(evidence, w.PriorStrength),
	}
	q := qualities{
		Completion: badRateQuality(attempts-good, attempts, w.FailureTolerance),
		Disputes:   badRateQuality(disputes, txs, w.DisputeTolerance),
		Reversals:  badRateQuality(reversed, txs, w.ReversalTolerance),
		Tenure:     0.5 + 0.5*saturate(days, w.TenureHalfDays),
		Volume:     0.5 + 0.5*saturate(txs, w.VolumeHalf),
	}
	return f, q
}

// badRateQuality smooths bad/n with a prior of mean tol/2 and maps it to 1..0.
func badRateQuality(bad, n, tol float64) float64 {
	m := Weights.PriorStrength
	smoothed := (bad + m*tol/2) / (n + m)
	return clamp(1-smoothed/tol, 0, 1)
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
