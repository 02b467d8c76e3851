package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
)

// Issue 11's spiral: an agent with dailyLimit 150 takes 60 concurrent
// payments of 10, twice. Every refusal past the budget is
// daily_limit_exceeded (never trust_too_low), the agent stays out of High
// Risk, and the next day it pays again.
func TestLimitStormDoesNotLockOut(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	_, shopKey := b.NewOrg("shop")
	a := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "150"})
	shop := b.RegisterAs(shopKey, nil)
	for storm, want := range []map[string]int{{"ok": 15, "daily_limit_exceeded": 45}, {"daily_limit_exceeded": 60}} {
		codes := make([]string, 60)
		var wg sync.WaitGroup
		// 16 in flight: 60 at once would hold every pooled connection on the
		// agent's row lock and starve the API key lookups of the rest.
		inFlight := make(chan struct{}, 16)
		for i := range codes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				inFlight <- struct{}{}
				defer func() { <-inFlight }()
				r := b.Execute(b.Key, testkit.Pay(a, shop, "10"))
				codes[i] = "ok"
				if len(r.Errors) > 0 {
					codes[i], _ = r.Errors[0].Extensions["reasonCode"].(string)
				}
			}()
		}
		wg.Wait()
		got := map[string]int{}
		for _, c := range codes {
			got[c]++
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("storm %d: %v, want %v", storm, got, want)
		}
		p := b.Profile(b.Key, a.ID)
		if p.Assessment == "High Risk" || p.Factors.LimitRefusals < float64(45+storm*60)*0.9 || p.Points() != p.Score {
			t.Fatalf("after storm %d: %+v", storm, p)
		}
		if e := b.Evaluate(a.ID, "purchase", "10", "USD"); e.ReasonCode != "daily_limit_exceeded" {
			t.Fatalf("evaluate after storm %d: %+v", storm, e)
		}
		clk.Advance(time.Hour)
	}
	clk.Advance(23 * time.Hour)
	b.MustExecute(b.Key, testkit.Pay(a, shop, "10"))
	if p := b.Profile(b.Key, a.ID); p.Assessment == "High Risk" || p.Factors.LimitRefusals > 105.0/2 {
		t.Fatalf("the next day: %+v", p)
	}
}

// mixTx is a transaction of the random mix, as the test expects it to be.
type mixTx struct {
	id, from, to string
	fromOrg      string
	amount       int
	at           time.Time
	reversed     bool
}

// A random mix of every trust path (completions, refusals of each kind,
// reversals, disputes and withdrawals, suspensions and reinstatements)
// across days of the test clock: every outcome is asserted, every path is
// reached, and `trust rebuild` then finds no drift.
func TestTrustRebuildFindsNoDrift(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	otherOrg, otherKey := b.NewOrg("globex")
	keyOf := map[string]string{b.OrgID: b.Key, otherOrg: otherKey}
	type mixAgent struct {
		testkit.Agent
		org       string
		suspended bool
	}
	var agents []*mixAgent
	for i := 0; i < 4; i++ {
		agents = append(agents, &mixAgent{b.Register(map[string]any{"name": fmt.Sprint("m", i), "spendingLimit": "50", "dailyLimit": "120"}), b.OrgID, false})
	}
	for i := 0; i < 2; i++ {
		agents = append(agents, &mixAgent{b.RegisterAs(otherKey, map[string]any{"name": fmt.Sprint("f", i), "spendingLimit": "50", "dailyLimit": "120"}), otherOrg, false})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var txs []*mixTx
	type openDispute struct{ id, reporter, tx string }
	var open []openDispute
	var withdrawn []openDispute
	underDispute := map[string]bool{} // reporter org + tx id
	reached := map[string]int{}
	spent := func(agentID string) int {
		sum := 0
		for _, tx := range txs {
			if tx.from == agentID && tx.at.After(clk.Now().Add(-24*time.Hour)) { // reversed ones still count
				sum += tx.amount
			}
		}
		return sum
	}
	for step := 0; step < 300; step++ {
		clk.Advance(time.Duration(rng.IntN(20)) * time.Minute)
		switch k := rng.IntN(20); {
		case k < 10: // execute
			from, to := agents[rng.IntN(len(agents))], agents[rng.IntN(len(agents))]
			if from == to {
				continue
			}
			amount := 1 + rng.IntN(60)
			action := "purchase"
			if rng.IntN(12) == 0 || (from.Name == "m3" && rng.IntN(2) == 0) { // m3 is a broken client
				action = "teleport"
			}
			want := "ok"
			switch {
			case from.suspended:
				want = "agent_suspended"
			case to.suspended:
				want = "counterparty_suspended"
			case action == "teleport":
				want = "action_not_authorized"
			case b.Profile(keyOf[from.org], from.ID).Assessment == "High Risk":
				want = "trust_too_low"
			case amount > 50:
				want = "amount_exceeds_limit"
			case spent(from.ID)+amount > 120:
				want = "daily_limit_exceeded"
			}
			in := testkit.Pay(from.Agent, to.Agent, fmt.Sprint(amount))
			in["action"] = action
			r := b.Execute(keyOf[from.org], in)
			got := "ok"
			if len(r.Errors) > 0 {
				got, _ = r.Errors[0].Extensions["reasonCode"].(string)
			}
			if got != want {
				t.Fatalf("step %d: %s pays %s %d (%s): %s, want %s (%+v)", step, from.Name, to.Name, amount, action, got, want, r.Errors)
			}
			reached["execute "+got]++
			if got == "ok" {
				var tx struct{ ID string }
				_ = json.Unmarshal(r.Data["executeTransaction"], &tx)
				txs = append(txs, &mixTx{id: tx.ID, from: from.ID, to: to.ID, fromOrg: from.org, amount: amount, at: clk.Now()})
			}
		case k < 13 && len(txs) > 0: // reverse, as the sender's or the receiver's organization
			tx := txs[rng.IntN(len(txs))]
			asOrg := tx.fromOrg
			var receiverOrg string
			for _, a := range agents {
				if a.ID == tx.to {
					receiverOrg = a.org
				}
			}
			if rng.IntN(4) == 0 {
				asOrg = receiverOrg
			}
			r := b.Do(keyOf[asOrg], testkit.ReverseMutation, map[string]any{"id": tx.id, "reason": "random"})
			want := "ok"
			switch {
			case asOrg != tx.fromOrg:
				want = "FORBIDDEN"
			case tx.reversed:
				want = "CONFLICT"
			}
			if r.Code() != want && !(want == "ok" && r.Code() == "") {
				t.Fatalf("step %d: reverse %s: %s, want %s", step, tx.id, r.Code(), want)
			}
			reached["reverse "+want]++
			if want == "ok" {
				tx.reversed = true
			}
		case k < 16 && len(txs) > 0: // report the other party, as either party's organization
			tx := txs[rng.IntN(len(txs))]
			var reporter, reported *mixAgent
			for _, a := range agents {
				if a.ID == tx.from {
					reporter = a
				}
				if a.ID == tx.to {
					reported = a
				}
			}
			if rng.IntN(2) == 0 {
				reporter, reported = reported, reporter
			}
			r := b.Report(keyOf[reporter.org], reported.ID, "random", tx.id)
			want := "ok"
			if underDispute[reporter.org+tx.id] {
				want = "CONFLICT"
			}
			if got := r.Code(); got != want && !(want == "ok" && got == "") {
				t.Fatalf("step %d: report %s on %s: %s, want %s", step, reported.Name, tx.id, got, want)
			}
			reached["report "+want]++
			if want == "ok" {
				var d testkit.Dispute
				r.Into(t, "reportAgent", &d)
				underDispute[reporter.org+tx.id] = true
				open = append(open, openDispute{d.ID, reporter.org, tx.id})
			}
		case k < 18 && len(open)+len(withdrawn) > 0: // withdraw, sometimes again or as the wrong organization
			var d openDispute
			want := "ok"
			if len(open) > 0 && rng.IntN(4) > 0 {
				i := rng.IntN(len(open))
				d = open[i]
				if rng.IntN(5) == 0 {
					d.reporter, want = map[string]string{b.OrgID: otherOrg, otherOrg: b.OrgID}[d.reporter], "FORBIDDEN"
				} else {
					open = append(open[:i], open[i+1:]...)
					withdrawn = append(withdrawn, d)
					delete(underDispute, d.reporter+d.tx)
				}
			} else if len(withdrawn) > 0 {
				d, want = withdrawn[rng.IntN(len(withdrawn))], "CONFLICT"
			} else {
				continue
			}
			r := b.Do(keyOf[d.reporter], testkit.WithdrawMutation, map[string]any{"id": d.id})
			if got := r.Code(); got != want && !(want == "ok" && got == "") {
				// FORBIDDEN only when the other organization can see it (it is a party); else NOT_FOUND.
				if !(want == "FORBIDDEN" && got == "NOT_FOUND") {
					t.Fatalf("step %d: withdraw %s: %s, want %s", step, d.id, got, want)
				}
				want = got
			}
			reached["withdraw "+want]++
		case k < 19: // suspend or reinstate (a suspended agent is reinstated soon)
			a := agents[rng.IntN(len(agents))]
			for _, s := range agents {
				if s.suspended && rng.IntN(3) > 0 {
					a = s
				}
			}
			mutation, status := "suspendAgent", "suspended"
			if a.suspended {
				mutation, status = "reinstateAgent", "active"
			}
			var got struct{ Status string }
			b.Do(keyOf[a.org], `mutation($id: ID!) { `+mutation+`(id: $id) { status } }`, map[string]any{"id": a.ID}).Into(t, mutation, &got)
			if got.Status != status {
				t.Fatalf("step %d: %s %s: %s", step, mutation, a.Name, got.Status)
			}
			a.suspended = !a.suspended
			reached[mutation]++
		default: // days pass
			clk.Advance(time.Duration(1+rng.IntN(3)) * 24 * time.Hour)
			reached["days pass"]++
		}
	}
	var paths []string
	for _, p := range []string{"execute ok", "execute agent_suspended", "execute counterparty_suspended", "execute action_not_authorized",
		"execute trust_too_low", "execute amount_exceeds_limit", "execute daily_limit_exceeded", "reverse ok", "reverse FORBIDDEN",
		"reverse CONFLICT", "report ok", "report CONFLICT", "withdraw ok", "withdraw CONFLICT", "suspendAgent", "reinstateAgent", "days pass"} {
		if reached[p] == 0 {
			paths = append(paths, p)
		}
	}
	if len(paths) > 0 {
		t.Fatalf("paths never reached: %v (reached %v)", paths, reached)
	}
	keys := make([]string, 0, len(reached))
	for k := range reached {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	t.Logf("reached: %v", reached)
	for _, a := range agents {
		if p := b.Profile(keyOf[a.org], a.ID); p.Points() != p.Score {
			t.Fatalf("%s: contributions add up to %d, score %d", a.Name, p.Points(), p.Score)
		}
	}

	drifts, err := b.DB.RebuildTrust(context.Background(), false)
	if err != nil || len(drifts) != 0 {
		t.Fatalf("drift after a random mix: %v %+v", err, drifts)
	}
	// A counter changed behind the service's back is found, and fixed.
	b.Exec(`UPDATE trust_counters SET failures = failures + 7 WHERE agent_id = $1`, agents[0].ID)
	drifts, err = b.DB.RebuildTrust(context.Background(), true)
	if err != nil || len(drifts) != 1 || drifts[0].AgentID != agents[0].ID || drifts[0].Stored.Failures-drifts[0].Rebuilt.Failures < 6 {
		t.Fatalf("tampered counter: %v %+v", err, drifts)
	}
	if drifts, _ = b.DB.RebuildTrust(context.Background(), false); len(drifts) != 0 {
		t.Fatalf("drift after fix: %+v", drifts)
	}
}
