// Package trust computes an agent's trust score (0..1000) from decayed
// evidence counters, explains it as signed contributions per factor, and
// holds the pure rules of what each action does to those counters.
//
// # Model
//
// Every agent starts at a base of 500 ("no evidence either way"). Evidence
// from other organizations adds points, bad outcomes take points away, and
// the points of all factors add up to the score:
//
//	tenureDays        +100 · days/(days + 30)            days since the first transaction with another organization
//	volume            +250 · v/(v + 40)                  v = min(completed, 15 · counterpartyOrgs)
//	counterpartyOrgs  +150 · n/(n + 3)                   n = distinct other organizations transacted with
//	completionRate    −400 · f/(f + 10 + completed/10)   f = failed attempts: one weighs as ten completions
//	limitRefusals     −80 · l/(l + 10)                   l = refusals over the agent's own limits
//	reversalRate      −250 · r/(r + 10 + completed/5)    r = its sent transactions it reversed: one weighs as five completions
//	disputeRatio      −min(500, 90 · d)                  d = other organizations with open disputes against it
//	suspended         −80% of the rest, while suspended
//
// completed, f, l, r and d are decayed counters: each piece of evidence
// weighs 2^(−age/half-life), with the half-lives of [Weights] (30 days for
// completions and failures, 1 day for limit refusals, 90 days for reversals
// and disputes). When the penalties exceed base plus credit they are scaled
// down together so the score is exactly 0; the credit stays below 500, so the
// score stays below 1000.
//
// What counts is fixed by the actions in action.go: transactions within one
// organization add nothing, a refusal by the trust rule itself (trust_too_low)
// never counts, a reversal counts against its sender only, and a dispute
// from the agent's own organization counts for nothing; several disputes
// from one organization weigh as one.
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
	Base float64 // points of an agent without evidence

	TenurePoints, TenureHalfDays float64 // tenure credit and the days at which half of it is earned
	VolumePoints, VolumeHalf     float64 // volume credit and the counted completions at which half of it is earned
	VolumePerOrg                 float64 // completions counted per counterparty organization
	OrgPoints, OrgHalf           float64 // diversity credit and the organization count at which half of it is earned

	FailurePoints, FailurePrior   float64 // failure penalty at a failure share of 1, and the clean pseudo-attempts of that share
	FailureWeight                 float64 // completions one failure weighs as
	LimitPoints, LimitHalf        float64 // largest limit-refusal penalty and the count at which half of it applies
	ReversalPoints, ReversalPrior float64 // reversal penalty at a reversal share of 1, and the clean pseudo-transactions of that share
	ReversalWeight                float64 // completions one reversal weighs as
	DisputeOrgPoints, DisputeMax  float64 // penalty per disputing organization and its total cap

	SuspendedShare float64 // share of the score a suspension takes away

	CompletionHalfLife, FailureHalfLife, LimitHalfLife time.Duration
	ReversalHalfLife, DisputeHalfLife                  time.Duration

	ConfidenceHalf float64 // the evidence count at which confidence is 0.5
}

// Weights is the one place the factor weights and model parameters live.
var Weights = Model{
	Base:           500,
	TenurePoints:   100,
	TenureHalfDays: 30,
	VolumePoints:   250,
	VolumeHalf:     40,
	VolumePerOrg:   15,
	OrgPoints:      150,
	OrgHalf:        3,

	FailurePoints:    400,
	FailurePrior:     10,
	FailureWeight:    10,
	LimitPoints:      80,
	LimitHalf:        10,
	ReversalPoints:   250,
	ReversalPrior:    10,
	ReversalWeight:   5,
	DisputeOrgPoints: 90,
	DisputeMax:       500,

	SuspendedShare: 0.8,

	CompletionHalfLife: 30 * day,
	FailureHalfLife:    30 * day,
	LimitHalfLife:      1 * day,
	ReversalHalfLife:   90 * day,
	DisputeHalfLife:    90 * day,

	ConfidenceHalf: 10,
}

const day = 24 * time.Hour

// Factors are the observed inputs of a score at one moment, for explanation.
// Decayed counts are fractional.
type Factors struct {
	// CompletionRate is completed/(completed + failed attempts); 0 with neither.
	CompletionRate float64
	// DisputeRatio is open disputes over completed transactions, capped at 1.
	DisputeRatio float64
	// ReversalRate is reversals/(completed + reversals); 0 with neither.
	ReversalRate float64
	// TenureDays is the time since the first transaction with another organization.
	TenureDays float64
	// Volume is the decayed count of completed transactions with other organizations.
	Volume float64
	// Confidence is n/(n + ConfidenceHalf), n = completed + failures + limit refusals.
	Confidence float64
	// CounterpartyOrgs is the number of other organizations with a completed transaction.
	CounterpartyOrgs int
	// Failures is the decayed count of failed attempts (malformed or unauthorized requests).
	Failures float64
	// LimitRefusals is the decayed count of refusals over the agent's own limits.
	LimitRefusals float64
	// Reversals is the decayed count of its sent transactions it reversed.
	Reversals float64
	// DisputingOrgs is the decayed count of other organizations with open disputes against it.
	DisputingOrgs float64
	// OpenDisputes is the number of open disputes other organizations filed against it.
	OpenDisputes int
	// Suspended is 1 while the agent is suspended, else 0.
	Suspended int
}

// Result is a computed trust score with its assessment and factors. The
// contributions that explain it are computed only when asked for
// ([Result.Contributions]): most reads (a page's score and assessment, the
// policy, a stored score) never need their sentences.
type Result struct {
	Score      int     // 0..1000
	Assessment string  // Assess(Score)
	Factors    Factors // the observed inputs, for explanation

	c Counters // the counters decayed to the moment of the score
}

// Compute returns the deterministic trust score of an agent whose counters
// are decayed to now (see the package doc).
func Compute(c Counters, now time.Time) Result {
	c = c.DecayTo(now)
	f := factors(c, now)
	parts := points(c, f)
	score := scoreOf(&parts)
	return Result{Score: score, Assessment: Assess(score), Factors: f, c: c}
}

// Contributions explains the score: each factor's signed points, which add
// up to Score, with a sentence giving the numbers behind it, largest effect
// first. It is computed from the result's counters on every call.
func (r Result) Contributions() []Contribution {
	parts := points(r.c, r.Factors)
	return contributions(&parts, r.Score, r.c, r.Factors)
}

// scoreOf adds the parts up to the rounded, clamped score.
func scoreOf(parts *[numParts]part) int {
	total := 0.0
	for _, p := range parts {
		total += p.value
	}
	return clampScore(math.Round(total))
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

// factors reads the observed inputs from decayed counters.
func factors(c Counters, now time.Time) Factors {
	w := Weights
	f := Factors{
		CompletionRate:   ratio(c.Completed, c.Completed+c.Failures),
		ReversalRate:     ratio(c.Reversals, c.Completed+c.Reversals),
		Volume:           c.Completed,
		Confidence:       saturate(c.Completed+c.Failures+c.LimitRefusals, w.ConfidenceHalf),
		CounterpartyOrgs: int(max(c.CounterpartyOrgs, 0)),
		Failures:         c.Failures,
		LimitRefusals:    c.LimitRefusals,
		Reversals:        c.Reversals,
		DisputingOrgs:    c.DisputingOrgs,
		OpenDisputes:     int(max(c.OpenDisputes, 0)),
	}
	if f.OpenDisputes > 0 {
		f.DisputeRatio = 1
		if c.Completed > float64(f.OpenDisputes) {
			f.DisputeRatio = float64(f.OpenDisputes) / c.Completed
		}
	}
	if !c.FirstExternalAt.IsZero() && now.After(c.FirstExternalAt) {
		f.TenureDays = now.Sub(c.FirstExternalAt).Hours() / 24
	}
	if c.Suspended {
		f.Suspended = 1
	}
	return f
}

// part is one factor's unrounded points.
type part struct {
	factor string
	value  float64
}

// numParts is the number of contributions: the base, three credits, four
// penalties and the suspension.
const numParts = 9

// points computes every factor's signed points; they add up to the score
// before rounding.
func points(c Counters, f Factors) [numParts]part {
	w := Weights
	n := float64(f.CounterpartyOrgs)
	counted := math.Min(c.Completed, w.VolumePerOrg*n)
	out := [numParts]part{
		{FactorBase, w.Base},
		{FactorTenure, w.TenurePoints * saturate(f.TenureDays, w.TenureHalfDays)},
		{FactorVolume, w.VolumePoints * saturate(counted, w.VolumeHalf)},
		{FactorCounterpartyOrgs, w.OrgPoints * saturate(n, w.OrgHalf)},
		{FactorCompletion, -w.FailurePoints * weighedShare(c.Failures, c.Completed, w.FailurePrior, w.FailureWeight)},
		{FactorLimitRefusals, -w.LimitPoints * saturate(c.LimitRefusals, w.LimitHalf)},
		{FactorReversals, -w.ReversalPoints * weighedShare(c.Reversals, c.Completed, w.ReversalPrior, w.ReversalWeight)},
		{FactorDisputes, -math.Min(w.DisputeMax, w.DisputeOrgPoints*c.DisputingOrgs)},
		{FactorSuspended, 0},
	}
	credit, penalty := out[1:4], out[4:8]
	plus, minus := w.Base, 0.0
	for _, p := range credit {
		plus += p.value
	}
	for _, p := range penalty {
		minus -= p.value
	}
	if minus > plus { // penalties beyond everything: scale them so the score is exactly 0
		for i := range penalty {
			penalty[i].value *= plus / minus
		}
		minus = plus
	}
	if c.Suspended {
		out[8].value = -w.SuspendedShare * (plus - minus)
	}
	return out
}

// weighedShare is bad/(bad + prior + completed/weight): one bad outcome
// outweighs weight completions, so a day of failures moves even a long clean
// record, while the prior keeps a few bad outcomes of a new agent from
// sinking it.
func weighedShare(bad, completed, prior, weight float64) float64 {
	if bad <= 0 {
		return 0
	}
	return bad / (bad + prior + math.Max(completed, 0)/weight)
}

// saturate returns x/(x+half) in 0..1 (0 for x <= 0 or NaN).
func saturate(x, half float64) float64 {
	if !(x > 0) {
		return 0
	}
	if math.IsInf(x, 1) {
		return 1
	}
	return x / (x + half)
}

// ratio returns a/b clamped to 0..1, or 0 when b is not positive.
func ratio(a, b float64) float64 {
	if !(b > 0) || !(a > 0) {
		return 0
	}
	return math.Min(a/b, 1)
}

// clampScore bounds a raw score to MinScore..MaxScore; NaN becomes MinScore.
func clampScore(x float64) int {
	switch {
	case x >= MaxScore:
		return MaxScore
	case x >= MinScore:
		return int(x)
	default:
		return MinScore
	}
}
