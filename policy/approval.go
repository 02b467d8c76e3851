package policy

import (
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
)

// ReasonTooManyPendingApprovals refuses an execute that would wait for
// approval while its agent already has the most transactions waiting.
const ReasonTooManyPendingApprovals = "too_many_pending_approvals"

// DefaultMaxPending is APPROVAL_MAX_PENDING's default: how many
// transactions may wait for approval per sending agent.
const DefaultMaxPending = 50

// LimitPending applies the bound on waiting transactions to d, an allowed
// decision of agent agentID: when d would wait for approval and pending (the
// agent's transactions waiting now) is already max, it becomes a refusal.
// Every other decision is returned as it is, so the bound is checked after
// every other code and only where the threshold applies.
func LimitPending(d Decision, agentID string, pending, max int) Decision {
	if !d.Allowed || !d.RequiresApproval || pending < max {
		return d
	}
	return deny(ReasonTooManyPendingApprovals,
		"agent %s already has %d transactions waiting for approval, the most allowed (APPROVAL_MAX_PENDING is %d); approve or decline some first",
		agentID, pending, max)
}

// Bounds of an approval rule's expiry.
const (
	// MinApprovalSeconds is the shortest time a transaction may wait for approval.
	MinApprovalSeconds = 60
	// MaxApprovalSeconds is the longest time a transaction may wait for approval (7 days).
	MaxApprovalSeconds = 7 * 24 * 60 * 60
)

// ApprovalRule makes an execute over Above wait for an admin's decision
// for at most ExpiresAfterSeconds instead of completing at once.
type ApprovalRule struct {
	Above               money.Amount `json:"above"`
	ExpiresAfterSeconds int          `json:"expires_after_seconds"`
}

// Expiry is how long a transaction waits for approval.
func (r ApprovalRule) Expiry() time.Duration {
	return time.Duration(r.ExpiresAfterSeconds) * time.Second
}

// validateApproval checks an approval rule for an agent in currency cur.
func validateApproval(f *failure.Fields, field string, r *ApprovalRule, cur money.Currency) {
	if r == nil {
		return
	}
	if !r.Above.IsPositive() {
		f.Add(field+".above", "must be greater than zero")
	} else if err := money.ValidateAmount(r.Above, cur); err != nil {
		f.Add(field+".above", "%s", err)
	}
	if r.ExpiresAfterSeconds < MinApprovalSeconds || r.ExpiresAfterSeconds > MaxApprovalSeconds {
		f.Add(field+".expiresAfterSeconds", "must be between %d and %d", MinApprovalSeconds, MaxApprovalSeconds)
	}
}

// needsApproval reports whether an allowed amount waits for approval under
// p (over Above; equal does not), and the note a reason carries then.
func needsApproval(p SpendPolicy, amount money.Amount, cur money.Currency) (bool, string) {
	r := p.Approval
	if r == nil || amount.Cmp(r.Above) <= 0 {
		return false, ""
	}
	return true, "; over the approval threshold of " + r.Above.Format(cur) + ", it waits for an admin's approval"
}
