package resolvers_test

import (
	"testing"
)

const agentFields = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt`

type agentJSON struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	AuthorizedActions []string `json:"authorizedActions"`
	SpendingLimit     any      `json:"spendingLimit"`
	DailyLimit        any      `json:"dailyLimit"`
	Currency          string   `json:"currency"`
	Environment       string   `json:"environment"`
	Status            string   `json:"status"`
	Fingerprint       string   `json:"fingerprint"`
	CreatedAt         string   `json:"createdAt"`
	UpdatedAt         string   `json:"updatedAt"`
	AuditChain        []struct {
		Sequence     int            `json:"sequence"`
		Action       string         `json:"action"`
		Actor        string         `json:"actor"`
		Hash         string         `json:"hash"`
		PreviousHash *string        `json:"previousHash"`
		Details      map[string]any `json:"details"`
	} `json:"auditChain"`
}

const registerMutation = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { ` + agentFields + ` auditChain { sequence action actor hash previousHash details } } }`

func registerInput(overrides map[string]any) map[string]any {
	in := map[string]any{
		"name": "buyer", "authorizedActions": []any{"purchase", "refund"},
		"spendingLimit": "100.50", "currency": "USD", "environment": "sandbox",
	}
	for k, v := range overrides {
		if v == nil {
			delete(in, k)
		} else {
			in[k] = v
		}
	}
	return in
}

func (b *bundle) register(overrides map[string]any) agentJSON {
	b.t.Helper()
	var a agentJSON
	b.q(registerMutation, map[string]any{"input": registerInput(overrides)}).into(b.t, "registerAgent", &a)
	return a
}

func TestRegisterAgent(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a := b.register(map[string]any{"dailyLimit": 250})
	if a.Name != "buyer" || a.Currency != "USD" || a.Environment != "sandbox" || a.Status != "active" {
		t.Fatalf("unexpected agent: %+v", a)
	}
	if a.SpendingLimit != 100.5 || a.DailyLimit != 250.0 {
		t.Fatalf("limits: %v %v", a.SpendingLimit, a.DailyLimit)
	}
	if len(a.AuditChain) != 1 || a.AuditChain[0].Action != "agent.registered" || a.AuditChain[0].PreviousHash != nil {
		t.Fatalf("audit chain: %+v", a.AuditChain)
	}
	t.Logf("%+v", a)
}
