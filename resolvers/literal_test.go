package resolvers_test

import (
	"fmt"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// A Decimal written as a literal in the document means exactly what the same
// text means as a variable or a string: gqlparser's float64 reading of
// number literals never reaches an amount.
func TestDecimalLiterals(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	register := func(limit string) *testkit.Response {
		return b.Do(b.Key, fmt.Sprintf(`mutation { registerAgent(input: {name: "lit", authorizedActions: ["a"],
			spendingLimit: %s, currency: "USD", environment: sandbox}) { spendingLimit } }`, limit), nil)
	}
	for _, c := range []struct{ literal, want string }{
		{"70368744177664.01", "70368744177664.01"}, // float64 would make it …64.02
		{"0.1", "0.1"},
		{"100", "100"},
		{"999999999999999.99", "999999999999999.99"},
		{"1.50", "1.5"},
	} {
		var a testkit.Agent
		register(c.literal).Into(t, "registerAgent", &a)
		if string(a.SpendingLimit) != c.want {
			t.Errorf("literal %s stored as %s, want %s", c.literal, a.SpendingLimit, c.want)
		}
	}
	// Refused as the same text would be as a variable: VALIDATION_FAILED, never INTERNAL.
	for _, literal := range []string{
		"0.30000000000000001",  // float64 would accept it as 0.3
		"1e400",                // float64 overflow
		"99999999999999999999", // above int64
		"1e-400",
		"0.001",
	} {
		// gqlparser's own validation refuses some literals first, as a
		// document error; either way, never INTERNAL and never stored.
		if r := register(literal); r.Code() == "GRAPHQL_VALIDATION_FAILED" {
			r.Refused(t, "GRAPHQL_VALIDATION_FAILED")
		} else if f := r.Fields(t); len(f) != 1 || f[0] != "input.spendingLimit" {
			t.Errorf("literal %s: fields %v", literal, f)
		}
		v := b.Do(b.Key, testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"spendingLimit": literal})})
		if f := v.Fields(t); len(f) != 1 || f[0] != "input.spendingLimit" {
			t.Errorf("variable %q: fields %v", literal, f)
		}
	}
	// Variable defaults and evaluateTrust's inline input take the raw text too.
	var a testkit.Agent
	b.Do(b.Key, `mutation($l: Decimal = 70368744177664.01) { registerAgent(input: {name: "d", authorizedActions: ["a"],
		spendingLimit: $l, currency: "USD", environment: sandbox}) { `+testkit.AgentFields+` } }`, nil).Into(t, "registerAgent", &a)
	if string(a.SpendingLimit) != "70368744177664.01" {
		t.Fatalf("variable default stored as %s", a.SpendingLimit)
	}
	var ev struct{ Allowed bool }
	b.Do(b.Key, fmt.Sprintf(`{ evaluateTrust(input: {agentId: %q, action: "a", amount: 70368744177664.01, currency: "USD"}) { allowed } }`, a.ID), nil).
		Into(t, "evaluateTrust", &ev)
	if !ev.Allowed {
		t.Fatal("an amount equal to the limit, written as a literal, is refused")
	}
	var ev2 struct{ ReasonCode string }
	b.Do(b.Key, fmt.Sprintf(`{ evaluateTrust(input: {agentId: %q, action: "a", amount: 70368744177664.02, currency: "USD"}) { reasonCode } }`, a.ID), nil).
		Into(t, "evaluateTrust", &ev2)
	if ev2.ReasonCode != "amount_exceeds_limit" {
		t.Fatalf("a cent over the limit as a literal: %q", ev2.ReasonCode)
	}
}
