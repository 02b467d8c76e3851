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
	Status            string // StatusActive or StatusSuspended; anything but active is treated as suspended
	Environment       string // "sandbox" or "production"
	Currency          money.Currency
	AuthorizedActions []string
	SpendingLimit     money.Amount  // largest single amount; equal is allowed
	DailyLimit        *money.Amount // largest outflow within Window including this one; nil = none
}

// Outflow is one completed, non-reversed outgoing transaction of the sender.
type Outflow struct {
	Amount money.Amount
	At     time.Time
}

// Input is everything Evaluate looks at.
type Input struct {
	Sender           Party
	Receiver         *Party // nil when there is no counterparty (evaluateTrust)
	Action           string
	Amount           money.Amount
	Currency         money.Currency // currency of the request; must equal Sender.Currency
	Now              time.Time
	Outflow          []Outflow // sender's outflows in the trailing Window, any order
	SenderAssessment string    // "Verified", "Moderate", "High Risk"; "" = unknown (not High Risk)
}

// Decision is the outcome of Evaluate: a reason code and a readable sentence.
type Decision struct {
	Allowed    bool
	ReasonCode string
	Reason     string
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
//  7. trust_too_low: the sender is assessed "High Risk";
//  8. amount_exceeds_limit: amount > spending limit (equal is allowed);
//  9. daily_limit_exceeded: DailySpent + amount > daily limit (reaching it
//     exactly is allowed);
//  10. ok.
func Evaluate(in Input) Decision {
	s, r := in.Sender, in.Receiver
	cur := s.Currency
	switch {
	case s.Status != StatusActive:
		return deny(ReasonAgentSuspended, "agent %s %s", s.ID, inactive(s.Status))
	case r != nil && r.Status != StatusActive:
		return deny(ReasonCounterpartySuspended, "counterparty agent %s %s", r.ID, inactive(r.Status))
	}
	if !in.Amount.IsPositive() {
		return deny(ReasonInvalidAmount, "invalid amount %s: must be greater than zero", in.Amount)
	}
	if err := money.ValidateAmount(in.Amount, cur); err != nil {
		return deny(ReasonInvalidAmount, "%s", err)
	}
	switch {
	case in.Currency != cur:
		return deny(ReasonCurrencyMismatch, "transaction currency %s does not match the agent's currency %s", code(in.Currency), code(cur))
	case r != nil && r.Currency != cur:
		return deny(ReasonCurrencyMismatch, "counterparty agent %s's currency %s does not match the agent's currency %s", r.ID, code(r.Currency), code(cur))
	case r != nil && r.Environment != s.Environment:
		return deny(ReasonEnvironmentMismatch, "counterparty agent %s is in the %s environment but the agent is in %s", r.ID, r.Environment, s.Environment)
	case !slices.Contains(s.AuthorizedActions, in.Action):
		return deny(ReasonActionNotAuthorized, "action %q is not among the agent's authorized actions (%s)", in.Action, list(s.AuthorizedActions))
	case in.SenderAssessment == AssessmentHighRisk:
		return deny(ReasonTrustTooLow, "agent %s is assessed %s; High Risk agents may not transact", s.ID, AssessmentHighRisk)
	case in.Amount.Cmp(s.SpendingLimit) > 0:
		return deny(ReasonAmountExceedsLimit, "amount %s exceeds the spending limit of %s", fmtAmt(in.Amount, cur), fmtAmt(s.SpendingLimit, cur))
	}
	within := "allowed: amount " + fmtAmt(in.Amount, cur) + " is within the spending limit of " + fmtAmt(s.SpendingLimit, cur)
	if s.DailyLimit == nil {
		return Decision{Allowed: true, ReasonCode: ReasonOK, Reason: within + " (no daily limit)"}
	}
	limit := *s.DailyLimit
	spent := DailySpent(in.Outflow, in.Now)
	remaining := limit.Sub(spent)
	if in.Amount.Cmp(remaining) > 0 {
		return deny(ReasonDailyLimitExceeded, "%s", dailyReason(in, limit, spent, remaining))
	}
	return Decision{Allowed: true, ReasonCode: ReasonOK, Reason: within + " and the remaining daily budget of " + fmtAmt(remaining, cur)}
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

// fmtAmt formats an amount with the currency's minor units ("150.00 USD"),
// never hiding decimal places the value actually has.
func fmtAmt(a money.Amount, c money.Currency) string {
	places := max(c.MinorUnits(), a.Places(), 0)
	return a.StringFixed(places) + " " + code(c)
}
