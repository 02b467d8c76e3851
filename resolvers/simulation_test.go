package resolvers_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/httpapi"
	"github.com/agenttrust/service/internal/testkit"
)

func spendLimit(amount, window, mode string, actions []string) map[string]any {
	l := map[string]any{"amount": amount, "window": window, "mode": mode}
	if actions != nil {
		l["actions"] = actions
	}
	return l
}

func velocity(n, seconds int, actions []string) map[string]any {
	v := map[string]any{"maxCount": n, "windowSeconds": seconds}
	if actions != nil {
		v["actions"] = actions
	}
	return v
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// twinOutcome is what the twin's policy did to one of the agent's completed
// transactions: evaluateTrust's answer just before the twin executed it.
type twinOutcome struct {
	txID string
	eval testkit.Evaluation
}

// Simulating the current policy over a period it did not change allows
// every completed transaction; simulating another policy answers each
// transaction as an execute under that policy did: a twin agent with that
// policy executed each of the agent's completed transactions at the same
// instant, so its windows held exactly what the simulation allows.
func TestSimulatePolicyAgreesWithExecute(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	_, shopKey := b.NewOrg("shop")
	shop, other := b.RegisterAs(shopKey, nil), b.RegisterAs(shopKey, nil)
	local := b.Register(nil)
	limits := map[string]any{"spendingLimit": "100", "dailyLimit": "400"}
	a, twin := b.Register(limits), b.Register(limits)
	loose := map[string]any{"velocityLimits": []any{velocity(6, 3600, nil)},
		"approval": map[string]any{"above": "97", "expiresAfterSeconds": 86400}}
	tight := map[string]any{"timezone": "America/New_York",
		"spendLimits": []any{spendLimit("250", "day", "rolling", nil), spendLimit("1000", "week", "calendar", nil),
			spendLimit("700", "week", "rolling", []string{"refund"}), spendLimit("800", "month", "rolling", []string{"purchase"}),
			spendLimit("1800", "total", "rolling", nil)},
		"velocityLimits": []any{velocity(3, 3600, nil), velocity(1, 600, []string{"refund"})},
		"counterparties": map[string]any{"denyAgents": []string{other.ID}},
		"approval":       map[string]any{"above": "85", "expiresAfterSeconds": 86400}}
	b.SetPolicy(b.Key, a.ID, loose)
	b.SetPolicy(b.Key, twin.ID, loose)
	b.SetPolicy(b.Key, twin.ID, tight)

	rng := rand.New(rand.NewPCG(40, 1))
	receivers := []testkit.Agent{shop, shop, other, local, local, local}
	attempt := func() (map[string]any, testkit.Agent) {
		gap := time.Duration(rng.ExpFloat64() * float64(2*time.Hour))
		if rng.IntN(4) == 0 {
			gap = time.Duration(rng.IntN(300)) * time.Second
		}
		clk.Advance(gap)
		to := receivers[rng.IntN(len(receivers))]
		in := testkit.Pay(a, to, fmt.Sprintf("%d.%02d", 1+rng.IntN(100), rng.IntN(100)))
		if in["amount"] == "100.99" {
			in["amount"] = "100"
		}
		in["action"] = []string{"purchase", "refund"}[rng.IntN(2)]
		return in, to
	}
	start := clk.Now()
	var completed []string
	var twins []twinOutcome
	refusedA := map[string]int{}
	for range 220 {
		in, to := attempt()
		r := b.Execute(b.Key, in)
		if r.Code() == "POLICY_DENIED" {
			refusedA[r.ReasonCode()]++
			continue
		}
		var tx testkit.Transaction
		r.Into(t, "executeTransaction", &tx)
		if tx.Status != "completed" {
			continue // held: not part of the completed history
		}
		completed = append(completed, tx.ID)
		in["fromAgent"] = twin.ID
		e := evaluateAs(t, b, twin, to, in)
		r = b.Execute(b.Key, in)
		switch {
		case !e.Allowed:
			r.Refused(t, "POLICY_DENIED")
			if r.ReasonCode() != e.ReasonCode || r.Errors[0].Extensions["reason"] != e.Reason {
				t.Fatalf("the twin's execute %s (%v) disagrees with its evaluation %+v", r.ReasonCode(), r.Errors[0].Extensions["reason"], e)
			}
		case e.RequiresApproval:
			var held testkit.Transaction
			if r.Into(t, "executeTransaction", &held); held.Status != "pending_approval" {
				t.Fatalf("the twin's execute is %s, its evaluation %+v", held.Status, e)
			}
		default:
			var done testkit.Transaction
			if r.Into(t, "executeTransaction", &done); done.Status != "completed" {
				t.Fatalf("the twin's execute is %s, its evaluation %+v", done.Status, e)
			}
			if rng.IntN(12) == 0 { // reversed later or not, a transaction counts
				b.Reverse(b.Key, tx.ID, "returned").Into(t, "reverseTransaction", new(testkit.Transaction))
				b.Reverse(b.Key, done.ID, "returned").Into(t, "reverseTransaction", new(testkit.Transaction))
			}
		}
		twins = append(twins, twinOutcome{txID: tx.ID, eval: e})
	}
	clk.Advance(time.Minute)
	if len(completed) < 80 || len(refusedA) < 2 {
		t.Fatalf("a tame history: %d completed, the agent's refusals %v", len(completed), refusedA)
	}

	current := b.MustSimulate(a.ID, map[string]any{}, stamp(start), nil)
	if current.Replayed != len(completed) || current.Allowed != len(completed) || current.Refused+current.HeldForApproval != 0 ||
		len(current.Outcomes) != 0 || len(current.RefusedByCode) != 0 {
		t.Fatalf("the current policy over %d completed transactions: %+v", len(completed), current)
	}

	s := b.MustSimulate(a.ID, tight, stamp(start), nil)
	var want testkit.PolicySimulation
	byCode := map[string]int{}
	var listed []twinOutcome
	for _, o := range twins {
		switch {
		case !o.eval.Allowed:
			want.Refused++
			byCode[o.eval.ReasonCode]++
		case o.eval.RequiresApproval:
			want.HeldForApproval++
		default:
			want.Allowed++
			continue
		}
		listed = append(listed, o)
	}
	for code, n := range byCode {
		want.RefusedByCode = append(want.RefusedByCode, testkit.ReasonCount{ReasonCode: code, Count: n})
	}
	slices.SortFunc(want.RefusedByCode, func(x, y testkit.ReasonCount) int {
		return cmp.Or(cmp.Compare(y.Count, x.Count), strings.Compare(x.ReasonCode, y.ReasonCode))
	})
	t.Logf("the twin: %d allowed, %d held, %v", want.Allowed, want.HeldForApproval, want.RefusedByCode)
	if len(byCode) < 5 || want.HeldForApproval == 0 || want.Allowed < 20 {
		t.Fatalf("a tame twin: %d allowed, %d held, %v", want.Allowed, want.HeldForApproval, want.RefusedByCode)
	}
	if s.Replayed != len(completed) || s.Allowed != want.Allowed || s.Refused != want.Refused || s.HeldForApproval != want.HeldForApproval ||
		!reflect.DeepEqual(s.RefusedByCode, want.RefusedByCode) {
		t.Errorf("simulated %d: %d allowed, %d held, %d refused %v; the twin %d, %d, %d %v", s.Replayed, s.Allowed, s.HeldForApproval,
			s.Refused, s.RefusedByCode, want.Allowed, want.HeldForApproval, want.Refused, want.RefusedByCode)
	}
	if len(s.Outcomes) != min(len(listed), 100) {
		t.Fatalf("%d outcomes, want %d", len(s.Outcomes), min(len(listed), 100))
	}
	for i, o := range s.Outcomes {
		w := listed[i]
		reason := strings.ReplaceAll(w.eval.Reason, twin.ID, a.ID)
		if o.Transaction.ID != w.txID || o.Transaction.FromAgent != a.ID || o.Allowed != w.eval.Allowed ||
			o.RequiresApproval != w.eval.RequiresApproval || o.ReasonCode != w.eval.ReasonCode || o.Reason != reason {
			t.Errorf("outcome %d: %s %v/%v %s %q\nthe twin: %s %v/%v %s %q", i, o.Transaction.ID, o.Allowed, o.RequiresApproval,
				o.ReasonCode, o.Reason, w.txID, w.eval.Allowed, w.eval.RequiresApproval, w.eval.ReasonCode, reason)
		}
	}
	if len(s.Peaks) != 5 || s.Peaks[0].Window != "day" || s.Peaks[4].Window != "total" || s.Peaks[2].Actions[0] != "refund" {
		t.Errorf("peaks %+v", s.Peaks)
	}

	// Under the tight policy without its total limit from 25 days on, a
	// later period agrees too, its rolling month reaching back into the
	// earlier one.
	tight["spendLimits"] = tight["spendLimits"].([]any)[:4]
	b.SetPolicy(b.Key, a.ID, tight)
	clk.Advance(25 * 24 * time.Hour)
	later := clk.Now()
	n := 0
	for range 60 {
		in, _ := attempt()
		if r := b.Execute(b.Key, in); r.Code() == "" {
			var tx testkit.Transaction
			if r.Into(t, "executeTransaction", &tx); tx.Status == "completed" {
				n++
			}
		}
	}
	clk.Advance(time.Minute)
	if s := b.MustSimulate(a.ID, map[string]any{}, stamp(later), nil); s.Replayed != n || s.Allowed != n || n < 5 {
		t.Errorf("the tight policy over the %d transactions it completed: %+v", n, s)
	}
}

// evaluateAs runs evaluateTrust for from paying to with in's action and amount.
func evaluateAs(t *testing.T, b *testkit.Kit, from, to testkit.Agent, in map[string]any) testkit.Evaluation {
	t.Helper()
	var e testkit.Evaluation
	b.Query(evaluateApproval, map[string]any{"in": map[string]any{"agentId": from.ID, "action": in["action"], "amount": in["amount"],
		"currency": "USD", "toAgent": to.ID}}).Into(t, "evaluateTrust", &e)
	return e
}

// The outflow before since counts in the windows that reach back to it,
// and a total limit counts the whole history.
func TestSimulatePolicyCountsOutflowBeforeSince(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	shop := b.Register(nil)
	a := b.Register(map[string]any{"spendingLimit": "200", "dailyLimit": "1000"})
	start := clk.Now()
	b.MustExecute(b.Key, testkit.Pay(a, shop, "150"))
	clk.Advance(time.Hour)
	since := clk.Now()
	clk.Advance(time.Hour)
	late := b.MustExecute(b.Key, testkit.Pay(a, shop, "40"))
	clk.Advance(time.Minute)

	for _, c := range []struct {
		name, window, code, reason string
	}{
		{"a rolling day", "day", "daily_limit_exceeded", "150.00 USD spent in the last 24 hours"},
		{"a total limit", "total", "total_limit_exceeded", "150.00 USD spent in total"},
	} {
		s := b.MustSimulate(a.ID, map[string]any{"spendLimits": []any{spendLimit("180", c.window, "rolling", nil)}}, stamp(since), nil)
		if s.Replayed != 1 || s.Refused != 1 || len(s.Outcomes) != 1 || s.Outcomes[0].Transaction.ID != late.ID ||
			s.Outcomes[0].ReasonCode != c.code || !strings.Contains(s.Outcomes[0].Reason, c.reason) {
			t.Errorf("%s of 180 from since: %+v", c.name, s)
		}
		if s := b.MustSimulate(a.ID, map[string]any{"spendLimits": []any{spendLimit("180", c.window, "rolling", nil)}}, stamp(start), nil); s.Replayed != 2 || s.Allowed != 1 || s.Refused != 1 {
			t.Errorf("%s of 180 from the start: %+v", c.name, s)
		}
	}
	if s := b.MustSimulate(a.ID, map[string]any{}, stamp(start), late.CreatedAt); s.Replayed != 1 {
		t.Errorf("until is exclusive: %+v", s)
	}
}

// snapshots is an agent's trust history, oldest first.
func snapshots(t *testing.T, b *testkit.Kit, agentID string) []struct {
	Timestamp string `json:"timestamp"`
	Score     int    `json:"score"`
} {
	t.Helper()
	var h []struct {
		Timestamp string `json:"timestamp"`
		Score     int    `json:"score"`
	}
	b.Query(`query($id: ID!) { trustHistory(agentId: $id) { timestamp score } }`, map[string]any{"id": agentID}).Into(t, "trustHistory", &h)
	slices.Reverse(h)
	return h
}

// scoreBefore is the score in force just before at: the latest snapshot taken earlier.
func scoreBefore(t *testing.T, b *testkit.Kit, agentID, at string) int {
	t.Helper()
	when, _ := time.Parse(time.RFC3339Nano, at)
	score := -1
	for _, s := range snapshots(t, b, agentID) {
		if ts, _ := time.Parse(time.RFC3339Nano, s.Timestamp); ts.Before(when) {
			score = s.Score
		}
	}
	return score
}

// Trust tiers and the counterparty minimum are judged at the scores the
// agent and the receiver had when each transaction was made.
func TestSimulatePolicyJudgesScoresAtTheTime(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "100"})
	start := clk.Now()
	var txs []testkit.Transaction
	for range 8 {
		clk.Advance(6 * time.Hour)
		txs = append(txs, b.MustExecute(b.Key, testkit.Pay(a, shop, "60")))
	}
	clk.Advance(time.Minute)
	check := func(name string, policy map[string]any, code string, refused func(tx testkit.Transaction) bool) {
		t.Helper()
		s := b.MustSimulate(a.ID, policy, stamp(start), nil)
		var want []string
		for _, tx := range txs {
			if refused(tx) {
				want = append(want, tx.ID)
			}
		}
		var got []string
		for _, o := range s.Outcomes {
			if o.ReasonCode != code {
				t.Errorf("%s: %s refused %s: %s", name, o.Transaction.ID, o.ReasonCode, o.Reason)
			}
			got = append(got, o.Transaction.ID)
		}
		if len(want) == 0 || len(want) == len(txs) || !slices.Equal(got, want) {
			t.Errorf("%s: refused %v, want %v (of %d)", name, got, want, len(txs))
		}
	}
	least := scoreBefore(t, b, shop.ID, txs[3].CreatedAt)
	check("minCounterpartyScore", map[string]any{"minCounterpartyScore": least}, "counterparty_trust_too_low",
		func(tx testkit.Transaction) bool { return scoreBefore(t, b, shop.ID, tx.CreatedAt) < least })
	tier := scoreBefore(t, b, a.ID, txs[4].CreatedAt)
	check("trustTiers", map[string]any{"trustTiers": []any{map[string]any{"minScore": 0, "limitPercent": 50},
		map[string]any{"minScore": tier, "limitPercent": 100}}}, "amount_exceeds_limit",
		func(tx testkit.Transaction) bool { return scoreBefore(t, b, a.ID, tx.CreatedAt) < tier })
}

// A transaction made under a mandate is judged with the mandate as it was
// then; one made under none is refused when the policy requires one.
func TestSimulatePolicyMandates(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	shop := b.Register(nil)
	a := b.Register(map[string]any{"spendingLimit": "100"})
	m := b.MustCreateMandate(testkit.MandateInput(a, "100", nil))
	start := clk.Now()
	var under, plain, held testkit.Transaction
	clk.Advance(time.Minute)
	b.ExecuteUnder(b.Key, m.ID, testkit.Pay(a, shop, "30")).Into(t, "executeTransaction", &under)
	clk.Advance(time.Minute)
	plain = b.MustExecute(b.Key, testkit.Pay(a, shop, "20"))
	clk.Advance(time.Minute)
	b.ExecuteUnder(b.Key, m.ID, testkit.Pay(a, shop, "50")).Into(t, "executeTransaction", &held)
	clk.Advance(time.Minute)
	b.RevokeMandate(b.Key, m.ID, nil).Into(t, "revokeMandate", new(testkit.Mandate)) // later: it did not refuse them then

	s := b.MustSimulate(a.ID, map[string]any{"requireMandate": true, "approval": map[string]any{"above": "40", "expiresAfterSeconds": 3600}},
		stamp(start), nil)
	if s.Replayed != 3 || s.Allowed != 1 || s.Refused != 1 || s.HeldForApproval != 1 || len(s.Outcomes) != 2 {
		t.Fatalf("%+v", s)
	}
	if o := s.Outcomes[0]; o.Transaction.ID != plain.ID || o.ReasonCode != "mandate_required" {
		t.Errorf("the payment under no mandate: %+v", o)
	}
	// The mandate had spent 30 of 100 by then, in the replay as in fact.
	if o := s.Outcomes[1]; o.Transaction.ID != held.ID || !o.Allowed || !o.RequiresApproval ||
		!strings.Contains(o.Reason, "within mandate "+m.ID+" (20.00 USD of its budget would remain)") {
		t.Errorf("the second payment under the mandate: %+v", o)
	}
}

// Bad input is VALIDATION_FAILED naming its argument, another
// organization's agent NOT_FOUND, an agent key FORBIDDEN; a simulation
// changes nothing.
func TestSimulatePolicyRefusals(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.SimulationMaxTransactions = 3 })
	clk := b.Clock()
	shop := b.Register(nil)
	a := b.Register(nil)
	start := clk.Now()
	for range 4 {
		clk.Advance(time.Second)
		b.MustExecute(b.Key, testkit.Pay(a, shop, "1"))
	}
	clk.Advance(time.Second)
	_, strangerKey := b.NewOrg("stranger")
	stranger := b.RegisterAs(strangerKey, nil)
	_, agentKey := b.IssueKey(auth.RoleAgent, a.ID)
	_, readKey := b.IssueKey(auth.RoleReadonly)
	before, events := b.Snapshot(), len(b.Events(b.OrgID))

	fields := func(r *testkit.Response, want ...string) {
		t.Helper()
		if r.Refused(t, "VALIDATION_FAILED"); !slices.Equal(r.Fields(t), want) {
			t.Errorf("fields %v, want %v", r.Fields(t), want)
		}
	}
	fields(b.Simulate(b.Key, a.ID, map[string]any{}, stamp(start), nil), "since")
	if s := b.MustSimulate(a.ID, map[string]any{}, stamp(start.Add(1500*time.Millisecond)), nil); s.Replayed != 3 {
		t.Errorf("three transactions, the bound: %+v", s)
	}
	fields(b.Simulate(b.Key, a.ID, map[string]any{}, stamp(start), stamp(start)), "until")
	fields(b.Simulate(b.Key, a.ID, map[string]any{"spendLimits": []any{spendLimit("1.001", "day", "rolling", nil)}, "timezone": "Mars/Base"},
		stamp(start), nil), "policy.spendLimits[0].amount", "policy.timezone")
	b.Simulate(b.Key, "agent_unknown0000000000", map[string]any{}, stamp(start), nil).Refused(t, "NOT_FOUND")
	b.Simulate(b.Key, stranger.ID, map[string]any{}, stamp(start), nil).Refused(t, "NOT_FOUND")
	b.Simulate(agentKey, a.ID, map[string]any{}, stamp(start), nil).Refused(t, "FORBIDDEN")
	var s testkit.PolicySimulation
	if b.Simulate(readKey, a.ID, map[string]any{}, stamp(clk.Now().Add(-2500*time.Millisecond)), nil).Into(t, "simulatePolicy", &s); s.Replayed != 2 {
		t.Errorf("as a read-only key: %+v", s)
	}

	after := b.Snapshot()
	delete(before, "api_keys")
	delete(after, "api_keys") // lastUsedAt
	if !reflect.DeepEqual(before, after) || len(b.Events(b.OrgID)) != events {
		for k := range after {
			if before[k] != after[k] {
				t.Errorf("table %s changed", k)
			}
		}
	}
}

// A simulation costs the rate limit a token per 200 rows it reads, beyond
// its root field's: of the organization's burst of 5, the two registrations
// take 2 and a simulation of one transaction 2 (its root field and its one
// row); a period of 450 transactions then gets its root field's token but
// not the 3 its rows cost, and is RATE_LIMITED.
func TestSimulatePolicyChargesRowsRead(t *testing.T) {
	t.Parallel()
	b := testkit.New(t, func(c *httpapi.Config) { c.RateLimitRPS, c.RateLimitBurst = 0.05, 5 })
	shop := b.Register(nil)
	a := b.Register(nil)
	b.Exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, created_at)
SELECT 'tx_sim' || lpad(g::text, 6, '0'), $1, $2, $3, $3, 'purchase', 1, 'USD', 'completed', now() - interval '1 day' + g * interval '1 second'
  FROM generate_series(1, 450) AS g`, a.ID, shop.ID, b.OrgID)
	_, small := b.IssueKey(auth.RoleReadonly)
	_, large := b.IssueKey(auth.RoleReadonly)
	since := time.Now().Add(-25 * time.Hour)
	var s testkit.PolicySimulation
	b.Simulate(small, a.ID, map[string]any{}, stamp(since), stamp(time.Now().Add(-24*time.Hour+1500*time.Millisecond))).Into(t, "simulatePolicy", &s)
	if s.Replayed != 1 {
		t.Fatalf("one transaction: %+v", s)
	}
	b.Simulate(large, a.ID, map[string]any{}, stamp(since), nil).Refused(t, "RATE_LIMITED")
}

// A simulation runs the same few statements whatever its period holds: in
// its read-only transaction (BEGIN and COMMIT) the agent, the period's
// transactions, their receivers, their mandates and the outflow before the
// period; then the rows of the outcomes listed.
func TestSimulatePolicyStatementsDoNotGrow(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	clk := b.Clock()
	_, shopKey := b.NewOrg("shop")
	var shops []testkit.Agent
	for range 4 {
		shops = append(shops, b.RegisterAs(shopKey, nil))
	}
	a := b.Register(map[string]any{"spendingLimit": "100"})
	m := b.MustCreateMandate(testkit.MandateInput(a, "1000", nil))
	b.MustExecute(b.Key, testkit.Pay(a, shops[0], "5"))
	clk.Advance(time.Hour)
	start := clk.Now()
	policy := map[string]any{"spendLimits": []any{spendLimit("20", "day", "rolling", nil), spendLimit("50", "total", "rolling", nil)},
		"approval": map[string]any{"above": "2", "expiresAfterSeconds": 3600}}
	statements := func() int64 {
		t.Helper()
		b.MustSimulate(a.ID, policy, stamp(start), nil) // the key is known from here on
		before := b.DB.Statements()
		b.MustSimulate(a.ID, policy, stamp(start), nil)
		return b.DB.Statements() - before
	}
	pay := func(n int) {
		for i := range n {
			clk.Advance(time.Minute)
			in := testkit.Pay(a, shops[i%len(shops)], fmt.Sprint(1+i%10))
			if i%3 == 0 {
				b.ExecuteUnder(b.Key, m.ID, in).Into(t, "executeTransaction", new(testkit.Transaction))
			} else {
				b.MustExecute(b.Key, in)
			}
		}
		clk.Advance(time.Minute)
	}
	pay(3)
	few := statements()
	pay(60)
	many := statements()
	if few != many || many != 8 {
		t.Errorf("statements: %d for 3 transactions, %d for 63", few, many)
	}
}
