package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/money"
)

const usageQuery = `query($id: ID!) { agent(id: $id) { policyUsage {
 spendLimits { window mode actions limit used remaining resetsAt freesUpAt }
 velocityLimits { windowSeconds actions maxCount count } } } }`

type limitUsage struct {
	Window    string      `json:"window"`
	Mode      string      `json:"mode"`
	Actions   []string    `json:"actions"`
	Limit     json.Number `json:"limit"`
	Used      json.Number `json:"used"`
	Remaining json.Number `json:"remaining"`
	ResetsAt  *string     `json:"resetsAt"`
	FreesUpAt *string     `json:"freesUpAt"`
}

type policyUsage struct {
	SpendLimits    []limitUsage `json:"spendLimits"`
	VelocityLimits []struct {
		WindowSeconds int      `json:"windowSeconds"`
		Actions       []string `json:"actions"`
		MaxCount      int      `json:"maxCount"`
		Count         int      `json:"count"`
	} `json:"velocityLimits"`
}

func readUsage(t *testing.T, k *testkit.Kit, key, id string) policyUsage {
	t.Helper()
	var a struct {
		PolicyUsage policyUsage `json:"policyUsage"`
	}
	k.Do(key, usageQuery, map[string]any{"id": id}).Into(t, "agent", &a)
	return a.PolicyUsage
}

func windowCode(w string) string {
	return map[string]string{"day": "daily_limit_exceeded", "week": "weekly_limit_exceeded",
		"month": "monthly_limit_exceeded", "total": "total_limit_exceeded"}[w]
}

// policyUsage agrees with the refusal an execute gives at the same moment:
// for every window kind and mode, with a trust tier and with actions, an
// execute of remaining + 0.01 is refused with the window's code and an
// execute of remaining (read again just before it) completes.
func TestPolicyUsageAgreesWithExecute(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	clock := k.Clock()
	seller := k.Register(map[string]any{"name": "seller", "authorizedActions": []any{"refund"}})
	type agentCase struct {
		name   string
		limit  map[string]any
		tiered bool
		id     string
	}
	var cases []*agentCase
	for _, w := range []string{"day", "week", "month", "total"} {
		for _, m := range []string{"rolling", "calendar"} {
			for i, actions := range [][]string{nil, {"purchase"}} {
				c := &agentCase{name: fmt.Sprintf("%s/%s/%v", w, m, actions), tiered: i == 1,
					limit: map[string]any{"amount": "90", "window": w, "mode": m, "actions": actions}}
				a := k.Register(map[string]any{"name": "buyer " + c.name, "spendingLimit": "1000"})
				in := map[string]any{"timezone": "Pacific/Chatham", "spendLimits": []any{c.limit},
					"velocityLimits": []any{map[string]any{"maxCount": 50, "windowSeconds": 7200}}}
				if c.tiered {
					in["trustTiers"] = []any{map[string]any{"minScore": 0, "limitPercent": 80}}
				}
				k.SetPolicy(k.Key, a.ID, in)
				c.id = a.ID
				cases = append(cases, c)
			}
		}
	}
	// A history spread over two days, with a refund the purchase-only limits do not count.
	history := []struct {
		after  time.Duration
		amount string
		action string
	}{{0, "10", "purchase"}, {20 * time.Hour, "15.25", "purchase"}, {time.Hour, "7", "refund"}, {5 * time.Hour, "3.10", "purchase"}}
	for _, h := range history {
		clock.Advance(h.after)
		for _, c := range cases {
			pay := testkit.Pay(testkit.Agent{ID: c.id, Currency: "USD"}, seller, h.amount)
			pay["action"] = h.action
			k.MustExecute(k.Key, pay)
		}
	}
	clock.Advance(30 * time.Minute)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := readUsage(t, k, k.Key, c.id)
			if len(u.SpendLimits) != 1 || len(u.VelocityLimits) != 1 {
				t.Fatalf("usage: %+v", u)
			}
			if v := u.VelocityLimits[0]; v.Count != 1 || v.MaxCount != 50 {
				t.Errorf("velocity in the last 2 hours: %+v, want 1 of 50", v)
			}
			l := u.SpendLimits[0]
			wantLimit := "90"
			if c.tiered {
				wantLimit = "72"
			}
			if l.Limit.String() != wantLimit || l.Window != c.limit["window"] || l.Mode != c.limit["mode"] {
				t.Fatalf("usage %+v, want limit %s", l, wantLimit)
			}
			checkUsageTimes(t, l)
			over := money.MustParse(l.Remaining.String()).Add(money.MustParse("0.01"))
			pay := testkit.Pay(testkit.Agent{ID: c.id, Currency: "USD"}, seller, over.String())
			r := k.Execute(k.Key, pay)
			if r.Code() != "POLICY_DENIED" || r.ReasonCode() != windowCode(l.Window) {
				t.Fatalf("remaining %s + 0.01: %s", l.Remaining, r.Body)
			}
			l = readUsage(t, k, k.Key, c.id).SpendLimits[0]
			if l.Remaining.String() == "0" {
				t.Fatalf("nothing remains: %+v", l)
			}
			pay["amount"] = l.Remaining.String()
			k.MustExecute(k.Key, pay)
			if l = readUsage(t, k, k.Key, c.id).SpendLimits[0]; l.Remaining.String() != "0" || l.Used.String() != l.Limit.String() {
				t.Errorf("after spending the remainder: %+v", l)
			}
		})
	}
}

// checkUsageTimes checks which of resetsAt and freesUpAt a window has.
func checkUsageTimes(t *testing.T, l limitUsage) {
	t.Helper()
	switch {
	case l.Window == "total":
		if l.ResetsAt != nil || l.FreesUpAt != nil {
			t.Errorf("total: %+v", l)
		}
	case l.Mode == "calendar":
		if l.ResetsAt == nil || l.FreesUpAt != nil {
			t.Errorf("calendar: %+v", l)
		}
	case l.FreesUpAt == nil || l.ResetsAt != nil:
		t.Errorf("rolling: %+v", l)
	}
}

// freesUpAt is when the oldest counted transaction leaves a rolling window,
// to the microsecond, though the policy sums whole hours.
func TestPolicyUsageFreesUpAt(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	clock := k.Clock()
	a := k.Register(map[string]any{"spendingLimit": "1000"})
	seller := k.Register(map[string]any{"name": "seller"})
	k.SetPolicy(k.Key, a.ID, map[string]any{"spendLimits": []any{map[string]any{"amount": "500", "window": "week"}}})
	clock.Advance(90 * time.Minute)
	first := k.MustExecute(k.Key, testkit.Pay(a, seller, "5"))
	clock.Advance(3 * time.Hour)
	k.MustExecute(k.Key, testkit.Pay(a, seller, "6"))
	clock.Advance(30 * time.Hour)
	l := readUsage(t, k, k.Key, a.ID).SpendLimits[0]
	created, _ := time.Parse(time.RFC3339Nano, first.CreatedAt)
	if want := created.Add(7 * 24 * time.Hour).UTC().Format("2006-01-02T15:04:05.000Z"); l.FreesUpAt == nil || *l.FreesUpAt != want {
		t.Fatalf("freesUpAt %v, want %s (%+v)", l.FreesUpAt, want, l)
	}
	if l.Used.String() != "11" || l.Remaining.String() != "489" {
		t.Errorf("usage %+v", l)
	}
	empty := k.RegisterAs(k.Key, map[string]any{"name": "idle", "dailyLimit": "20"})
	if l := readUsage(t, k, k.Key, empty.ID).SpendLimits; len(l) != 1 || l[0].FreesUpAt != nil || l[0].Used.String() != "0" || l[0].Remaining.String() != "20" {
		t.Errorf("an agent that spent nothing: %+v", l)
	}
}
