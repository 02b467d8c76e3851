package resolvers_test

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/internal/testkit"

	"github.com/shopspring/decimal"
)

func TestExecuteTransaction(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	otherOrg, otherKey := b.NewOrg("globex")
	from := b.Register(map[string]any{"name": "payer"})
	to := b.RegisterAs(otherKey, map[string]any{"name": "payee"})

	in := testkit.Pay(from, to, "12.34")
	in["memo"] = "  invoice #7 ✓ "
	tx := b.MustExecute(b.Key, in)
	if !strings.HasPrefix(tx.ID, "tx_") || tx.Status != "completed" || string(tx.Amount) != "12.34" ||
		tx.Memo == nil || *tx.Memo != "  invoice #7 ✓ " || tx.ReversalOf != nil || tx.FromAgent != from.ID || tx.ToAgent != to.ID {
		t.Fatalf("unexpected transaction: %+v (amount %s)", tx, tx.Amount)
	}
	// Both organizations see it; both agents' chains record it.
	for _, key := range []string{b.Key, otherKey} {
		var got testkit.Transaction
		b.Do(key, `query($id: ID!) { transaction(id: $id) { `+testkit.TxFields+` } }`, map[string]any{"id": tx.ID}).Into(t, "transaction", &got)
		if got.ID != tx.ID {
			t.Fatalf("transaction not visible to %s", key[:12])
		}
	}
	var fromAgent, toAgent testkit.Agent
	b.Query(`query($id: ID!) { agent(id: $id) { auditChain { action details } } }`, map[string]any{"id": from.ID}).Into(t, "agent", &fromAgent)
	b.Do(otherKey, `query($id: ID!) { agent(id: $id) { auditChain { action details } } }`, map[string]any{"id": to.ID}).Into(t, "agent", &toAgent)
	if last := fromAgent.AuditChain[len(fromAgent.AuditChain)-1]; last.Action != "transaction.completed" || last.Details["transaction_id"] != tx.ID || last.Details["direction"] != "outgoing" {
		t.Fatalf("sender chain: %+v", fromAgent.AuditChain)
	}
	if last := toAgent.AuditChain[len(toAgent.AuditChain)-1]; last.Action != "transaction.completed" || last.Details["direction"] != "incoming" {
		t.Fatalf("receiver chain: %+v", toAgent.AuditChain)
	}
	// One event, one id, delivered to both organizations, with snake_case data.
	ours := b.EventsOf(b.OrgID, "transaction.completed")
	theirs := b.EventsOf(otherOrg, "transaction.completed")
	if len(ours) != 1 || len(theirs) != 1 || ours[0].ID != theirs[0].ID {
		t.Fatalf("events: ours %v theirs %v", ours, theirs)
	}
	var data map[string]json.RawMessage
	_ = json.Unmarshal(ours[0].Data, &data)
	for k, want := range map[string]string{"id": `"` + tx.ID + `"`, "from_agent": `"` + from.ID + `"`, "amount": "12.34", "status": `"completed"`, "reversal_of": "null", "memo": `"  invoice #7 ✓ "`} {
		if string(data[k]) != want {
			t.Errorf("event data %s = %s, want %s", k, data[k], want)
		}
	}
}

func TestExecuteRefusals(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	from := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "150"})
	to := b.Register(map[string]any{"name": "to"})
	eur := b.Register(map[string]any{"currency": "EUR"})
	prod := b.Register(map[string]any{"environment": "production"})
	suspended := b.Register(map[string]any{"name": "suspended"})
	b.Query(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": suspended.ID})

	b.MustExecute(b.Key, testkit.Pay(from, to, "100")) // equal to the spending limit: allowed
	cases := []struct {
		name   string
		in     map[string]any
		reason string
		has    string
	}{
		{"over spending limit", testkit.Pay(from, to, "100.01"), "amount_exceeds_limit", "100.01"},
		{"over daily limit", testkit.Pay(from, to, "60"), "daily_limit_exceeded", "50.00"},
	}
	check := func() {
		t.Helper()
		for _, c := range cases {
			r := b.Execute(b.Key, c.in)
			if r.Code() != "POLICY_DENIED" || r.Errors[0].Extensions["reasonCode"] != c.reason {
				t.Errorf("%s: got %s %+v", c.name, r.Code(), r.Errors)
				continue
			}
			if reason, _ := r.Errors[0].Extensions["reason"].(string); !strings.Contains(reason, c.has) {
				t.Errorf("%s: reason %q lacks %q", c.name, reason, c.has)
			}
		}
	}
	check()
	b.MustExecute(b.Key, testkit.Pay(from, to, "50")) // reaching the daily limit exactly: allowed
	// These rules come before the trust rule, so they hold however many refusals pile up.
	cases = []struct {
		name   string
		in     map[string]any
		reason string
		has    string
	}{
		{"action", func() map[string]any { in := testkit.Pay(from, to, "1"); in["action"] = "steal"; return in }(), "action_not_authorized", "steal"},
		{"currency", func() map[string]any { in := testkit.Pay(from, to, "1"); in["currency"] = "EUR"; return in }(), "currency_mismatch", "EUR"},
		{"counterparty currency", testkit.Pay(from, eur, "1"), "currency_mismatch", "EUR"},
		{"environment", testkit.Pay(from, prod, "1"), "environment_mismatch", "production"},
		{"counterparty suspended", testkit.Pay(from, suspended, "1"), "counterparty_suspended", suspended.ID},
		{"sender suspended", testkit.Pay(suspended, to, "1"), "agent_suspended", suspended.ID},
	}
	check()

	// Input errors are validation, not policy.
	for field, in := range map[string]map[string]any{
		"input.amount":    testkit.Pay(from, to, "1.001"),
		"input.toAgent":   testkit.Pay(from, from, "1"),
		"input.currency":  func() map[string]any { in := testkit.Pay(from, to, "1"); in["currency"] = "usd"; return in }(),
		"input.fromAgent": func() map[string]any { in := testkit.Pay(from, to, "1"); in["fromAgent"] = "nope"; return in }(),
	} {
		r := b.Execute(b.Key, in)
		fe, _ := r.Errors[0].Extensions["fieldErrors"].([]any)
		if r.Code() != "VALIDATION_FAILED" || len(fe) == 0 || fe[0].(map[string]any)["field"] != field {
			t.Errorf("%s: got %s %+v", field, r.Code(), r.Errors)
		}
	}
	jpyFrom := b.Register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	jpyTo := b.Register(map[string]any{"currency": "JPY", "spendingLimit": "1000", "name": "jpy2"})
	if r := b.Execute(b.Key, testkit.Pay(jpyFrom, jpyTo, "1.5")); r.Code() != "VALIDATION_FAILED" {
		t.Errorf("JPY decimals: %s", r.Code())
	}
	b.MustExecute(b.Key, testkit.Pay(jpyFrom, jpyTo, "15"))

	// Another organization's agent cannot be the sender.
	if r := b.Execute(otherKey, testkit.Pay(from, to, "1")); r.Code() != "NOT_FOUND" {
		t.Errorf("foreign sender: %s", r.Code())
	}
}

func TestExactMoneyAndExport(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	from := b.Register(nil)
	to := b.Register(map[string]any{"name": "to"})
	b.MustExecute(b.Key, testkit.Pay(from, to, 0.1))
	b.MustExecute(b.Key, testkit.Pay(from, to, "0.2"))

	var exp struct {
		Format  string `json:"format"`
		Content string `json:"content"`
		Count   int    `json:"count"`
	}
	b.Query(`{ exportTransactions(format: csv) { format content count } }`, nil).Into(t, "exportTransactions", &exp)
	rows, err := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
	if err != nil || exp.Count != 2 || len(rows) != 3 || rows[0][4] != "amount" {
		t.Fatalf("csv export: %v %d %q", err, exp.Count, exp.Content)
	}
	sum := decimal.Zero
	for _, row := range rows[1:] {
		sum = sum.Add(decimal.RequireFromString(row[4]))
	}
	if sum.String() != "0.3" {
		t.Fatalf("sum = %s, want 0.3", sum)
	}
	b.Query(`{ exportTransactions(format: json) { content count } }`, nil).Into(t, "exportTransactions", &exp)
	if !strings.Contains(exp.Content, `"amount":0.1,`) || !strings.Contains(exp.Content, `"amount":0.2,`) || exp.Count != 2 {
		t.Fatalf("json export: %s", exp.Content)
	}
	if r := b.Do(b.Key, `{ exportTransactions(format: csv, since: "2030-01-01T00:00:00Z", until: "2029-01-01T00:00:00Z") { count } }`, nil); r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("inverted range: %s", r.Code())
	}
}

func TestConcurrentExecutesRespectDailyLimit(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	from := b.Register(map[string]any{"spendingLimit": "10", "dailyLimit": "150"})
	to := b.Register(map[string]any{"name": "to"})
	var wg sync.WaitGroup
	results := make(chan string, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.Execute(b.Key, testkit.Pay(from, to, "10"))
			results <- r.Code() // "" when it completed

		}()
	}
	wg.Wait()
	close(results)
	counts := map[string]int{}
	for r := range results {
		counts[r]++
	}
	// The refusals are daily_limit_exceeded, or trust_too_low once so many
	// refusals have made the hammering agent High Risk.
	if counts[""] != 15 || counts["POLICY_DENIED"] != 35 {
		t.Fatalf("outcomes: %v", counts)
	}
	var exp struct{ Content string }
	b.Query(`{ exportTransactions(format: csv) { content } }`, nil).Into(t, "exportTransactions", &exp)
	rows, _ := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
	total := decimal.Zero
	for _, row := range rows[1:] {
		total = total.Add(decimal.RequireFromString(row[4]))
	}
	if !total.Equal(decimal.NewFromInt(150)) {
		t.Fatalf("total outflow %s, want 150", total)
	}
}

func TestIdempotency(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	from := b.Register(nil)
	to := b.Register(map[string]any{"name": "to"})
	in := testkit.Pay(from, to, "5")
	in["idempotencyKey"] = "order-1"
	first := b.MustExecute(b.Key, in)
	again := b.MustExecute(b.Key, in)
	if again.ID != first.ID || again.CreatedAt != first.CreatedAt {
		t.Fatalf("replay returned %s, want %s", again.ID, first.ID)
	}
	changed := testkit.Pay(from, to, "6")
	changed["idempotencyKey"] = "order-1"
	if r := b.Execute(b.Key, changed); r.Code() != "CONFLICT" {
		t.Fatalf("reused key with other input: %s", r.Code())
	}
	// Keys are per organization: another org may use the same key.
	_, otherKey := b.NewOrg("globex")
	o1 := b.RegisterAs(otherKey, nil)
	o2 := b.RegisterAs(otherKey, map[string]any{"name": "o2"})
	oin := testkit.Pay(o1, o2, "5")
	oin["idempotencyKey"] = "order-1"
	if tx := b.MustExecute(otherKey, oin); tx.ID == first.ID {
		t.Fatal("idempotency key leaked across organizations")
	}

	// A concurrent race on one key executes once.
	race := testkit.Pay(from, to, "7")
	race["idempotencyKey"] = "race"
	ids := make(chan string, 10)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tx testkit.Transaction
			b.Execute(b.Key, race).Into(t, "executeTransaction", &tx)
			ids <- tx.ID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	if len(seen) != 1 {
		t.Fatalf("race executed %d times", len(seen))
	}
	var conn struct{ TotalCount int }
	b.Query(`{ transactions { totalCount } }`, nil).Into(t, "transactions", &conn)
	if conn.TotalCount != 2 {
		t.Fatalf("totalCount = %d, want 2", conn.TotalCount)
	}
}

func TestReverseTransaction(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	_, strangerKey := b.NewOrg("initech")
	from := b.Register(map[string]any{"spendingLimit": "100", "dailyLimit": "100"})
	to := b.RegisterAs(otherKey, map[string]any{"name": "to"})
	tx := b.MustExecute(b.Key, testkit.Pay(from, to, "100"))
	if r := b.Execute(b.Key, testkit.Pay(from, to, "1")); r.Code() != "POLICY_DENIED" {
		t.Fatalf("budget should be spent: %s", r.Code())
	}
	vars := map[string]any{"id": tx.ID, "reason": "duplicate charge"}
	if r := b.Do(otherKey, testkit.ReverseMutation, vars); r.Code() != "FORBIDDEN" {
		t.Fatalf("receiver reversing: %s", r.Code())
	}
	if r := b.Do(strangerKey, testkit.ReverseMutation, vars); r.Code() != "NOT_FOUND" {
		t.Fatalf("stranger reversing: %s", r.Code())
	}
	if r := b.Do(b.Key, testkit.ReverseMutation, map[string]any{"id": tx.ID, "reason": "   "}); r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("blank reason: %s", r.Code())
	}
	var rev testkit.Transaction
	b.Query(testkit.ReverseMutation, vars).Into(t, "reverseTransaction", &rev)
	if rev.ID == tx.ID || rev.Status != "reversed" || rev.ReversalOf == nil || *rev.ReversalOf != tx.ID ||
		rev.FromAgent != to.ID || rev.ToAgent != from.ID || string(rev.Amount) != "100" || rev.Reason == nil || *rev.Reason != "duplicate charge" {
		t.Fatalf("reversal record: %+v", rev)
	}
	var orig testkit.Transaction
	b.Query(`query($id: ID!) { transaction(id: $id) { `+testkit.TxFields+` } }`, map[string]any{"id": tx.ID}).Into(t, "transaction", &orig)
	if orig.Status != "reversed" || orig.ReversedBy == nil || *orig.ReversedBy != rev.ID || *orig.Reason != "duplicate charge" {
		t.Fatalf("original after reversal: %+v", orig)
	}
	if r := b.Do(b.Key, testkit.ReverseMutation, vars); r.Code() != "CONFLICT" {
		t.Fatalf("reverse twice: %s", r.Code())
	}
	if r := b.Do(otherKey, testkit.ReverseMutation, map[string]any{"id": rev.ID, "reason": "x"}); r.Code() != "CONFLICT" {
		t.Fatalf("reverse a reversal: %s", r.Code())
	}
	// A reversal gives no capacity back: the reversed 100 still fills the daily limit.
	if r := b.Execute(b.Key, testkit.Pay(from, to, "100")); r.ReasonCode() != "daily_limit_exceeded" {
		t.Fatalf("execute after reversal: %s %s", r.Code(), r.ReasonCode())
	}
	if n := len(b.EventsOf(b.OrgID, "transaction.reversed")); n != 1 {
		t.Fatalf("reversed events: %d", n)
	}
}

func TestTransactionVisibilityAndPaging(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("globex")
	_, strangerKey := b.NewOrg("initech")
	a1 := b.Register(nil)
	a2 := b.Register(map[string]any{"name": "a2"})
	o1 := b.RegisterAs(otherKey, nil)
	s1 := b.RegisterAs(strangerKey, nil)
	s2 := b.RegisterAs(strangerKey, map[string]any{"name": "s2"})
	var ids []string
	for i := 0; i < 7; i++ {
		ids = append(ids, b.MustExecute(b.Key, testkit.Pay(a1, a2, 1)).ID) // internal
	}
	for i := 0; i < 5; i++ {
		ids = append(ids, b.MustExecute(otherKey, testkit.Pay(o1, a1, 2)).ID) // incoming from another org
	}
	for i := 0; i < 4; i++ {
		ids = append(ids, b.MustExecute(b.Key, testkit.Pay(a2, o1, 3)).ID) // outgoing to another org
	}
	stranger := b.MustExecute(strangerKey, testkit.Pay(s1, s2, 1))
	if r := b.Do(b.Key, `query($id: ID!) { transaction(id: $id) { id } }`, map[string]any{"id": stranger.ID}); r.Code() != "NOT_FOUND" {
		t.Fatalf("stranger's transaction: %s", r.Code())
	}
	walk := func(key string, agentID *string, limit int) []string {
		var got []string
		var after any
		for {
			var page struct {
				Nodes    []testkit.Transaction
				PageInfo struct {
					EndCursor   *string
					HasNextPage bool
				}
				TotalCount int
			}
			b.Do(key, `query($a: ID, $l: Int, $after: String) { transactions(agentId: $a, limit: $l, after: $after) { nodes { id createdAt } pageInfo { endCursor hasNextPage } totalCount } }`,
				map[string]any{"a": agentID, "l": limit, "after": after}).Into(t, "transactions", &page)
			for _, n := range page.Nodes {
				got = append(got, n.ID)
			}
			if !page.PageInfo.HasNextPage {
				return got
			}
			after = *page.PageInfo.EndCursor
		}
	}
	mine := walk(b.Key, nil, 3)
	if len(mine) != 16 || !sameSet(mine, ids) {
		t.Fatalf("own org sees %d transactions", len(mine))
	}
	for i := range mine { // newest first
		if mine[i] != ids[len(ids)-1-i] {
			t.Fatalf("order at %d: %s, want %s", i, mine[i], ids[len(ids)-1-i])
		}
	}
	if theirs := walk(otherKey, nil, 4); len(theirs) != 9 {
		t.Fatalf("other org sees %d, want 9", len(theirs))
	}
	if byAgent := walk(b.Key, &o1.ID, 2); len(byAgent) != 9 {
		t.Fatalf("by counterparty agent: %d, want 9", len(byAgent))
	}
	if r := b.Do(b.Key, `{ transactions(limit: 201) { totalCount } }`, nil); r.Code() != "VALIDATION_FAILED" {
		t.Fatalf("limit 201: %s", r.Code())
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

func TestExportLimit(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	from := b.Register(nil)
	to := b.Register(map[string]any{"name": "to"})
	conn := b.SQL()
	// 50,001 transactions, one a minute, ending an hour ago.
	_, err := conn.Exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, created_at)
		SELECT 'tx_seed' || g, $1, $2, $3, $3, 'purchase', 1, 'USD', 'completed', now() - interval '1 hour' - g * interval '1 minute'
		FROM generate_series(1, 50001) g`, from.ID, to.ID, b.OrgID)
	if err != nil {
		t.Fatal(err)
	}
	r := b.Do(b.Key, `{ exportTransactions(format: csv) { count } }`, nil)
	if r.Code() != "VALIDATION_FAILED" || !strings.Contains(r.Errors[0].Message, "2097152") || !strings.Contains(r.Errors[0].Message, "/transactions/export") {
		t.Fatalf("oversized export: %+v", r.Errors)
	}
	if f := r.Fields(t); len(f) != 1 || f[0] != "until" {
		t.Fatalf("oversized export names %v, want until", f)
	}
	var exp struct{ Count int }
	// The ten newest seeded rows, counted from the newest's own time: the
	// test's clock may have moved on since the insert.
	var newest time.Time
	if err := conn.QueryRow(`SELECT max(created_at) FROM transactions WHERE id LIKE 'tx_seed%'`).Scan(&newest); err != nil {
		t.Fatal(err)
	}
	since := newest.Add(-9*time.Minute - 30*time.Second).UTC().Format(time.RFC3339)
	b.Query(`query($s: Time) { exportTransactions(format: json, since: $s) { count } }`, map[string]any{"s": since}).Into(t, "exportTransactions", &exp)
	if exp.Count != 10 {
		t.Fatalf("narrowed export: %d rows, want 10", exp.Count)
	}
}
