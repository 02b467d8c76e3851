package trust

import (
	"slices"
	"time"
)

// Kind names an action that changes an agent's trust counters.
type Kind string

// The actions of the trust model.
const (
	// Executed: a transaction the agent took part in completed.
	Executed Kind = "executed"
	// Refused: an execute by the agent (as sender) was refused.
	Refused Kind = "refused"
	// Reversed: a transaction the agent took part in was reversed.
	Reversed Kind = "reversed"
	// DisputeFiled: a dispute against the agent was filed.
	DisputeFiled Kind = "dispute_filed"
	// DisputeWithdrawn: a dispute against the agent was withdrawn.
	DisputeWithdrawn Kind = "dispute_withdrawn"
	// Suspended: the agent was suspended.
	Suspended Kind = "suspended"
	// Reinstated: the agent was reinstated.
	Reinstated Kind = "reinstated"
)

// Action is one thing that happened to an agent, with the facts its effect
// depends on. The store supplies the facts from its tables; `trust rebuild`
// supplies them from replaying the raw records; both then call [Apply].
type Action struct {
	Kind Kind
	At   time.Time

	// SameOrg: the counterparty (Executed, Reversed) or the reporter
	// (DisputeFiled, DisputeWithdrawn) belongs to the agent's own organization.
	SameOrg bool

	// Executed, Reversed: the counterparty organization's completed, not
	// reversed transactions with the agent, before the action.
	WithOrgBefore int64
	// Reversed: the agent sent the transaction (and so reversed it); SentAt is
	// when the reversed transaction completed.
	Sender bool
	SentAt time.Time

	// Refused: the refusal's policy reason code.
	ReasonCode string

	// DisputeFiled, DisputeWithdrawn: the earliest creation time of the
	// reporter organization's open disputes against the agent before and
	// after the action (zero when there are none).
	OrgFirstBefore, OrgFirstAfter time.Time
}

// Refusal classes: which refusals count, and as what.
var (
	// FailureCodes are refusals of malformed or unauthorized requests: they count as failures.
	FailureCodes = []string{"action_not_authorized", "currency_mismatch", "environment_mismatch", "invalid_amount"}
	// LimitCodes are refusals over the agent's own limits: they count as limit refusals, a lighter, fast-fading factor.
	// Counterparty refusals (blocked, not allowed, its trust too low) are about the other side and never count.
	LimitCodes = []string{"amount_exceeds_limit", "velocity_limit_exceeded", "daily_limit_exceeded",
		"weekly_limit_exceeded", "monthly_limit_exceeded", "total_limit_exceeded"}
)

// RefusalCounts reports whether a refusal with this reason code changes the
// counters at all. trust_too_low (the trust rule itself), agent_suspended
// (already scored by the suspension) and counterparty_suspended (the other
// side's state) never count.
func RefusalCounts(code string) bool { return isFailure(code) || isLimit(code) }

func isFailure(code string) bool { return slices.Contains(FailureCodes, code) }
func isLimit(code string) bool   { return slices.Contains(LimitCodes, code) }

// Apply returns the counters after the action: this is the one definition of
// what each action does to trust, used by the write path and by `trust
// rebuild` alike. Counters are first decayed to the action's time.
func Apply(c Counters, a Action) Counters {
	at := a.At.UTC().Truncate(time.Microsecond)
	c = c.DecayTo(at)
	w := Weights
	switch a.Kind {
	case Executed:
		if a.SameOrg {
			return c
		}
		c.Completed++
		if a.WithOrgBefore == 0 {
			c.CounterpartyOrgs++
		}
		if c.FirstExternalAt.IsZero() {
			c.FirstExternalAt = at
		}
	case Refused:
		switch {
		case isFailure(a.ReasonCode):
			c.Failures++
		case isLimit(a.ReasonCode):
			c.LimitRefusals++
		}
	case Reversed:
		if a.SameOrg {
			return c
		}
		c.Completed = clampCount(c.Completed - Weight(a.SentAt, at, w.CompletionHalfLife))
		if a.WithOrgBefore == 1 {
			c.CounterpartyOrgs--
		}
		if a.Sender {
			c.Reversals++
		}
	case DisputeFiled, DisputeWithdrawn:
		if a.SameOrg {
			return c
		}
		if a.Kind == DisputeFiled {
			c.OpenDisputes++
		} else {
			c.OpenDisputes--
		}
		if !a.OrgFirstBefore.Equal(a.OrgFirstAfter) {
			c.DisputingOrgs = clampCount(c.DisputingOrgs - orgWeight(a.OrgFirstBefore, at) + orgWeight(a.OrgFirstAfter, at))
		}
	case Suspended:
		c.Suspended = true
	case Reinstated:
		c.Suspended = false
	}
	return c
}

// orgWeight is a disputing organization's weight at now, counted from its
// earliest open dispute (0 when it has none).
func orgWeight(first, now time.Time) float64 {
	if first.IsZero() {
		return 0
	}
	return Weight(first, now, Weights.DisputeHalfLife)
}
