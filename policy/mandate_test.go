package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/mandate"
	"github.com/agenttrust/service/policy"
)

// underMandate is base() under a mandate of its sender with 20 USD left of 50.
func underMandate() policy.Input {
	in := base()
	m := &mandate.Mandate{ID: "mdt_m", AgentID: "agent_x", Actions: []string{"pay"}, Budget: amt("50"), Spent: amt("30"),
		Currency: "USD", ExpiresAt: now.Add(time.Hour)}
	in.Mandate = &policy.MandateRef{ID: m.ID, Mandate: m}
	return in
}

func TestMandateInPolicyOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(*policy.Input)
		code   string
	}{
		{"allowed under a mandate", nil, policy.ReasonOK},
		{"none named, none required", func(in *policy.Input) { in.Mandate = nil }, policy.ReasonOK},
		{"required and none named", func(in *policy.Input) { in.Mandate, in.Sender.Policy.RequireMandate = nil, true }, policy.ReasonMandateRequired},
		{"required and named", func(in *policy.Input) { in.Sender.Policy.RequireMandate = true }, policy.ReasonOK},
		{"unknown", func(in *policy.Input) { in.Mandate.Mandate = nil }, policy.ReasonMandateNotFound},
		{"another agent's", func(in *policy.Input) { in.Mandate.Mandate.AgentID = "agent_y" }, policy.ReasonMandateNotFound},
		{"action_not_authorized comes first", func(in *policy.Input) { in.Action, in.Mandate.Mandate = "steal", nil }, policy.ReasonActionNotAuthorized},
		{"mandate_required after action_not_authorized", func(in *policy.Input) {
			in.Action, in.Mandate, in.Sender.Policy.RequireMandate = "steal", nil, true
		}, policy.ReasonActionNotAuthorized},
		{"mandate codes before counterparty_blocked", func(in *policy.Input) {
			in.Sender.Policy.Counterparties.DenyAgents = []string{"agent_y"}
			in.Mandate.Mandate.Spent = amt("50")
		}, policy.ReasonMandateExhausted},
		{"counterparty_blocked once the mandate passes", func(in *policy.Input) {
			in.Sender.Policy.Counterparties.DenyAgents = []string{"agent_y"}
		}, policy.ReasonCounterpartyBlocked},
		{"mandate remaining exactly", func(in *policy.Input) { in.Amount = amt("20") }, policy.ReasonOK},
		{"over the mandate's remaining", func(in *policy.Input) { in.Amount = amt("20.01") }, policy.ReasonMandateAmountExceeded},
		{"the policy still applies under a mandate", func(in *policy.Input) {
			in.Mandate.Mandate.Budget = amt("1000")
			in.Amount = amt("101")
		}, policy.ReasonAmountExceedsLimit},
		{"scope by receiver", func(in *policy.Input) { in.Mandate.Mandate.CounterpartyAgents = []string{"agent_z"} }, policy.ReasonMandateScopeMismatch},
		{"expired at the input's instant", func(in *policy.Input) { in.Now = now.Add(2 * time.Hour); in.Outflow = nil }, policy.ReasonMandateExpired},
	}
	for _, tt := range tests {
		in := underMandate()
		if tt.change != nil {
			tt.change(&in)
		}
		d := policy.Evaluate(in)
		if d.ReasonCode != tt.code || d.Allowed != (tt.code == policy.ReasonOK) {
			t.Errorf("%s: %s (%s), want %s", tt.name, d.ReasonCode, d.Reason, tt.code)
		}
	}
	d := policy.Evaluate(underMandate())
	if !strings.Contains(d.Reason, "within mandate mdt_m (10.00 USD of its budget would remain)") {
		t.Errorf("allowed reason %q does not say what the mandate leaves", d.Reason)
	}
}
