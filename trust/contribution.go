package trust

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Factor names of contributions: "base" or a TrustFactors field name.
const (
	FactorBase             = "base"
	FactorTenure           = "tenureDays"
	FactorVolume           = "volume"
	FactorCounterpartyOrgs = "counterpartyOrgs"
	FactorCompletion       = "completionRate"
	FactorLimitRefusals    = "limitRefusals"
	FactorReversals        = "reversalRate"
	FactorDisputes         = "disputeRatio"
	FactorSuspended        = "suspended"
)

// Contribution is one factor's signed effect on the score, like a credit
// score's reason code; the points of all contributions add up to the score.
type Contribution struct {
	Factor      string
	Points      int
	Description string
}

// contributions rounds the parts to whole points that add up to score
// (largest remainders absorb the rounding), describes each, and orders them
// by the size of their effect, largest first.
func contributions(parts *[numParts]part, score int, c Counters, f Factors) []Contribution {
	out := make([]Contribution, len(parts))
	sum := 0
	for i, p := range parts {
		out[i] = Contribution{Factor: p.factor, Points: int(math.Round(p.value))}
		sum += out[i].Points
	}
	// Hand the rounding difference out one point at a time, to the parts
	// whose rounding moved them furthest in the other direction.
	for diff := score - sum; diff != 0; {
		step := 1
		if diff < 0 {
			step = -1
		}
		best, bestGap := -1, 0.0
		for i, p := range parts {
			gap := (p.value - float64(out[i].Points)) * float64(step)
			if p.factor != FactorBase && (best < 0 || gap > bestGap) {
				best, bestGap = i, gap
			}
		}
		out[best].Points += step
		diff -= step
	}
	for i := range out {
		out[i].Description = describe(out[i], c, f)
	}
	sort.SliceStable(out, func(i, j int) bool { return abs(out[i].Points) > abs(out[j].Points) })
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// describe writes a contribution's sentence, with the numbers behind it.
func describe(p Contribution, c Counters, f Factors) string {
	w := Weights
	var s string
	switch p.Factor {
	case FactorBase:
		s = "Every agent starts at 500, no evidence either way"
	case FactorTenure:
		if c.FirstExternalAt.IsZero() {
			s = "No transaction with another organization yet, so no tenure"
		} else {
			s = fmt.Sprintf("First transaction with another organization %s days ago", num(f.TenureDays))
		}
	case FactorVolume:
		counted := math.Min(f.Volume, w.VolumePerOrg*float64(f.CounterpartyOrgs))
		s = fmt.Sprintf("%s completed transactions with other organizations in the last 30 days (decayed), %s of them counted (at most %s per organization)",
			num(f.Volume), num(counted), num(w.VolumePerOrg))
	case FactorCounterpartyOrgs:
		s = fmt.Sprintf("Completed transactions with %d other %s", f.CounterpartyOrgs, plural(f.CounterpartyOrgs, "organization", "organizations"))
	case FactorCompletion:
		s = fmt.Sprintf("%s failed attempts against %s completed transactions in the last 30 days (decayed; one failure weighs as %s completions)",
			num(f.Failures), num(f.Volume), num(w.FailureWeight))
	case FactorLimitRefusals:
		s = fmt.Sprintf("%s refusals over its own spending or daily limit in the last day (decayed)", num(f.LimitRefusals))
	case FactorReversals:
		s = fmt.Sprintf("%s of its transactions reversed over %s completed in the last 90 days (decayed; one reversal weighs as %s completions)",
			num(f.Reversals), num(f.Volume), num(w.ReversalWeight))
	case FactorDisputes:
		orgs := "organizations"
		if num(f.DisputingOrgs) == "1" {
			orgs = "organization"
		}
		s = fmt.Sprintf("%d open %s from %s other %s (decayed, 90-day half-life) over %s transactions",
			f.OpenDisputes, plural(f.OpenDisputes, "dispute", "disputes"), num(f.DisputingOrgs), orgs, num(f.Volume))
	case FactorSuspended:
		if f.Suspended == 1 {
			s = fmt.Sprintf("The agent is suspended, which takes away %d%% of the rest", int(w.SuspendedShare*100))
		} else {
			s = "The agent is active"
		}
	}
	return s + ": " + signed(p.Points)
}

// num renders a count with at most one decimal ("3", "2.5").
func num(x float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(math.Round(x*10)/10, 'f', 1, 64), ".0")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// signed renders points with their sign, using a true minus sign.
func signed(p int) string {
	switch {
	case p > 0:
		return "+" + strconv.Itoa(p)
	case p < 0:
		return "−" + strconv.Itoa(-p)
	default:
		return "0"
	}
}
