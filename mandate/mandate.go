// Package mandate holds mandates: spend authority for one task, narrower
// than the agent's policy, expiring and revocable. It has the mandate's
// type, its input rules and the pure check an execute or evaluation naming
// a mandate must pass; the policy runs that check in its order.
package mandate

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/agenttrust/service/money"
)

// Status is where a mandate is in its life, computed from its fields and the time.
type Status string

// Mandate statuses.
const (
	// Active: usable (a notBefore still ahead refuses with mandate_not_active until it passes).
	Active Status = "active"
	// Revoked: revoked by an admin; refused from then on.
	Revoked Status = "revoked"
	// Expired: past expiresAt.
	Expired Status = "expired"
	// Exhausted: its budget or its uses are spent.
	Exhausted Status = "exhausted"
)

// Reason codes of a mandate refusal (contract 9.4), in the order Check looks for them.
const (
	// CodeRequired means the policy requires a mandate and the request named none.
	CodeRequired = "mandate_required"
	// CodeNotFound means the mandate named is unknown or another agent's.
	CodeNotFound = "mandate_not_found"
	// CodeRevoked means the mandate was revoked.
	CodeRevoked = "mandate_revoked"
	// CodeExpired means the mandate is past its expiresAt.
	CodeExpired = "mandate_expired"
	// CodeNotActive means the mandate's notBefore has not come yet.
	CodeNotActive = "mandate_not_active"
	// CodeExhausted means the mandate's budget or uses are spent.
	CodeExhausted = "mandate_exhausted"
	// CodeScopeMismatch means the action or the counterparty is outside the mandate.
	CodeScopeMismatch = "mandate_scope_mismatch"
	// CodeAmountExceeded means the amount is over maxPerTransaction or what remains of the budget.
	CodeAmountExceeded = "mandate_amount_exceeded"
)

// Mandate is spend authority granted to one agent for one task.
type Mandate struct {
	ID                 string
	AgentID            string
	OrgID              string // the agent's organization: the only one that sees the mandate
	Description        string
	Actions            []string
	CounterpartyAgents []string // nil: any receiver agent
	CounterpartyOrgs   []string // nil: any receiver organization
	MaxPerTransaction  *money.Amount
	Budget             money.Amount
	Currency           money.Currency
	MaxUses            *int
	NotBefore          *time.Time
	ExpiresAt          time.Time
	Spent              money.Amount // sum of the completed transactions made under it
	Uses               int          // how many completed transactions were made under it
	CreatedAt          time.Time
	RevokedAt          *time.Time
	RevokeReason       *string
	// Status is StatusAt the moment the mandate was read.
	Status Status
}

// StatusAt is the mandate's status at now: revoked, else expired (after
// expiresAt; at the instant itself it is still usable), else exhausted
// (budget or uses spent), else active.
func (m *Mandate) StatusAt(now time.Time) Status {
	switch {
	case m.RevokedAt != nil:
		return Revoked
	case now.After(m.ExpiresAt):
		return Expired
	case m.Spent.Cmp(m.Budget) >= 0 || (m.MaxUses != nil && m.Uses >= *m.MaxUses):
		return Exhausted
	}
	return Active
}

// Remaining is what is left of the budget (never negative).
func (m *Mandate) Remaining() money.Amount {
	r := m.Budget.Sub(m.Spent)
	if !r.IsPositive() {
		return money.Amount{}
	}
	return r
}

// Use is one would-be transaction under a mandate.
type Use struct {
	Action string
	// Receiver and ReceiverOrg are empty when there is no counterparty
	// (evaluateTrust without toAgent): the counterparty scope then passes.
	Receiver    string
	ReceiverOrg string
	Amount      money.Amount
}

// Check decides whether u may be made under m at now: "" and "" when it
// may, else the first failing code and a readable reason, in this order:
// revoked, expired (after expiresAt), not active (before notBefore),
// exhausted, scope (action, receiver agent, receiver organization), amount
// (over maxPerTransaction, over the remaining budget). Every bound is
// inclusive: reaching the budget, maxUses or maxPerTransaction exactly, or
// executing at notBefore or expiresAt exactly, is allowed.
func (m *Mandate) Check(u Use, now time.Time) (code, reason string) {
	cur := m.Currency
	switch {
	case m.RevokedAt != nil:
		return CodeRevoked, fmt.Sprintf("mandate %s was revoked at %s%s", m.ID, stamp(*m.RevokedAt), because(m.RevokeReason))
	case now.After(m.ExpiresAt):
		return CodeExpired, fmt.Sprintf("mandate %s expired at %s", m.ID, stamp(m.ExpiresAt))
	case m.NotBefore != nil && now.Before(*m.NotBefore):
		return CodeNotActive, fmt.Sprintf("mandate %s is not active before %s", m.ID, stamp(*m.NotBefore))
	case m.Spent.Cmp(m.Budget) >= 0:
		return CodeExhausted, fmt.Sprintf("mandate %s has spent its whole budget of %s", m.ID, m.Budget.Format(cur))
	case m.MaxUses != nil && m.Uses >= *m.MaxUses:
		return CodeExhausted, fmt.Sprintf("mandate %s has been used %d of %d times", m.ID, m.Uses, *m.MaxUses)
	case !slices.Contains(m.Actions, u.Action):
		return CodeScopeMismatch, fmt.Sprintf("action %q is not among mandate %s's actions (%s)", u.Action, m.ID, strings.Join(m.Actions, ", "))
	case u.Receiver != "" && m.CounterpartyAgents != nil && !slices.Contains(m.CounterpartyAgents, u.Receiver):
		return CodeScopeMismatch, fmt.Sprintf("counterparty agent %s is not among mandate %s's counterparty agents", u.Receiver, m.ID)
	case u.Receiver != "" && m.CounterpartyOrgs != nil && !slices.Contains(m.CounterpartyOrgs, u.ReceiverOrg):
		return CodeScopeMismatch, fmt.Sprintf("counterparty agent %s's organization %s is not among mandate %s's counterparty organizations", u.Receiver, u.ReceiverOrg, m.ID)
	case m.MaxPerTransaction != nil && u.Amount.Cmp(*m.MaxPerTransaction) > 0:
		return CodeAmountExceeded, fmt.Sprintf("amount %s exceeds mandate %s's maximum of %s per transaction", u.Amount.Format(cur), m.ID, m.MaxPerTransaction.Format(cur))
	case u.Amount.Cmp(m.Remaining()) > 0:
		return CodeAmountExceeded, fmt.Sprintf("amount %s exceeds what remains of mandate %s's budget: %s of %s (%s spent)",
			u.Amount.Format(cur), m.ID, m.Remaining().Format(cur), m.Budget.Format(cur), m.Spent.Format(cur))
	}
	return "", ""
}

// Describe is the sentence an allowed use adds to the policy's reason.
func (m *Mandate) Describe(u Use) string {
	left := m.Remaining().Sub(u.Amount)
	uses := ""
	if m.MaxUses != nil {
		uses = fmt.Sprintf(" and %d of %d uses", *m.MaxUses-m.Uses-1, *m.MaxUses)
	}
	return fmt.Sprintf("within mandate %s (%s of its budget%s would remain)", m.ID, left.Format(m.Currency), uses)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func because(reason *string) string {
	if reason == nil {
		return ""
	}
	return ": " + *reason
}
