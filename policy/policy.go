// Package policy holds the one transaction policy shared by executeTransaction
// (a refusal becomes POLICY_DENIED) and evaluateTrust (which only reports the
// decision), so both always decide alike.
package policy

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agenttrust/service/money"
)

// Reason codes of a Decision.
const (
	// ReasonOK means the transaction is allowed.
	ReasonOK = "ok"
	// ReasonAgentSuspended means the sending agent is not active.
	ReasonAgentSuspended = "agent_suspended"
	// ReasonActionNotAuthorized means the action is not among the sender's authorized actions.
	ReasonActionNotAuthorized = "action_not_authorized"
	// ReasonAmountExceedsLimit means the amount is above the sender's spending limit.
	ReasonAmountExceedsLimit = "amount_exceeds_limit"
	// ReasonDailyLimitExceeded means the amount would take the sender's 24-hour outflow above its daily limit.
	ReasonDailyLimitExceeded = "daily_limit_exceeded"
	// ReasonCurrencyMismatch means the request or the counterparty uses another currency than the sender.
	ReasonCurrencyMismatch = "currency_mismatch"
	// ReasonEnvironmentMismatch means sender and counterparty are in different environments.
	ReasonEnvironmentMismatch = "environment_mismatch"
	// ReasonTrustTooLow means the sender is assessed High Risk.
	ReasonTrustTooLow = "trust_too_low"
	// ReasonCounterpartySuspended means the receiving agent is not active.
	ReasonCounterpartySuspended = "counterparty_suspended"
	// ReasonInvalidAmount means the amount is not a valid positive amount in the sender's currency.
	ReasonInvalidAmount = "invalid_amount"
	// ReasonCounterpartyBlocked means the policy denies the receiver or its organization.
	ReasonCounterpartyBlocked = "counterparty_blocked"
	// ReasonCounterpartyNotAllowed means the policy has an allow list that holds neither the receiver nor its organization.
	ReasonCounterpartyNotAllowed = "counterparty_not_allowed"
	// ReasonCounterpartyTrustTooLow means the receiver's trust score is below the policy's minimum.
	ReasonCounterpartyTrustTooLow = "counterparty_trust_too_low"
	// ReasonVelocityLimitExceeded means one more transaction would exceed a velocity limit.
	ReasonVelocityLimitExceeded = "velocity_limit_exceeded"
	// ReasonWeeklyLimitExceeded means the amount would take a week's outflow above its limit.
	ReasonWeeklyLimitExceeded = "weekly_limit_exceeded"
	// ReasonMonthlyLimitExceeded means the amount would take a month's outflow above its limit.
	ReasonMonthlyLimitExceeded = "monthly_limit_exceeded"
	// ReasonTotalLimitExceeded means the amount would take the agent's total outflow above its limit.
	ReasonTotalLimitExceeded = "total_limit_exceeded"
)

// Agent statuses and the assessment that blocks transactions.
const (
	// StatusActive is the status of an agent allowed to transact.
	StatusActive = "active"
	// StatusSuspended is the status of a suspended agent.
	StatusSuspended = "suspended"
	// AssessmentHighRisk is the sender assessment refused with trust_too_low (same as trust.HighRisk).
	AssessmentHighRisk = "High Risk"
)

// Window is the trailing period over which the daily limit applies.
const Window = 24 * time.Hour

// Party is an agent as seen by the policy.
type Party struct {
	ID                string
	OrgID             string
	Score             *int   // trust score; nil = unknown (fails a counterparty minimum)
	Status            string // StatusActive or StatusSuspended; anything but active is treated as suspended
	Environment       string // "sandbox" or "production"
	Currency          money.Currency
	AuthorizedActions []string
	SpendingLimit     money.Amount  // largest single amount; equal is allowed
	DailyLimit        *money.Amount // the rolling day entry of the spend limits; nil = none
	Policy            SpendPolicy   // the sender's spend policy; a receiver's is not looked at
}

// Outflow is one completed outgoing transaction of the sender.
type Outflow struct {
	Amount money.Amount
	At     time.Time
	Action string
	// Count is how many transactions Amount sums, all dated within the
	// window-free stretch a caller chose At from (see Party.Edges); 0 means one.
	Count int
}

// n is how many transactions o stands for.
func (o Outflow) n() int { return max(o.Count, 1) }

// Input is everything Evaluate looks at.
type Input struct {
	Sender           Party
	Receiver         *Party // nil when there is no counterparty (evaluateTrust)
	Action           string
	Amount           money.Amount
	Currency         money.Currency // currency of the request; must equal Sender.Currency
	Now              time.Time
	Outflow          []Outflow   // sender's outflows in every window of its policy (Since), any order
	SenderAssessment string      // "Verified", "Moderate", "High Risk"; "" = unknown (not High Risk)
	Mandate          *MandateRef // the mandate the request named; nil = none
}

// Decision is the outcome of Evaluate: a reason code and a readable sentence.
type Decision struct {
	Allowed    bool
	ReasonCode string
	Reason     string
	// RequiresApproval is set on an allowed decision whose amount is over
	// the policy's approval threshold: the execute waits for an admin.
	RequiresApproval bool
}

// Evaluate decides whether the sender may perform the transaction. It is
// pure: it changes nothing and depends only on its input.
//
// Checks run in this order and the first failure wins:
//
//  1. agent_suspended: the sender's status is not active;
//  2. counterparty_suspended: the receiver (if any) is not active;
//  3. invalid_amount: the amount is not positive or fails
//     money.ValidateAmount against the sender's currency;
//  4. currency_mismatch: the request currency, or the receiver's currency,
//     differs from the sender's currency;
//  5. environment_mismatch: the receiver's environment differs from the sender's;
//  6. action_not_authorized: the action is not in the sender's authorized actions
//     (exact, case-sensitive match);
//     mandate_required and the mandate codes (checkMandate): the policy
//     requires a mandate and none was named, or the named one refuses;
//  7. counterparty_blocked: the policy denies the receiver or its organization;
//  8. counterparty_not_allowed: the policy's allow lists are not both empty
//     and hold neither the receiver nor its organization;
//  9. trust_too_low: the sender is assessed "High Risk";
//  10. counterparty_trust_too_low: the receiver's score is below the policy's minimum;
//  11. amount_exceeds_limit: amount > spending limit scaled by the trust
//     tier (equal is allowed);
//  12. velocity_limit_exceeded: one more transaction would exceed a velocity limit;
//  13. daily_, weekly_, monthly_, total_limit_exceeded: spent + amount >
//     the window's scaled limit (reaching it exactly is allowed), day
//     windows first;
//  14. ok, with RequiresApproval when the amount is over the policy's
//     approval threshold (approving re-runs Evaluate and ignores it).
//
// Checks 7, 8 and 10 need a receiver and pass without one (evaluateTrust
// without a counterparty). A velocity or spend limit restricted to some
// actions neither counts nor judges a transaction of another action.
func Evaluate(in Input) Decision {
	if d, done := checkParties(in); done {
		return d
	}
	s, cur := in.Sender, in.Sender.Currency
	pct, tierNote := tierFor(s.Policy.TrustTiers, s.Score)
	places := max(cur.MinorUnits(), 0)
	limit := s.SpendingLimit.Percent(int64(pct), places)
	if in.Amount.Cmp(limit) > 0 {
		return deny(ReasonAmountExceedsLimit, "amount %s exceeds the spending limit of %s%s", in.Amount.Format(cur), limit.Format(cur), tierNote)
	}
	for _, v := range s.Policy.VelocityLimits {
		if !Counts(v.Actions, in.Action) {
			continue // a limit on other actions neither counts nor judges this one
		}
		if reason, ok := checkVelocity(in, v); !ok {
			return deny(ReasonVelocityLimitExceeded, "%s", reason)
		}
	}
	var budgets []string
	loc := time.UTC
	limits := s.Limits()
	for _, l := range limits {
		if l.Mode == ModeCalendar && l.Window != WindowTotal {
			loc = s.Policy.Location()
			break
		}
	}
	for _, l := range limits {
		if !Counts(l.Actions, in.Action) {
			continue
		}
		remaining, reason, ok := checkLimit(in, l, l.Amount.Percent(int64(pct), places), loc)
		if !ok {
			return deny(windowCode(l.Window), "%s%s", reason, tierNote)
		}
		budgets = append(budgets, fmt.Sprintf("the remaining %s budget%s of %s", windowNoun(l.Window), actionsNote(l.Actions), remaining.Format(cur)))
	}
	within := "allowed: amount " + in.Amount.Format(cur) + " is within the spending limit of " + limit.Format(cur)
	approval, approvalNote := needsApproval(s.Policy, in.Amount, cur)
	notes := tierNote + mandateNote(in) + approvalNote
	d := Decision{Allowed: true, ReasonCode: ReasonOK, RequiresApproval: approval}
	if len(budgets) == 0 {
		d.Reason = within + " (no daily limit)" + notes
	} else {
		d.Reason = within + " and " + strings.Join(budgets, " and ") + notes
	}
	return d
}

// checkParties runs the checks before the amount limits (1 to 10): a
// refusal and true, or false when all pass.
func checkParties(in Input) (Decision, bool) {
	s, r := in.Sender, in.Receiver
	cur := s.Currency
	switch {
	case s.Status != StatusActive:
		return deny(ReasonAgentSuspended, "agent %s %s", s.ID, inactive(s.Status)), true
	case r != nil && r.Status != StatusActive:
		return deny(ReasonCounterpartySuspended, "counterparty agent %s %s", r.ID, inactive(r.Status)), true
	}
	if !in.Amount.IsPositive() {
		return deny(ReasonInvalidAmount, "invalid amount %s: must be greater than zero", in.Amount), true
	}
	if err := money.ValidateAmount(in.Amount, cur); err != nil {
		return deny(ReasonInvalidAmount, "%s", err), true
	}
	switch {
	case in.Currency != cur:
		return deny(ReasonCurrencyMismatch, "transaction currency %s does not match the agent's currency %s", code(in.Currency), code(cur)), true
	case r != nil && r.Currency != cur:
		if r.OrgID != s.OrgID { // another organization's settings are its own
			return deny(ReasonCurrencyMismatch, "counterparty agent %s does not use the agent's currency %s", r.ID, code(cur)), true
		}
		return deny(ReasonCurrencyMismatch, "counterparty agent %s's currency %s does not match the agent's currency %s", r.ID, code(r.Currency), code(cur)), true
	case r != nil && r.Environment != s.Environment:
		if r.OrgID != s.OrgID {
			return deny(ReasonEnvironmentMismatch, "counterparty agent %s is not in the agent's environment (%s)", r.ID, s.Environment), true
		}
		return deny(ReasonEnvironmentMismatch, "counterparty agent %s is in the %s environment but the agent is in %s", r.ID, r.Environment, s.Environment), true
	case !slices.Contains(s.AuthorizedActions, in.Action):
		return deny(ReasonActionNotAuthorized, "action %q is not among the agent's authorized actions (%s)", in.Action, list(s.AuthorizedActions)), true
	}
	if d, done := checkMandate(in); done {
		return d, true
	}
	if d, done := checkCounterparty(s.Policy, r); done {
		return d, true
	}
	if in.SenderAssessment == AssessmentHighRisk {
		return deny(ReasonTrustTooLow, "agent %s is assessed %s; High Risk agents may not transact", s.ID, AssessmentHighRisk), true
	}
	if least := s.Policy.MinCounterpartyScore; r != nil && least != nil && (r.Score == nil || *r.Score < *least) {
		return deny(ReasonCounterpartyTrustTooLow, "counterparty agent %s's trust score %s is below the policy's minimum of %d", r.ID, score(r.Score), *least), true
	}
	return Decision{}, false
}

// checkCounterparty applies the policy's deny and allow lists to the receiver.
func checkCounterparty(p SpendPolicy, r *Party) (Decision, bool) {
	if r == nil {
		return Decision{}, false
	}
	c := p.Counterparties
	switch {
	case slices.Contains(c.DenyAgents, r.ID):
		return deny(ReasonCounterpartyBlocked, "counterparty agent %s is on the policy's deny list", r.ID), true
	case slices.Contains(c.DenyOrgs, r.OrgID):
		return deny(ReasonCounterpartyBlocked, "counterparty agent %s's organization is on the policy's deny list", r.ID), true
	case len(c.AllowAgents)+len(c.AllowOrgs) > 0 && !slices.Contains(c.AllowAgents, r.ID) && !slices.Contains(c.AllowOrgs, r.OrgID):
		return deny(ReasonCounterpartyNotAllowed, "counterparty agent %s is not on the policy's allow list, by agent or by organization", r.ID), true
	}
	return Decision{}, false
}

// Limits returns the sender's spend limits in the order they are checked
// (day, week, month, total; list order within a window), with DailyLimit as
// the rolling day entry when the policy does not hold it.
func (p Party) Limits() []SpendLimit {
	limits := p.ListedLimits()
	order := map[LimitWindow]int{WindowDay: 0, WindowWeek: 1, WindowMonth: 2, WindowTotal: 3}
	slices.SortStableFunc(limits, func(a, b SpendLimit) int { return order[a.Window] - order[b.Window] })
	return limits
}

// ListedLimits returns the sender's spend limits in the order the API lists
// them: DailyLimit as the rolling day entry first (when the policy does not
// hold it), then the policy's own in its order.
func (p Party) ListedLimits() []SpendLimit {
	limits := slices.Clone(p.Policy.SpendLimits)
	if p.DailyLimit != nil && !slices.ContainsFunc(limits, SpendLimit.IsDaily) {
		limits = append([]SpendLimit{{Amount: *p.DailyLimit, Window: WindowDay, Mode: ModeRolling}}, limits...)
	}
	return limits
}

// tierFor returns the percent of the highest tier at or below score (100
// when none applies or the score is unknown) and a note naming it for reasons.
func tierFor(tiers []TrustTier, score *int) (int, string) {
	if score == nil {
		return 100, ""
	}
	best := -1
	for i, t := range tiers {
		if t.MinScore <= *score && (best < 0 || t.MinScore > tiers[best].MinScore) {
			best = i
		}
	}
	if best < 0 {
		return 100, ""
	}
	t := tiers[best]
	return t.LimitPercent, fmt.Sprintf(" (trust tier %d+ applies at score %d: limits at %d%%)", t.MinScore, *score, t.LimitPercent)
}

// score prints a trust score, or "unknown".
func score(s *int) string {
	if s == nil {
		return "unknown"
	}
	return fmt.Sprint(*s)
}

// deny builds a refusal with a formatted reason.
func deny(code, format string, args ...any) Decision {
	return Decision{Allowed: false, ReasonCode: code, Reason: fmt.Sprintf(format, args...)}
}

// inactive describes a non-active status.
func inactive(status string) string {
	if status == StatusSuspended {
		return "is suspended"
	}
	return fmt.Sprintf("is not active (status %q)", status)
}

// code prints a currency code, or "(none)" when empty.
func code(c money.Currency) string {
	if c == "" {
		return "(none)"
	}
	return string(c)
}

// list prints authorized actions as "a, b", or "none".
func list(actions []string) string {
	if len(actions) == 0 {
		return "none"
	}
	return strings.Join(actions, ", ")
}
