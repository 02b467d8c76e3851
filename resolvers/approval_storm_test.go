package resolvers_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/money"
)

// A storm of concurrent executes through the handler against every window
// type and a velocity limit, with approvals of pending transactions and
// reversals interleaved: every limit is reached exactly and never passed,
// and every outcome is accounted for in the database.
func TestApprovalStorm(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	b.Clock() // one instant: no window moves during a round
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	const executes, pending, reversals = 30, 6, 4
	big := map[string]any{"amount": "100000"}
	for _, tt := range []struct {
		binds    string // the window at 200, or "velocity" for at most 8 transactions
		code     string
		maxCount int
	}{
		{"day", "daily_limit_exceeded", 1000},
		{"week", "weekly_limit_exceeded", 1000},
		{"month", "monthly_limit_exceeded", 1000},
		{"total", "total_limit_exceeded", 1000},
		{"velocity", "velocity_limit_exceeded", 8},
	} {
		a := b.Register(map[string]any{"spendingLimit": "100"})
		var limits []any
		for _, w := range []struct{ window, mode string }{{"day", "rolling"}, {"week", "calendar"}, {"month", "rolling"}, {"total", "rolling"}} {
			l := map[string]any{"window": w.window, "mode": w.mode, "amount": big["amount"]}
			if w.window == tt.binds {
				l["amount"] = "200"
			}
			limits = append(limits, l)
		}
		b.SetPolicy(b.Key, a.ID, map[string]any{"spendLimits": limits,
			"velocityLimits": []any{map[string]any{"maxCount": tt.maxCount, "windowSeconds": 3600}},
			"approval":       map[string]any{"above": "30", "expiresAfterSeconds": 3600}})
		var queue []string
		for range pending {
			queue = append(queue, b.MustExecute(b.Key, testkit.Pay(a, shop, "40")).ID) // pending: counts toward nothing
		}

		execCodes, approveCodes := make([]string, executes), make([]string, pending)
		completed := make(chan string, executes)
		reversed := make([]bool, reversals)
		var wg sync.WaitGroup
		inFlight := make(chan struct{}, 16) // leave connections for key lookups
		run := func(fn func()) {
			wg.Go(func() {
				inFlight <- struct{}{}
				defer func() { <-inFlight }()
				fn()
			})
		}
		outcome := func(r *testkit.Response) string {
			if len(r.Errors) > 0 {
				return r.ReasonCode()
			}
			return "ok"
		}
		for i := range executes {
			run(func() {
				var tx testkit.Transaction
				r := b.Execute(b.Key, testkit.Pay(a, shop, "20"))
				if execCodes[i] = outcome(r); execCodes[i] == "ok" {
					r.Into(t, "executeTransaction", &tx)
					completed <- tx.ID
				}
			})
			if i%5 == 0 && i/5 < pending {
				j := i / 5
				run(func() { approveCodes[j] = outcome(b.Approve(b.Key, queue[j])) })
			}
		}
		var rw sync.WaitGroup
		for i := range reversals {
			rw.Go(func() {
				if id, ok := <-completed; ok {
					reversed[i] = len(b.Reverse(b.Key, id, "refund").Errors) == 0
				}
			})
		}
		wg.Wait()
		close(completed)
		rw.Wait()

		okExec, okApproved := tally(t, tt.code, execCodes), tally(t, tt.code, approveCodes)
		var sum string
		var n, nReversed, nPending int
		err := b.SQL().QueryRow(`SELECT coalesce(sum(amount) FILTER (WHERE status IN ('completed', 'reversed')), 0)::text,
			count(*) FILTER (WHERE status IN ('completed', 'reversed')), count(*) FILTER (WHERE status = 'reversed'),
			count(*) FILTER (WHERE status = 'pending_approval')
			FROM transactions WHERE from_agent = $1 AND reversal_of IS NULL`, a.ID).Scan(&sum, &n, &nReversed, &nPending)
		if err != nil {
			t.Fatal(err)
		}
		want := money.MustParse(fmt.Sprint(20*okExec + 40*okApproved))
		if n != okExec+okApproved || money.MustParse(sum).Cmp(want) != 0 || nPending != pending-okApproved {
			t.Fatalf("%s: %d executes and %d approvals answered ok, the database holds %d counted (sum %s) and %d pending",
				tt.binds, okExec, okApproved, n, sum, nPending)
		}
		okReversed := 0
		for _, ok := range reversed {
			if ok {
				okReversed++
			}
		}
		if nReversed != okReversed || okReversed != min(reversals, okExec) {
			t.Fatalf("%s: %d reversed, %d reversals answered ok, want %d", tt.binds, nReversed, okReversed, min(reversals, okExec))
		}
		// More was asked than fits, and amounts are multiples of 20: the
		// binding limit is reached exactly.
		if tt.binds == "velocity" && n != tt.maxCount || tt.binds != "velocity" && money.MustParse(sum).Cmp(money.MustParse("200")) != 0 {
			t.Fatalf("%s: %d transactions summing %s (executes %v, approvals %v)", tt.binds, n, sum, execCodes, approveCodes)
		}
	}
}

// tally counts the ok outcomes and fails on any refusal but code.
func tally(t *testing.T, code string, outcomes []string) int {
	t.Helper()
	ok := 0
	for _, o := range outcomes {
		switch o {
		case "ok":
			ok++
		case code:
		default:
			t.Fatalf("outcome %q, want ok or %s: %v", o, code, outcomes)
		}
	}
	return ok
}
