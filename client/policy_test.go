package client_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestAgentsPolicy(t *testing.T) {
	t.Parallel()
	b := setup(t)
	daily := dec("50")
	a, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "buyer", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("100"), Currency: "USD", Environment: client.Sandbox, DailyLimit: &daily})
	if err != nil {
		t.Fatal(err)
	}
	shop, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "shop", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("1"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.c.Agents.Policy(b.ctx, a.ID)
	if err != nil || p.Version != 1 || p.Timezone != "UTC" || len(p.SpendLimits) != 1 || !p.SpendLimits[0].Amount.Equal(daily) ||
		p.SpendLimits[0].Window != client.WindowDay || p.SpendLimits[0].Mode != client.ModeRolling || p.Counterparties.DenyAgents == nil {
		t.Fatalf("policy: %+v %v", p, err)
	}

	one, tz := 1, "America/New_York"
	p, err = b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{Timezone: &tz,
		SpendLimits:    []client.SpendLimit{{Amount: dec("30"), Window: client.WindowMonth, Mode: client.ModeCalendar, Actions: []string{"purchase"}}},
		VelocityLimits: []client.VelocityLimit{{MaxCount: 3, WindowSeconds: 3600}},
		Counterparties: &client.CounterpartyRules{DenyAgents: []string{"agent_nobody"}},
		TrustTiers:     []client.TrustTier{{MinScore: 0, LimitPercent: 50}}}, &one)
	if err != nil || p.Version != 2 || p.Timezone != tz || len(p.SpendLimits) != 1 || p.SpendLimits[0].Window != client.WindowMonth ||
		len(p.VelocityLimits) != 1 || p.Counterparties.DenyAgents[0] != "agent_nobody" || p.TrustTiers[0].LimitPercent != 50 {
		t.Fatalf("set policy: %+v %v", p, err)
	}
	if got, _ := b.c.Agents.Get(b.ctx, a.ID); got.DailyLimit != nil {
		t.Fatalf("daily limit kept after replacing the spend limits: %v", got.DailyLimit)
	}

	_, err = b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{Timezone: &tz}, &one)
	var conflict *client.ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("stale version: %v", err)
	}
	bad := "Nowhere/Town"
	_, err = b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{Timezone: &bad, VelocityLimits: []client.VelocityLimit{{MaxCount: 0, WindowSeconds: 1}}}, nil)
	var invalid *client.ValidationError
	if !errors.As(err, &invalid) || len(invalid.FieldErrors) != 2 {
		t.Fatalf("invalid policy: %v", err)
	}
	if _, err := b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{MinCounterpartyScore: &one, RemoveMinCounterpartyScore: true}, nil); err == nil {
		t.Fatal("MinCounterpartyScore with RemoveMinCounterpartyScore accepted")
	}

	// The tier halves the spending limit: 50.01 is refused with the tier named.
	_, err = b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase", Amount: dec("50.01"), Currency: "USD"})
	var denied *client.PolicyDeniedError
	if !errors.As(err, &denied) || denied.ReasonCode != "amount_exceeds_limit" || !strings.Contains(denied.Reason, "trust tier 0+") {
		t.Fatalf("execute over the tier: %v", err)
	}
	// The calendar month's 30 is halved to 15.
	if _, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase", Amount: dec("15"), Currency: "USD"}); err != nil {
		t.Fatal(err)
	}
	_, err = b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase", Amount: dec("0.01"), Currency: "USD"})
	if !errors.As(err, &denied) || denied.ReasonCode != "monthly_limit_exceeded" || !strings.Contains(denied.Reason, "the budget resets at") {
		t.Fatalf("execute over the month: %v", err)
	}
}
