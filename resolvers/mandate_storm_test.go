package resolvers_test

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/money"
)

// TestMandateStormWithRevocation sends 64 parallel executes, some of them
// idempotent retries of another, against a mandate's last 10 of budget and
// its last 3 uses, and revokes the mandate in the middle: the budget and
// uses are never exceeded, the mandate's counters equal its transactions,
// and nothing that started after revokeMandate returned succeeds.
func TestMandateStormWithRevocation(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	for round := range 3 {
		m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "100", map[string]any{"maxUses": 5}))
		k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "60")).Into(t, "executeTransaction", new(testkit.Transaction))
		k.ExecuteUnder(k.Key, m.ID, testkit.Pay(w.buyer, w.seller, "30")).Into(t, "executeTransaction", new(testkit.Transaction))

		type result struct {
			start  time.Time
			txID   string
			amount money.Amount
			code   string
		}
		results := make([]result, 64)
		var revokedAt time.Time
		var wg sync.WaitGroup
		// Half the executes start at once; after some of them answered
		// (more each round), the revocation starts and with it a quarter,
		// a millisecond apart; the last quarter starts once it returned.
		var answered atomic.Int32
		second, third := make(chan struct{}), make(chan struct{})
		revokeAfter := []int32{1, 4, 16}[round]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for answered.Load() < revokeAfter {
				time.Sleep(100 * time.Microsecond)
			}
			close(second)
			r := k.RevokeMandate(k.Key, m.ID, nil)
			revokedAt = time.Now()
			close(third)
			if r.Code() != "" {
				t.Errorf("revoke: %s", r.Body)
			}
		}()
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				switch {
				case i >= 48:
					<-third
				case i >= 32:
					<-second
				}
				time.Sleep(time.Duration(i%16) * time.Millisecond)
				amount := fmt.Sprint(1 + i%5)
				in := testkit.Pay(w.buyer, w.seller, amount)
				in["idempotencyKey"] = fmt.Sprintf("r%d-%d", round, i)
				if i%4 == 3 { // a retry of the request before it
					in["amount"], in["idempotencyKey"] = fmt.Sprint(1+(i-1)%5), fmt.Sprintf("r%d-%d", round, i-1)
				}
				res := &results[i]
				res.amount = money.MustParse(in["amount"].(string))
				res.start = time.Now()
				r := k.ExecuteUnder(k.Key, m.ID, in)
				answered.Add(1)
				if len(r.Errors) > 0 {
					res.code = r.ReasonCode()
					if res.code == "" {
						res.code = r.Code()
					}
					return
				}
				var tx testkit.Transaction
				r.Into(t, "executeTransaction", &tx)
				res.txID = tx.ID
			}()
		}
		wg.Wait()

		firstStart := map[string]time.Time{}
		spent, codes := money.MustParse("0"), map[string]int{}
		for _, r := range results {
			if r.txID == "" {
				codes[r.code]++
				continue
			}
			codes["ok"]++
			if s, seen := firstStart[r.txID]; !seen || r.start.Before(s) {
				if !seen {
					spent = spent.Add(r.amount)
				}
				firstStart[r.txID] = r.start
			}
		}
		for id, s := range firstStart {
			if !s.Before(revokedAt) {
				t.Errorf("round %d: %s succeeded from a request that started %s after the revocation returned", round, id, s.Sub(revokedAt))
			}
		}
		for c := range codes {
			switch c {
			case "ok", "mandate_revoked", "mandate_exhausted", "mandate_amount_exceeded":
			default:
				t.Errorf("round %d: unexpected outcome %s", round, c)
			}
		}
		if len(firstStart) > 3 || spent.Cmp(money.MustParse("10")) > 0 {
			t.Errorf("round %d: %d new transactions spending %s, budget left 10 over 3 uses", round, len(firstStart), spent)
		}
		got := k.Mandate(m.ID)
		var sum string
		var n int
		if err := k.SQL().QueryRow(`SELECT sum(amount)::text, count(*) FROM transactions WHERE mandate_id = $1`, m.ID).Scan(&sum, &n); err != nil {
			t.Fatal(err)
		}
		if money.MustParse(string(got.Spent)).Cmp(money.MustParse(sum)) != 0 || got.Uses != n || n != 2+len(firstStart) ||
			money.MustParse(sum).Cmp(money.MustParse("90").Add(spent)) != 0 || got.Status != "revoked" {
			t.Errorf("round %d: mandate spent %s in %d uses (%s), its transactions %s in %d", round, got.Spent, got.Uses, got.Status, sum, n)
		}
		var after int
		for _, r := range results {
			if r.start.After(revokedAt) {
				after++
			}
		}
		t.Logf("round %d: %v; %d started after the revocation returned", round, codes, after)
	}
}
