package dashboard

import (
	"encoding/json"
	"fmt"
)

const (
	registerMutation = `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`
	executeMutation  = `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id } }`
	reportMutation   = `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { id } }`
	policyMutation   = `mutation($id: ID!, $in: SpendPolicyInput!) { setAgentPolicy(agentId: $id, input: $in) { id } }`
)

// detailPolicy is the detail agent's spend policy: a rolling day, a calendar
// week and an hourly velocity limit, each far above what Seed spends.
var detailPolicy = map[string]any{
	"spendLimits": []map[string]any{
		{"amount": "500.00", "window": "day", "mode": "rolling"},
		{"amount": "5000.00", "window": "week", "mode": "calendar"},
	},
	"velocityLimits": []map[string]any{{"maxCount": 1000, "windowSeconds": 3600}},
}

// Seed fills two fresh organizations through the API, so every row is one
// the service wrote itself: the first (key a) gets Agents agents, the
// second (key b) a few; the detail agent gets detailPolicy; each of the first's agents pays one of the
// second's, the detail agent a few times more; the second disputes each of
// the first's agents over its payment. The first organization then has one
// full page of agents, of transactions and of disputes.
func Seed(post Post, a, b string) (*Fixture, error) {
	f := &Fixture{}
	var err error
	if f.Agents, err = register(post, a, "agent", Agents); err != nil {
		return nil, err
	}
	others, err := register(post, b, "counterparty", counterparties)
	if err != nil {
		return nil, err
	}
	f.Detail = f.Agents[0]
	if _, err := call(post, a, policyMutation, map[string]any{"id": f.Detail, "in": detailPolicy}, "setAgentPolicy"); err != nil {
		return nil, err
	}
	payments := make([]string, len(f.Agents))
	for i, from := range f.Agents {
		if payments[i], err = pay(post, a, from, others[i%len(others)]); err != nil {
			return nil, err
		}
	}
	for i := range extraPayments {
		if _, err := pay(post, a, f.Detail, others[i%len(others)]); err != nil {
			return nil, err
		}
	}
	for i, agent := range f.Agents {
		in := map[string]any{"agentId": agent, "reason": "not delivered", "evidenceIds": []string{payments[i]}}
		if _, err := call(post, b, reportMutation, map[string]any{"in": in}, "reportAgent"); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// register registers n agents as the holder of key and returns their ids.
func register(post Post, key, prefix string, n int) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		in := map[string]any{"name": fmt.Sprintf("%s %d", prefix, i), "authorizedActions": []string{"purchase", "refund"},
			"spendingLimit": "1000.50", "currency": "USD", "environment": "sandbox"}
		var err error
		if ids[i], err = call(post, key, registerMutation, map[string]any{"in": in}, "registerAgent"); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// pay executes a payment of 1.00 USD and returns the transaction's id.
func pay(post Post, key, from, to string) (string, error) {
	in := map[string]any{"fromAgent": from, "toAgent": to, "action": "purchase", "amount": "1.00", "currency": "USD"}
	return call(post, key, executeMutation, map[string]any{"in": in}, "executeTransaction")
}

// call runs a mutation with vars and returns the id of what it answered.
func call(post Post, key, mutation string, vars map[string]any, root string) (string, error) {
	out, err := post(key, Body(mutation, vars))
	if err != nil {
		return "", fmt.Errorf("seed %s: %w", root, err)
	}
	var r struct {
		Data map[string]struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &r); err != nil || r.Data[root].ID == "" {
		return "", fmt.Errorf("seed %s (%v): %.400s", root, err, out)
	}
	return r.Data[root].ID, nil
}
