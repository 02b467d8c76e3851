package policy

import "github.com/agenttrust/service/mandate"

// Reason codes of the mandate checks, which run after action_not_authorized
// and before counterparty_blocked (see mandate.Mandate.Check for their order).
const (
	ReasonMandateRequired       = mandate.CodeRequired
	ReasonMandateNotFound       = mandate.CodeNotFound
	ReasonMandateRevoked        = mandate.CodeRevoked
	ReasonMandateExpired        = mandate.CodeExpired
	ReasonMandateNotActive      = mandate.CodeNotActive
	ReasonMandateExhausted      = mandate.CodeExhausted
	ReasonMandateScopeMismatch  = mandate.CodeScopeMismatch
	ReasonMandateAmountExceeded = mandate.CodeAmountExceeded
)

// MandateRef is the mandate a request named: its id and, when it is the
// sender's, the mandate as read (nil: unknown or another agent's).
type MandateRef struct {
	ID      string
	Mandate *mandate.Mandate
}

// checkMandate refuses with mandate_required when the sender's policy
// requires a mandate and none was named, with mandate_not_found when the
// mandate named is not the sender's, and then with the mandate's own check.
func checkMandate(in Input) (Decision, bool) {
	ref, s := in.Mandate, in.Sender
	switch {
	case ref == nil && s.Policy.RequireMandate:
		return deny(ReasonMandateRequired, "agent %s's policy requires a mandate and the request names none", s.ID), true
	case ref == nil:
		return Decision{}, false
	case ref.Mandate == nil || ref.Mandate.AgentID != s.ID:
		return deny(ReasonMandateNotFound, "mandate %q not found for agent %s", ref.ID, s.ID), true
	}
	if code, reason := ref.Mandate.Check(mandateUse(in), in.Now); code != "" {
		return deny(code, "%s", reason), true
	}
	return Decision{}, false
}

// mandateUse is the request as a mandate sees it.
func mandateUse(in Input) mandate.Use {
	u := mandate.Use{Action: in.Action, Amount: in.Amount}
	if in.Receiver != nil {
		u.Receiver, u.ReceiverOrg = in.Receiver.ID, in.Receiver.OrgID
	}
	return u
}

// mandateNote is what an allowed decision's reason says about its mandate.
func mandateNote(in Input) string {
	if in.Mandate == nil || in.Mandate.Mandate == nil {
		return ""
	}
	return "; " + in.Mandate.Mandate.Describe(mandateUse(in))
}
