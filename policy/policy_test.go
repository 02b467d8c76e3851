package policy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/policy"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func amt(s string) money.Amount { return money.MustParse(s) }

func ptr(a money.Amount) *money.Amount { return &a }

func out(s string, at time.Time) policy.Outflow { return policy.Outflow{Amount: amt(s), At: at} }

// base is an allowed 10 USD payment between two active sandbox agents; the
// sender has spent 10 USD of its 100 USD daily limit.
func base() policy.Input {
	return policy.Input{
		Sender: policy.Party{
			ID: "agent_x", Status: policy.StatusActive, Environment: "sandbox", Currency: "USD",
			AuthorizedActions: []string{"read", "pay"}, SpendingLimit: amt("100"), DailyLimit: ptr(amt("100")),
		},
		Receiver: &policy.Party{
			ID: "agent_y", Status: policy.StatusActive, Environment: "sandbox", Currency: "USD",
			AuthorizedActions: []string{"read"}, SpendingLimit: amt("5"),
		},
		Action:           "pay",
		Amount:           amt("10"),
		Currency:         "USD",
		Now:              now,
		Outflow:          []policy.Outflow{out("10", now.Add(-time.Hour))},
		SenderAssessment: "Moderate",
	}
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(*policy.Input)
		code   string
		reason string // exact reason if set
		substr string // reason must contain this if set
	}{
		{"allowed", func(*policy.Input) {}, policy.ReasonOK,
			"allowed: amount 10.00 USD is within the spending limit of 100.00 USD and the remaining daily budget of 90.00 USD", ""},
		{"allowed without daily limit", func(in *policy.Input) { in.Sender.DailyLimit = nil }, policy.ReasonOK,
			"allowed: amount 10.00 USD is within the spending limit of 100.00 USD (no daily limit)", ""},
		{"allowed without counterparty", func(in *policy.Input) { in.Receiver = nil }, policy.ReasonOK, "", ""},
		{"unknown assessment allowed", func(in *policy.Input) { in.SenderAssessment = "" }, policy.ReasonOK, "", ""},
		{"JPY without decimals", func(in *policy.Input) {
			in.Sender.Currency, in.Receiver.Currency, in.Currency = "JPY", "JPY", "JPY"
			in.Sender.SpendingLimit, in.Sender.DailyLimit = amt("5000"), nil
			in.Amount = amt("1500")
		}, policy.ReasonOK, "allowed: amount 1500 JPY is within the spending limit of 5000 JPY (no daily limit)", ""},

		{"agent suspended", func(in *policy.Input) { in.Sender.Status = policy.StatusSuspended }, policy.ReasonAgentSuspended, "agent agent_x is suspended", ""},
		{"agent unknown status", func(in *policy.Input) { in.Sender.Status = "" }, policy.ReasonAgentSuspended, `agent agent_x is not active (status "")`, ""},
		{"counterparty suspended", func(in *policy.Input) { in.Receiver.Status = policy.StatusSuspended }, policy.ReasonCounterpartySuspended, "counterparty agent agent_y is suspended", ""},

		{"zero amount", func(in *policy.Input) { in.Amount = money.Amount{} }, policy.ReasonInvalidAmount, "", "must be greater than zero"},
		{"negative amount", func(in *policy.Input) { in.Amount = amt("-5") }, policy.ReasonInvalidAmount, "", "must be greater than zero"},
		{"too many places", func(in *policy.Input) { in.Amount = amt("10.001") }, policy.ReasonInvalidAmount, "", "USD allows at most 2 decimal places"},
		{"places checked against agent currency", func(in *policy.Input) {
			in.Sender.Currency, in.Receiver.Currency = "JPY", "JPY"
			in.Amount = amt("1.5")
		}, policy.ReasonInvalidAmount, "", "JPY allows at most 0 decimal places"},
		{"trailing zeros are fine", func(in *policy.Input) { in.Amount = amt("10.000") }, policy.ReasonOK, "", ""},

		{"request currency", func(in *policy.Input) { in.Currency = "EUR" }, policy.ReasonCurrencyMismatch, "transaction currency EUR does not match the agent's currency USD", ""},
		{"empty request currency", func(in *policy.Input) { in.Currency = "" }, policy.ReasonCurrencyMismatch, "", "transaction currency (none)"},
		{"receiver currency", func(in *policy.Input) { in.Receiver.Currency = "EUR" }, policy.ReasonCurrencyMismatch, "counterparty agent agent_y's currency EUR does not match the agent's currency USD", ""},
		{"another organization's receiver currency", func(in *policy.Input) { in.Receiver.Currency, in.Receiver.OrgID = "EUR", "org_b" },
			policy.ReasonCurrencyMismatch, "counterparty agent agent_y does not use the agent's currency USD", ""},
		{"another organization's receiver environment", func(in *policy.Input) { in.Receiver.Environment, in.Receiver.OrgID = "production", "org_b" },
			policy.ReasonEnvironmentMismatch, "counterparty agent agent_y is not in the agent's environment (sandbox)", ""},
		{"environment", func(in *policy.Input) { in.Receiver.Environment = "production" }, policy.ReasonEnvironmentMismatch,
			"counterparty agent agent_y is in the production environment but the agent is in sandbox", ""},

		{"action not authorized", func(in *policy.Input) { in.Sender.AuthorizedActions = []string{"read", "pay2"} }, policy.ReasonActionNotAuthorized,
			`action "pay" is not among the agent's authorized actions (read, pay2)`, ""},
		{"action case sensitive", func(in *policy.Input) { in.Action = "Pay" }, policy.ReasonActionNotAuthorized, "", `action "Pay"`},
		{"no authorized actions", func(in *policy.Input) { in.Sender.AuthorizedActions = nil }, policy.ReasonActionNotAuthorized, "", "(none)"},

		{"high risk", func(in *policy.Input) { in.SenderAssessment = policy.AssessmentHighRisk }, policy.ReasonTrustTooLow, "", "High Risk"},

		{"amount over limit", func(in *policy.Input) { in.Amount = amt("150") }, policy.ReasonAmountExceedsLimit, "amount 150.00 USD exceeds the spending limit of 100.00 USD", ""},
		{"amount one cent over limit", func(in *policy.Input) { in.Amount = amt("100.01") }, policy.ReasonAmountExceedsLimit, "", ""},
		{"amount equals limit", func(in *policy.Input) { in.Amount, in.Outflow = amt("100.00"), nil }, policy.ReasonOK, "", "remaining daily budget of 100.00 USD"},

		{"daily limit reached exactly", func(in *policy.Input) {
			in.Amount = amt("40")
			in.Outflow = []policy.Outflow{out("25.5", now.Add(-time.Hour)), out("34.50", now.Add(-2*time.Hour))}
		}, policy.ReasonOK, "", "remaining daily budget of 40.00 USD"},
		{"daily limit exceeded by a cent", func(in *policy.Input) {
			in.Amount = amt("40.01")
			in.Outflow = []policy.Outflow{out("25.5", now.Add(-time.Hour)), out("34.50", now.Add(-2*time.Hour))}
		}, policy.ReasonDailyLimitExceeded, "", "remaining daily budget of 40.00 USD (limit 100.00 USD, 60.00 USD spent in the last 24 hours)"},
		{"outflow exactly 24h old does not count", func(in *policy.Input) {
			in.Amount = amt("100")
			in.Outflow = []policy.Outflow{out("50", now.Add(-policy.Window))}
		}, policy.ReasonOK, "", ""},
		{"outflow just under 24h old counts", func(in *policy.Input) {
			in.Amount = amt("100")
			in.Outflow = []policy.Outflow{out("50", now.Add(-policy.Window+time.Nanosecond))}
		}, policy.ReasonDailyLimitExceeded, "", "; 100.00 USD frees up at 2026-11-21T12:00:01Z"},
		{"outflow dated after now counts", func(in *policy.Input) {
			in.Amount = amt("60")
			in.Outflow = []policy.Outflow{out("50", now.Add(time.Second))}
		}, policy.ReasonDailyLimitExceeded, "", "frees up at 2026-11-22T12:00:01Z"},
		{"frees up", func(in *policy.Input) {
			in.Amount = amt("30")
			in.Outflow = []policy.Outflow{out("50", now.Add(-4*time.Hour)), out("30", time.Date(2026, 11, 20, 19, 51, 27, 0, time.UTC)), out("999", now.Add(-25*time.Hour))}
		}, policy.ReasonDailyLimitExceeded,
			"amount 30.00 USD exceeds the remaining daily budget of 20.00 USD (limit 100.00 USD, 80.00 USD spent in the last 24 hours); 30.00 USD frees up at 2026-11-21T19:51:27Z", ""},
		{"frees up after several expire, ties together", func(in *policy.Input) {
			in.Amount = amt("50")
			t1 := now.Add(-20 * time.Hour)
			in.Outflow = []policy.Outflow{out("30", now.Add(-time.Hour)), out("20", t1), out("10", now.Add(-22*time.Hour)), out("5", t1), out("5", t1)}
		}, policy.ReasonDailyLimitExceeded, "", "70.00 USD spent in the last 24 hours); 50.00 USD frees up at 2026-11-21T16:00:00Z"},
		{"frees up rounds up to the second", func(in *policy.Input) {
			in.Amount = amt("60")
			in.Outflow = []policy.Outflow{out("50", now.Add(-time.Hour+time.Millisecond))}
		}, policy.ReasonDailyLimitExceeded, "", "frees up at 2026-11-22T11:00:01Z"},
		{"exceeds daily limit on its own", func(in *policy.Input) {
			in.Sender.DailyLimit = ptr(amt("50"))
			in.Amount = amt("60")
		}, policy.ReasonDailyLimitExceeded, "amount 60.00 USD exceeds the daily limit of 50.00 USD on its own", ""},
		{"overspent budget shows zero remaining", func(in *policy.Input) {
			in.Outflow = []policy.Outflow{out("120", now.Add(-time.Hour))}
		}, policy.ReasonDailyLimitExceeded, "", "remaining daily budget of 0.00 USD (limit 100.00 USD, 120.00 USD spent"},

		// Precedence: each case breaks the rule under test and every later one.
		{"suspended beats everything", func(in *policy.Input) {
			in.Sender.Status, in.Receiver.Status = policy.StatusSuspended, policy.StatusSuspended
			in.Amount, in.Currency, in.Action, in.SenderAssessment = amt("1.001"), "EUR", "nope", policy.AssessmentHighRisk
		}, policy.ReasonAgentSuspended, "", ""},
		{"counterparty suspended beats invalid amount", func(in *policy.Input) {
			in.Receiver.Status, in.Amount, in.Receiver.Currency = policy.StatusSuspended, amt("-1"), "EUR"
		}, policy.ReasonCounterpartySuspended, "", ""},
		{"invalid amount beats currency mismatch", func(in *policy.Input) {
			in.Amount, in.Currency, in.Receiver.Environment = amt("1.001"), "EUR", "production"
		}, policy.ReasonInvalidAmount, "", ""},
		{"currency beats environment", func(in *policy.Input) {
			in.Receiver.Currency, in.Receiver.Environment, in.Action = "EUR", "production", "nope"
		}, policy.ReasonCurrencyMismatch, "", ""},
		{"environment beats action", func(in *policy.Input) {
			in.Receiver.Environment, in.Action, in.SenderAssessment = "production", "nope", policy.AssessmentHighRisk
		}, policy.ReasonEnvironmentMismatch, "", ""},
		{"action beats trust", func(in *policy.Input) {
			in.Action, in.SenderAssessment, in.Amount = "nope", policy.AssessmentHighRisk, amt("500")
		}, policy.ReasonActionNotAuthorized, "", ""},
		{"trust beats spending limit", func(in *policy.Input) {
			in.SenderAssessment, in.Amount = policy.AssessmentHighRisk, amt("500")
		}, policy.ReasonTrustTooLow, "", ""},
		{"spending limit beats daily limit", func(in *policy.Input) {
			in.Amount, in.Sender.DailyLimit = amt("150"), ptr(amt("10"))
		}, policy.ReasonAmountExceedsLimit, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := base()
			tt.edit(&in)
			d := policy.Evaluate(in)
			if d.ReasonCode != tt.code {
				t.Fatalf("code = %q (%s), want %q", d.ReasonCode, d.Reason, tt.code)
			}
			if d.Allowed != (tt.code == policy.ReasonOK) {
				t.Errorf("allowed = %v with code %q", d.Allowed, d.ReasonCode)
			}
			if tt.reason != "" && d.Reason != tt.reason {
				t.Errorf("reason = %q\nwant     %q", d.Reason, tt.reason)
			}
			if !strings.Contains(d.Reason, tt.substr) {
				t.Errorf("reason = %q, want it to contain %q", d.Reason, tt.substr)
			}
			if d.Reason == "" {
				t.Error("empty reason")
			}
		})
	}
}

func TestEvaluateDoesNotModifyInput(t *testing.T) {
	t.Parallel()
	in := base()
	in.Amount = amt("50")
	in.Outflow = []policy.Outflow{out("30", now.Add(-time.Hour)), out("40", now.Add(-3*time.Hour))}
	policy.Evaluate(in)
	if !in.Outflow[0].At.Equal(now.Add(-time.Hour)) {
		t.Error("Evaluate reordered the caller's outflows")
	}
}
