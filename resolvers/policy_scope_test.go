package resolvers_test

import (
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// A limit restricted to some actions neither counts nor judges a
// transaction of another action, in evaluate and execute alike.
func TestLimitOnOtherActionsThroughExecute(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(map[string]any{"spendingLimit": "1000", "authorizedActions": []any{"transfer", "payment"}})
	seller := k.Register(map[string]any{"name": "seller"})
	k.SetPolicy(k.Key, a.ID, map[string]any{
		"spendLimits":    []any{map[string]any{"amount": "50", "window": "day", "mode": "calendar", "actions": []string{"transfer"}}},
		"velocityLimits": []any{map[string]any{"maxCount": 1, "windowSeconds": 3600, "actions": []string{"transfer"}}}})
	pay := func(action, amount string) map[string]any {
		in := testkit.Pay(a, seller, amount)
		in["action"] = action
		return in
	}
	if e := k.Evaluate(a.ID, "payment", "200", "USD"); !e.Allowed {
		t.Fatalf("evaluate payment of 200: %+v", e)
	}
	k.MustExecute(k.Key, pay("payment", "200"))
	k.MustExecute(k.Key, pay("transfer", "10"))
	k.MustExecute(k.Key, pay("payment", "5")) // the transfer velocity limit does not judge a payment
	if r := k.Execute(k.Key, pay("transfer", "1")); r.ReasonCode() != "velocity_limit_exceeded" {
		t.Fatalf("second transfer in the hour: %s", r.Body)
	}
}

// Refusal reasons name nothing of another organization beyond its agent's
// id: not its organization, currency or environment.
func TestRefusalReasonsKeepOtherOrganizationsPrivate(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	other := k.NewOrgWithKey("other")
	a := k.Register(map[string]any{"spendingLimit": "1000"})
	eur := k.RegisterAs(other.Key, map[string]any{"name": "eur", "currency": "EUR"})
	prod := k.RegisterAs(other.Key, map[string]any{"name": "prod", "environment": "production"})
	theirs := k.RegisterAs(other.Key, map[string]any{"name": "theirs"})
	check := func(to testkit.Agent, code string) {
		t.Helper()
		r := k.Execute(k.Key, testkit.Pay(a, to, "5"))
		if r.ReasonCode() != code {
			t.Fatalf("pay %s: %s", to.ID, r.Body)
		}
		for _, secret := range []string{other.ID, "EUR", "production"} {
			if strings.Contains(r.Body, secret) {
				t.Errorf("%s refusal names %q: %s", code, secret, r.Body)
			}
		}
	}
	check(eur, "currency_mismatch")
	check(prod, "environment_mismatch")
	k.SetPolicy(k.Key, a.ID, map[string]any{"counterparties": map[string]any{"allowAgents": []string{eur.ID}}})
	check(theirs, "counterparty_not_allowed")
	k.SetPolicy(k.Key, a.ID, map[string]any{"counterparties": map[string]any{"denyOrgs": []string{other.ID}}})
	r := k.Execute(k.Key, testkit.Pay(a, theirs, "5"))
	if r.ReasonCode() != "counterparty_blocked" || strings.Count(r.Body, other.ID) != 0 {
		t.Errorf("deny by organization: %s", r.Body)
	}
}
