package policy_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/policy"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	good := policy.SpendPolicy{
		Timezone: "Europe/Berlin",
		SpendLimits: []policy.SpendLimit{limit("100", policy.WindowDay, policy.ModeRolling),
			limit("100", policy.WindowDay, policy.ModeRolling, "pay"), limit("500", policy.WindowTotal, policy.ModeCalendar)},
		VelocityLimits:       []policy.VelocityLimit{{MaxCount: 1, WindowSeconds: policy.MaxVelocitySeconds}},
		Counterparties:       policy.CounterpartyRules{AllowOrgs: []string{"org_a"}, DenyAgents: []string{"agent_b"}},
		MinCounterpartyScore: intp(1000),
		TrustTiers:           []policy.TrustTier{{MinScore: 0, LimitPercent: 1}, {MinScore: 1000, LimitPercent: 100}},
	}
	if err := good.Validate("input", "USD"); err != nil {
		t.Fatalf("good policy: %v", err)
	}
	if err := (policy.SpendPolicy{}).Validate("input", "USD"); err != nil {
		t.Fatalf("empty policy: %v", err)
	}
	bad := policy.SpendPolicy{
		Timezone: "Mars/Olympus",
		SpendLimits: []policy.SpendLimit{
			{Amount: amt("0"), Window: "year", Mode: "sliding", Actions: []string{}},
			limit("1.001", policy.WindowDay, policy.ModeRolling, " "),
			limit("5", policy.WindowTotal, policy.ModeRolling), limit("6", policy.WindowTotal, policy.ModeCalendar),
		},
		VelocityLimits:       []policy.VelocityLimit{{MaxCount: 0, WindowSeconds: policy.MaxVelocitySeconds + 1}},
		Counterparties:       policy.CounterpartyRules{DenyOrgs: []string{""}},
		MinCounterpartyScore: intp(-1),
		TrustTiers:           []policy.TrustTier{{MinScore: 5, LimitPercent: 0}, {MinScore: 5, LimitPercent: 101}, {MinScore: 1001, LimitPercent: 50}},
	}
	err := bad.Validate("input", "USD")
	var fe *failure.Error
	if !errors.As(err, &fe) || fe.Code != failure.ValidationFailed {
		t.Fatalf("err = %v, want VALIDATION_FAILED", err)
	}
	var got []string
	for _, f := range fe.FieldErrors {
		got = append(got, f.Field)
	}
	want := []string{"input.timezone", "input.spendLimits[0].amount", "input.spendLimits[0].window", "input.spendLimits[0].mode",
		"input.spendLimits[0].actions", "input.spendLimits[1].amount", "input.spendLimits[1].actions", "input.spendLimits[3]",
		"input.velocityLimits[0].maxCount", "input.velocityLimits[0].windowSeconds", "input.counterparties.denyOrgs",
		"input.minCounterpartyScore", "input.trustTiers[0].limitPercent", "input.trustTiers[1].minScore",
		"input.trustTiers[1].limitPercent", "input.trustTiers[2].minScore"}
	if !slices.Equal(got, want) {
		t.Errorf("fields = %q\nwant     %q", got, want)
	}
	if err := (policy.SpendPolicy{Timezone: "Local"}).Validate("input", "USD"); err == nil {
		t.Error(`timezone "Local" accepted`)
	}
}
