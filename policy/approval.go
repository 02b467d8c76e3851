package policy

import (
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
)

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
