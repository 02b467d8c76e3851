package policy_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/policy"
)

// TestApproval: an amount over the threshold is allowed and waits for
// approval (equal does not wait); a refusal never asks for approval, so the
// threshold never hides a failing check.
func TestApproval(t *testing.T) {
	t.Parallel()
	rule := &policy.ApprovalRule{Above: amt("50"), ExpiresAfterSeconds: 60}
	for _, tc := range []struct {
		name     string
		amount   string
		rule     *policy.ApprovalRule
		code     string
		approval bool
	}{
		{"no rule", "60", nil, policy.ReasonOK, false},
		{"below", "49.99", rule, policy.ReasonOK, false},
		{"equal", "50", rule, policy.ReasonOK, false},
		{"over", "50.01", rule, policy.ReasonOK, true},
		{"over a failing limit", "95", rule, policy.ReasonDailyLimitExceeded, false},
		{"over the spending limit", "100.01", rule, policy.ReasonAmountExceedsLimit, false},
	} {
		in := base()
		in.Amount, in.Sender.Policy.Approval = amt(tc.amount), tc.rule
		d := policy.Evaluate(in)
		if d.ReasonCode != tc.code || d.RequiresApproval != tc.approval || d.Allowed != (tc.code == policy.ReasonOK) {
			t.Errorf("%s: %+v, want %s approval %v", tc.name, d, tc.code, tc.approval)
		}
		if tc.approval && !strings.Contains(d.Reason, "over the approval threshold of 50.00 USD, it waits for an admin's approval") {
			t.Errorf("%s: reason %q", tc.name, d.Reason)
		}
	}
}

func TestValidateApproval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rule   policy.ApprovalRule
		fields []string
	}{
		{policy.ApprovalRule{Above: amt("0.01"), ExpiresAfterSeconds: policy.MinApprovalSeconds}, nil},
		{policy.ApprovalRule{Above: amt("1"), ExpiresAfterSeconds: policy.MaxApprovalSeconds}, nil},
		{policy.ApprovalRule{Above: amt("0"), ExpiresAfterSeconds: 59}, []string{"input.approval.above", "input.approval.expiresAfterSeconds"}},
		{policy.ApprovalRule{Above: amt("-1"), ExpiresAfterSeconds: 604801}, []string{"input.approval.above", "input.approval.expiresAfterSeconds"}},
		{policy.ApprovalRule{Above: amt("1.001"), ExpiresAfterSeconds: 60}, []string{"input.approval.above"}},
	} {
		err := policy.SpendPolicy{Approval: &tc.rule}.Validate("input", "USD")
		var got []string
		var fe *failure.Error
		if errors.As(err, &fe) {
			for _, f := range fe.FieldErrors {
				got = append(got, f.Field)
			}
		} else if err != nil {
			t.Fatalf("%+v: %v", tc.rule, err)
		}
		if !slices.Equal(got, tc.fields) {
			t.Errorf("%+v: fields %q, want %q", tc.rule, got, tc.fields)
		}
	}
}

// LimitPending turns only a decision that would wait into a refusal, and
// only once the agent's waiting transactions reach the bound.
func TestLimitPending(t *testing.T) {
	t.Parallel()
	wait := policy.Decision{Allowed: true, ReasonCode: policy.ReasonOK, RequiresApproval: true}
	now := policy.Decision{Allowed: true, ReasonCode: policy.ReasonOK}
	refused := policy.Decision{ReasonCode: policy.ReasonDailyLimitExceeded, Reason: "over"}
	for _, tc := range []struct {
		name         string
		d            policy.Decision
		pending, max int
		code         string
	}{
		{"waits, room left", wait, 49, 50, policy.ReasonOK},
		{"waits, full", wait, 50, 50, policy.ReasonTooManyPendingApprovals},
		{"waits, over a lowered bound", wait, 70, 50, policy.ReasonTooManyPendingApprovals},
		{"completes, full", now, 50, 50, policy.ReasonOK},
		{"refused, full", refused, 50, 50, policy.ReasonDailyLimitExceeded},
	} {
		got := policy.LimitPending(tc.d, "agent_x", tc.pending, tc.max)
		if got.ReasonCode != tc.code || got.Allowed != (tc.d.Allowed && tc.code == policy.ReasonOK) {
			t.Errorf("%s: %+v, want %s", tc.name, got, tc.code)
		}
		if tc.code == policy.ReasonTooManyPendingApprovals && (got.RequiresApproval || !strings.Contains(got.Reason, "agent_x") ||
			!strings.Contains(got.Reason, "APPROVAL_MAX_PENDING is 50")) {
			t.Errorf("%s: reason %q", tc.name, got.Reason)
		}
	}
}
