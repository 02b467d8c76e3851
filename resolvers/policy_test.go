package resolvers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/money"
)

const policyFields = `version timezone spendLimits { amount window mode actions } velocityLimits { maxCount windowSeconds actions }
 counterparties { allowAgents denyAgents allowOrgs denyOrgs } minCounterpartyScore trustTiers { minScore limitPercent }`

const setPolicyMutation = `mutation($id: ID!, $in: SpendPolicyInput!, $v: Int) { setAgentPolicy(agentId: $id, input: $in, expectedVersion: $v) {
 dailyLimit fingerprint policy { ` + policyFields + ` } } }`

type policyLimit struct {
	Amount  json.Number `json:"amount"`
	Window  string      `json:"window"`
	Mode    string      `json:"mode"`
	Actions []string    `json:"actions"`
}

type policyView struct {
	DailyLimit  *json.Number `json:"dailyLimit"`
	Fingerprint string       `json:"fingerprint"`
	Policy      struct {
		Version        int           `json:"version"`
		Timezone       string        `json:"timezone"`
		SpendLimits    []policyLimit `json:"spendLimits"`
		VelocityLimits []struct {
			MaxCount      int `json:"maxCount"`
			WindowSeconds int `json:"windowSeconds"`
		} `json:"velocityLimits"`
		Counterparties struct {
			DenyAgents []string `json:"denyAgents"`
			AllowOrgs  []string `json:"allowOrgs"`
		} `json:"counterparties"`
		MinCounterpartyScore *int `json:"minCounterpartyScore"`
	} `json:"policy"`
}

func setPolicy(t *testing.T, b *testkit.Kit, id string, in map[string]any, version any) policyView {
	t.Helper()
	var v policyView
	b.Query(setPolicyMutation, map[string]any{"id": id, "in": in, "v": version}).Into(t, "setAgentPolicy", &v)
	return v
}

func readPolicy(t *testing.T, b *testkit.Kit, id string) policyView {
	t.Helper()
	var v policyView
	b.Query(`query($id: ID!) { agent(id: $id) { dailyLimit fingerprint policy { `+policyFields+` } } }`, map[string]any{"id": id}).Into(t, "agent", &v)
	return v
}

func TestSetAgentPolicy(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "50"})
	p := readPolicy(t, b, a.ID)
	if p.Policy.Version != 1 || p.Policy.Timezone != "UTC" || len(p.Policy.SpendLimits) != 1 ||
		fmt.Sprint(p.Policy.SpendLimits[0]) != fmt.Sprint(policyLimit{Amount: "50", Window: "day", Mode: "rolling"}) {
		t.Fatalf("initial policy: %+v", p)
	}

	in := map[string]any{"timezone": "Europe/Berlin", "spendLimits": []any{
		map[string]any{"amount": "500", "window": "week", "mode": "calendar", "actions": []string{"purchase"}},
		map[string]any{"amount": "40", "window": "day"},
	}, "velocityLimits": []any{map[string]any{"maxCount": 5, "windowSeconds": 60}},
		"counterparties": map[string]any{"denyAgents": []string{"agent_nobody"}}, "minCounterpartyScore": 10}
	v := setPolicy(t, b, a.ID, in, 1)
	if v.Policy.Version != 2 || v.DailyLimit == nil || *v.DailyLimit != "40" || v.Fingerprint == a.Fingerprint ||
		len(v.Policy.SpendLimits) != 2 || v.Policy.SpendLimits[0].Window != "day" || v.Policy.SpendLimits[1].Mode != "calendar" ||
		v.Policy.Timezone != "Europe/Berlin" || len(v.Policy.VelocityLimits) != 1 || v.Policy.Counterparties.DenyAgents[0] != "agent_nobody" ||
		v.Policy.Counterparties.AllowOrgs == nil || *v.Policy.MinCounterpartyScore != 10 {
		t.Fatalf("after set: %+v", v)
	}
	got, _ := json.Marshal(readPolicy(t, b, a.ID))
	if set, _ := json.Marshal(v); string(got) != string(set) {
		t.Fatalf("read back %s, set %s", got, set)
	}
	// A page of agents reads the policy only when asked for it, and then answers the same.
	for _, q := range []string{
		`{ agents { nodes { dailyLimit fingerprint policy { ` + policyFields + ` } } } }`,
		`{ agents { edges { node { dailyLimit fingerprint trust { score } ...on Agent { policy { ` + policyFields + ` } } } } } }`,
	} {
		var page struct {
			Nodes []policyView `json:"nodes"`
			Edges []struct {
				Node policyView `json:"node"`
			} `json:"edges"`
		}
		b.Query(q, nil).Into(t, "agents", &page)
		for _, e := range page.Edges {
			page.Nodes = append(page.Nodes, e.Node)
		}
		if listed, _ := json.Marshal(page.Nodes); string(listed) != "["+string(got)+"]" {
			t.Fatalf("%s: listed %s, read %s", q, listed, got)
		}
	}
	chain := b.AuditChain(a.ID)
	last := chain[len(chain)-1]
	if last.Action != "agent.policy_changed" || fmt.Sprint(last.Details["version"]) != "2" {
		t.Fatalf("audit entry: %+v", last)
	}
	testkit.CheckChain(t, chain)
	if vf := b.Verify(a.ID); !vf.Verified || vf.Fingerprint != v.Fingerprint || !vf.AuditChainValid {
		t.Fatalf("verify after policy change: %+v", vf)
	}
	events := b.EventsOf(b.OrgID, "agent.policy_changed")
	if len(events) != 1 {
		t.Fatalf("policy_changed events: %d", len(events))
	}
	var data struct {
		Fingerprint string `json:"fingerprint"`
		Policy      struct {
			Version int `json:"version"`
		} `json:"policy"`
	}
	if err := json.Unmarshal(events[0].Data, &data); err != nil || data.Policy.Version != 2 || data.Fingerprint != v.Fingerprint {
		t.Fatalf("event data %s (%v)", events[0].Data, err)
	}

	// A stale version is CONFLICT and changes nothing; the same input again changes nothing.
	b.Do(b.Key, setPolicyMutation, map[string]any{"id": a.ID, "in": map[string]any{"timezone": nil}, "v": 1}).Refused(t, "CONFLICT")
	if again := setPolicy(t, b, a.ID, in, 2); again.Policy.Version != 2 || again.Fingerprint != v.Fingerprint {
		t.Fatalf("unchanged set: %+v", again)
	}

	// dailyLimit and the rolling day entry are one: editing either edits the other.
	b.UpdateAgent(a.ID, map[string]any{"dailyLimit": "30"})
	if p := readPolicy(t, b, a.ID); p.Policy.Version != 3 || p.Policy.SpendLimits[0].Amount != "30" {
		t.Fatalf("after updateAgent: %+v", p)
	}
	v = setPolicy(t, b, a.ID, map[string]any{"spendLimits": []any{map[string]any{"amount": "9", "window": "total"}}, "timezone": nil}, nil)
	if v.DailyLimit != nil || v.Policy.Version != 4 || len(v.Policy.SpendLimits) != 1 || v.Policy.Timezone != "UTC" ||
		len(v.Policy.VelocityLimits) != 1 {
		t.Fatalf("after replacing the limits: %+v", v)
	}

	// Every bad field is named.
	r := b.Do(b.Key, setPolicyMutation, map[string]any{"id": a.ID, "in": map[string]any{"timezone": "Mars/Base",
		"spendLimits":    []any{map[string]any{"amount": "1.001", "window": "week", "actions": []string{}}},
		"velocityLimits": []any{map[string]any{"maxCount": 0, "windowSeconds": 60}}, "trustTiers": []any{map[string]any{"minScore": 1, "limitPercent": 0}}}})
	r.Refused(t, "VALIDATION_FAILED")
	if got := strings.Join(r.Fields(t), " "); got != "input.spendLimits[0].actions input.spendLimits[0].amount input.timezone input.trustTiers[0].limitPercent input.velocityLimits[0].maxCount" {
		t.Fatalf("fields: %s", got)
	}
	b.Do(b.Key, setPolicyMutation, map[string]any{"id": "agent_nonexistent0000", "in": map[string]any{}}).Refused(t, "NOT_FOUND")
}

// evaluateWith runs evaluateTrust with a counterparty.
func evaluateWith(t *testing.T, b *testkit.Kit, from, to testkit.Agent, amount string) testkit.Evaluation {
	t.Helper()
	var e testkit.Evaluation
	b.Query(`query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`,
		map[string]any{"in": map[string]any{"agentId": from.ID, "action": "purchase", "amount": amount, "currency": "USD", "toAgent": to.ID}}).
		Into(t, "evaluateTrust", &e)
	return e
}

// refusedAlike requires evaluateTrust and executeTransaction to refuse with
// code and a reason containing substr, the same reason both ways.
func refusedAlike(t *testing.T, b *testkit.Kit, from, to testkit.Agent, amount, code, substr string) {
	t.Helper()
	e := evaluateWith(t, b, from, to, amount)
	r := b.Execute(b.Key, testkit.Pay(from, to, amount))
	r.Refused(t, "POLICY_DENIED")
	reason, _ := r.Errors[0].Extensions["reason"].(string)
	if e.Allowed || e.ReasonCode != code || r.ReasonCode() != code || reason != e.Reason || !strings.Contains(reason, substr) {
		t.Fatalf("want %s (%q):\nevaluate %+v\nexecute  %s %q", code, substr, e, r.ReasonCode(), reason)
	}
}

func TestPolicyRefusals(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	otherOrg, otherKey := b.NewOrg("shop")
	a := b.Register(map[string]any{"spendingLimit": "100"})
	mine := b.Register(map[string]any{"name": "mine"})
	shop := b.RegisterAs(otherKey, map[string]any{"name": "shop"})
	blocked := b.RegisterAs(otherKey, map[string]any{"name": "blocked"})

	setPolicy(t, b, a.ID, map[string]any{"counterparties": map[string]any{"denyAgents": []string{blocked.ID}, "allowOrgs": []string{otherOrg}}}, nil)
	refusedAlike(t, b, a, blocked, "1", "counterparty_blocked", blocked.ID+" is on the policy's deny list")
	refusedAlike(t, b, a, mine, "1", "counterparty_not_allowed", "is not on the policy's allow list")
	setPolicy(t, b, a.ID, map[string]any{"counterparties": nil, "minCounterpartyScore": 1000}, nil)
	refusedAlike(t, b, a, shop, "1", "counterparty_trust_too_low", "below the policy's minimum of 1000")

	// A tier at 0 scales the spending limit to 40%.
	setPolicy(t, b, a.ID, map[string]any{"minCounterpartyScore": nil, "trustTiers": []any{map[string]any{"minScore": 0, "limitPercent": 40}}}, nil)
	refusedAlike(t, b, a, shop, "40.01", "amount_exceeds_limit", "spending limit of 40.00 USD (trust tier 0+ applies")

	setPolicy(t, b, a.ID, map[string]any{"trustTiers": nil, "velocityLimits": []any{map[string]any{"maxCount": 2, "windowSeconds": 60}},
		"spendLimits": []any{map[string]any{"amount": "50", "window": "week"}, map[string]any{"amount": "45", "window": "month", "mode": "calendar"},
			map[string]any{"amount": "60", "window": "total"}}}, nil)
	b.MustExecute(b.Key, testkit.Pay(a, shop, "20"))
	b.MustExecute(b.Key, testkit.Pay(a, shop, "20"))
	refusedAlike(t, b, a, shop, "1", "velocity_limit_exceeded", "velocity limit of 2 transactions per 60 seconds reached")
	clk.Advance(time.Minute)
	refusedAlike(t, b, a, shop, "10.01", "weekly_limit_exceeded", "remaining weekly budget of 10.00 USD (limit 50.00 USD, 40.00 USD spent in the last 7 days)")
	refusedAlike(t, b, a, shop, "5.01", "monthly_limit_exceeded", "the budget resets at")
	// A reversal gives no capacity back.
	tx := b.MustExecute(b.Key, testkit.Pay(a, shop, "5"))
	if r := b.Reverse(b.Key, tx.ID, "test"); len(r.Errors) > 0 {
		t.Fatalf("reverse: %s", r.Body)
	}
	refusedAlike(t, b, a, shop, "0.01", "monthly_limit_exceeded", "45.00 USD spent since")
	clk.Advance(40 * 24 * time.Hour)
	refusedAlike(t, b, a, shop, "15.01", "total_limit_exceeded", "(limit 60.00 USD, 45.00 USD spent in total); a total limit never resets")
	b.MustExecute(b.Key, testkit.Pay(a, shop, "15"))
}

// A storm of concurrent executes through the handler against a weekly limit
// and a velocity limit: exactly what fits completes, never more.
func TestPolicyStorm(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	for _, tt := range []struct {
		amount string
		want   map[string]int
	}{
		{"20", map[string]int{"ok": 5, "weekly_limit_exceeded": 35}},   // the weekly 100 binds
		{"10", map[string]int{"ok": 7, "velocity_limit_exceeded": 33}}, // the velocity 7 binds
		{"13", map[string]int{"ok": 7, "velocity_limit_exceeded": 33}}, // 91: both nearly
	} {
		a := b.Register(map[string]any{"spendingLimit": "100"})
		setPolicy(t, b, a.ID, map[string]any{"spendLimits": []any{map[string]any{"amount": "100", "window": "week"}},
			"velocityLimits": []any{map[string]any{"maxCount": 7, "windowSeconds": 3600}}}, nil)
		codes := make([]string, 40)
		var wg sync.WaitGroup
		inFlight := make(chan struct{}, 16) // as TestLimitStormDoesNotLockOut: leave connections for key lookups
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inFlight <- struct{}{}
				defer func() { <-inFlight }()
				r := b.Execute(b.Key, testkit.Pay(a, shop, tt.amount))
				codes[i] = "ok"
				if len(r.Errors) > 0 {
					codes[i] = r.ReasonCode()
				}
			}()
		}
		wg.Wait()
		got := map[string]int{}
		for _, c := range codes {
			got[c]++
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Fatalf("storm of %s: %v, want %v", tt.amount, got, tt.want)
		}
		var sum string
		var n int
		if err := b.SQL().QueryRow(`SELECT coalesce(sum(amount), 0)::text, count(*) FROM transactions WHERE from_agent = $1`, a.ID).Scan(&sum, &n); err != nil {
			t.Fatal(err)
		}
		if money.MustParse(sum).Cmp(money.MustParse("100")) > 0 || n > 7 || n != tt.want["ok"] {
			t.Fatalf("storm of %s stored %s in %d transactions", tt.amount, sum, n)
		}
	}
}

// A rolling window whose start falls inside an hour counts exactly the
// outflow after it: the hour's bucket is not taken whole either way.
func TestPolicyWindowEdgeInsideAnHour(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "100"})
	setPolicy(t, b, a.ID, map[string]any{"velocityLimits": []any{map[string]any{"maxCount": 2, "windowSeconds": 24*3600 + 16*60}}}, nil)
	now := clk.Now()
	clk.Advance(now.Truncate(time.Hour).Add(time.Hour + 5*time.Minute).Sub(now)) // H+5m
	b.MustExecute(b.Key, testkit.Pay(a, shop, "30"))                             // H+5m
	clk.Advance(30 * time.Minute)
	b.MustExecute(b.Key, testkit.Pay(a, shop, "30")) // H+35m
	clk.Advance(24*time.Hour - 15*time.Minute)       // H+24h+20m: the day began at H+20m, the velocity window at H+4m
	refusedAlike(t, b, a, shop, "1", "velocity_limit_exceeded", "(2 in the last 87360 seconds); the next one is allowed at")
	clk.Advance(time.Minute) // H+24h+21m: the velocity window begins at H+5m, so the first payment has left it
	if e := evaluateWith(t, b, a, shop, "70"); !e.Allowed || !strings.Contains(e.Reason, "remaining daily budget of 70.00 USD") {
		t.Fatalf("70 of the 70 left: %+v", e)
	}
	refusedAlike(t, b, a, shop, "70.01", "daily_limit_exceeded", "(limit 100.00 USD, 30.00 USD spent in the last 24 hours)")
}
