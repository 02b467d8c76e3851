package resolvers_test

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

const txFields = `id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt`

type txJSON struct {
	ID         string          `json:"id"`
	FromAgent  string          `json:"fromAgent"`
	ToAgent    string          `json:"toAgent"`
	Action     string          `json:"action"`
	Amount     json.RawMessage `json:"amount"`
	Currency   string          `json:"currency"`
	Memo       *string         `json:"memo"`
	Status     string          `json:"status"`
	ReversalOf *string         `json:"reversalOf"`
	ReversedBy *string         `json:"reversedBy"`
	Reason     *string         `json:"reason"`
	CreatedAt  string          `json:"createdAt"`
}

const executeMutation = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { ` + txFields + ` } }`
const reverseMutation = `mutation($id: ID!, $reason: String!) { reverseTransaction(id: $id, reason: $reason) { ` + txFields + ` } }`

// registerAs registers an agent for the organization holding key.
func (b *bundle) registerAs(key string, overrides map[string]any) agentJSON {
	b.t.Helper()
	var a agentJSON
	r := b.do(key, registerMutation, map[string]any{"input": registerInput(overrides)})
	r.into(b.t, "registerAgent", &a)
	return a
}

func (b *bundle) execute(key string, in map[string]any) *response {
	b.t.Helper()
	return b.do(key, executeMutation, map[string]any{"input": in})
}

func (b *bundle) mustExecute(key string, in map[string]any) txJSON {
	b.t.Helper()
	var tx txJSON
	b.execute(key, in).into(b.t, "executeTransaction", &tx)
	return tx
}

func pay(from, to agentJSON, amount any) map[string]any {
	return map[string]any{"fromAgent": from.ID, "toAgent": to.ID, "action": "purchase", "amount": amount, "currency": from.Currency}
}

func TestExecuteTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	otherOrg, otherKey := b.newOrg("globex")
	from := b.register(map[string]any{"name": "payer"})
	to := b.registerAs(otherKey, map[string]any{"name": "payee"})

	in := pay(from, to, "12.34")
	in["memo"] = "  invoice #7 ✓ "
	tx := b.mustExecute(b.key, in)
	if !strings.HasPrefix(tx.ID, "tx_") || tx.Status != "completed" || string(tx.Amount) != "12.34" ||
		tx.Memo == nil || *tx.Memo != "  invoice #7 ✓ " || tx.ReversalOf != nil || tx.FromAgent != from.ID || tx.ToAgent != to.ID {
		t.Fatalf("unexpected transaction: %+v (amount %s)", tx, tx.Amount)
	}
	// Both organizations see it; both agents' chains record it.
	for _, key := range []string{b.key, otherKey} {
		var got txJSON
		b.do(key, `query($id: ID!) { transaction(id: $id) { `+txFields+` } }`, map[string]any{"id": tx.ID}).into(t, "transaction", &got)
		if got.ID != tx.ID {
			t.Fatalf("transaction not visible to %s", key[:12])
		}
	}
	var fromAgent, toAgent agentJSON
	b.q(`query($id: ID!) { agent(id: $id) { auditChain { action details } } }`, map[string]any{"id": from.ID}).into(t, "agent", &fromAgent)
	b.do(otherKey, `query($id: ID!) { agent(id: $id) { auditChain { action details } } }`, map[string]any{"id": to.ID}).into(t, "agent", &toAgent)
	if last := fromAgent.AuditChain[len(fromAgent.AuditChain)-1]; last.Action != "transaction.completed" || last.Details["transaction_id"] != tx.ID || last.Details["direction"] != "outgoing" {
		t.Fatalf("sender chain: %+v", fromAgent.AuditChain)
	}
	if last := toAgent.AuditChain[len(toAgent.AuditChain)-1]; last.Action != "transaction.completed" || last.Details["direction"] != "incoming" {
		t.Fatalf("receiver chain: %+v", toAgent.AuditChain)
	}
	// One event, one id, delivered to both organizations, with snake_case data.
	ours := b.eventsOf(b.orgID, "transaction.completed")
	theirs := b.eventsOf(otherOrg, "transaction.completed")
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

type eventView struct {
	ID   string
	Data json.RawMessage
}

func (b *bundle) eventsOf(orgID, typ string) []eventView {
	b.t.Helper()
	evs, err := b.db.Events(context.Background(), orgID, 0, 10000)
	if err != nil {
		b.t.Fatal(err)
	}
	var out []eventView
	for _, e := range evs {
		if e.Type == typ {
			out = append(out, eventView{e.ID, e.Data})
		}
	}
	return out
}

func TestExecuteRefusals(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	from := b.register(map[string]any{"spendingLimit": "100", "dailyLimit": "150"})
	to := b.register(map[string]any{"name": "to"})
	eur := b.register(map[string]any{"currency": "EUR"})
	prod := b.register(map[string]any{"environment": "production"})
	suspended := b.register(map[string]any{"name": "suspended"})
	b.q(`mutation($id: ID!) { suspendAgent(id: $id) { status } }`, map[string]any{"id": suspended.ID})

	b.mustExecute(b.key, pay(from, to, "100")) // equal to the spending limit: allowed
	cases := []struct {
		name   string
		in     map[string]any
		reason string
		has    string
	}{
		{"over spending limit", pay(from, to, "100.01"), "amount_exceeds_limit", "100.01"},
		{"over daily limit", pay(from, to, "60"), "daily_limit_exceeded", "50.00"},
	}
	check := func() {
		t.Helper()
		for _, c := range cases {
			r := b.execute(b.key, c.in)
			if r.code() != "POLICY_DENIED" || r.Errors[0].Extensions["reasonCode"] != c.reason {
				t.Errorf("%s: got %s %+v", c.name, r.code(), r.Errors)
				continue
			}
			if reason, _ := r.Errors[0].Extensions["reason"].(string); !strings.Contains(reason, c.has) {
				t.Errorf("%s: reason %q lacks %q", c.name, reason, c.has)
			}
		}
	}
	check()
	b.mustExecute(b.key, pay(from, to, "50")) // reaching the daily limit exactly: allowed
	// These rules come before the trust rule, so they hold however many refusals pile up.
	cases = []struct {
		name   string
		in     map[string]any
		reason string
		has    string
	}{
		{"action", func() map[string]any { in := pay(from, to, "1"); in["action"] = "steal"; return in }(), "action_not_authorized", "steal"},
		{"currency", func() map[string]any { in := pay(from, to, "1"); in["currency"] = "EUR"; return in }(), "currency_mismatch", "EUR"},
		{"counterparty currency", pay(from, eur, "1"), "currency_mismatch", "EUR"},
		{"environment", pay(from, prod, "1"), "environment_mismatch", "production"},
		{"counterparty suspended", pay(from, suspended, "1"), "counterparty_suspended", suspended.ID},
		{"sender suspended", pay(suspended, to, "1"), "agent_suspended", suspended.ID},
	}
	check()

	// Input errors are validation, not policy.
	for field, in := range map[string]map[string]any{
		"input.amount":    pay(from, to, "1.001"),
		"input.toAgent":   pay(from, from, "1"),
		"input.currency":  func() map[string]any { in := pay(from, to, "1"); in["currency"] = "usd"; return in }(),
		"input.fromAgent": func() map[string]any { in := pay(from, to, "1"); in["fromAgent"] = "nope"; return in }(),
	} {
		r := b.execute(b.key, in)
		fe, _ := r.Errors[0].Extensions["fieldErrors"].([]any)
		if r.code() != "VALIDATION_FAILED" || len(fe) == 0 || fe[0].(map[string]any)["field"] != field {
			t.Errorf("%s: got %s %+v", field, r.code(), r.Errors)
		}
	}
	jpyFrom := b.register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	jpyTo := b.register(map[string]any{"currency": "JPY", "spendingLimit": "1000", "name": "jpy2"})
	if r := b.execute(b.key, pay(jpyFrom, jpyTo, "1.5")); r.code() != "VALIDATION_FAILED" {
		t.Errorf("JPY decimals: %s", r.code())
	}
	b.mustExecute(b.key, pay(jpyFrom, jpyTo, "15"))

	// Another organization's agent cannot be the sender.
	if r := b.execute(otherKey, pay(from, to, "1")); r.code() != "NOT_FOUND" {
		t.Errorf("foreign sender: %s", r.code())
	}
}

func TestExactMoneyAndExport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from := b.register(nil)
	to := b.register(map[string]any{"name": "to"})
	b.mustExecute(b.key, pay(from, to, 0.1))
	b.mustExecute(b.key, pay(from, to, "0.2"))

	var exp struct {
		Format  string `json:"format"`
		Content string `json:"content"`
		Count   int    `json:"count"`
	}
	b.q(`{ exportTransactions(format: csv) { format content count } }`, nil).into(t, "exportTransactions", &exp)
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
	b.q(`{ exportTransactions(format: json) { content count } }`, nil).into(t, "exportTransactions", &exp)
	if !strings.Contains(exp.Content, `"amount":0.1,`) || !strings.Contains(exp.Content, `"amount":0.2,`) || exp.Count != 2 {
		t.Fatalf("json export: %s", exp.Content)
	}
	if r := b.do(b.key, `{ exportTransactions(format: csv, since: "2030-01-01T00:00:00Z", until: "2029-01-01T00:00:00Z") { count } }`, nil); r.code() != "VALIDATION_FAILED" {
		t.Fatalf("inverted range: %s", r.code())
	}
}

func TestConcurrentExecutesRespectDailyLimit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	from := b.register(map[string]any{"spendingLimit": "10", "dailyLimit": "150"})
	to := b.register(map[string]any{"name": "to"})
	var wg sync.WaitGroup
	results := make(chan string, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := b.execute(b.key, pay(from, to, "10"))
			results <- r.code() // "" when it completed

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
	b.q(`{ exportTransactions(format: csv) { content } }`, nil).into(t, "exportTransactions", &exp)
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
	b := setup(t)
	from := b.register(nil)
	to := b.register(map[string]any{"name": "to"})
	in := pay(from, to, "5")
	in["idempotencyKey"] = "order-1"
	first := b.mustExecute(b.key, in)
	again := b.mustExecute(b.key, in)
	if again.ID != first.ID || again.CreatedAt != first.CreatedAt {
		t.Fatalf("replay returned %s, want %s", again.ID, first.ID)
	}
	changed := pay(from, to, "6")
	changed["idempotencyKey"] = "order-1"
	if r := b.execute(b.key, changed); r.code() != "CONFLICT" {
		t.Fatalf("reused key with other input: %s", r.code())
	}
	// Keys are per organization: another org may use the same key.
	_, otherKey := b.newOrg("globex")
	o1 := b.registerAs(otherKey, nil)
	o2 := b.registerAs(otherKey, map[string]any{"name": "o2"})
	oin := pay(o1, o2, "5")
	oin["idempotencyKey"] = "order-1"
	if tx := b.mustExecute(otherKey, oin); tx.ID == first.ID {
		t.Fatal("idempotency key leaked across organizations")
	}

	// A concurrent race on one key executes once.
	race := pay(from, to, "7")
	race["idempotencyKey"] = "race"
	ids := make(chan string, 10)
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var tx txJSON
			b.execute(b.key, race).into(t, "executeTransaction", &tx)
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
	b.q(`{ transactions { totalCount } }`, nil).into(t, "transactions", &conn)
	if conn.TotalCount != 2 {
		t.Fatalf("totalCount = %d, want 2", conn.TotalCount)
	}
}

func TestReverseTransaction(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	_, strangerKey := b.newOrg("initech")
	from := b.register(map[string]any{"spendingLimit": "100", "dailyLimit": "100"})
	to := b.registerAs(otherKey, map[string]any{"name": "to"})
	tx := b.mustExecute(b.key, pay(from, to, "100"))
	if r := b.execute(b.key, pay(from, to, "1")); r.code() != "POLICY_DENIED" {
		t.Fatalf("budget should be spent: %s", r.code())
	}
	vars := map[string]any{"id": tx.ID, "reason": "duplicate charge"}
	if r := b.do(otherKey, reverseMutation, vars); r.code() != "FORBIDDEN" {
		t.Fatalf("receiver reversing: %s", r.code())
	}
	if r := b.do(strangerKey, reverseMutation, vars); r.code() != "NOT_FOUND" {
		t.Fatalf("stranger reversing: %s", r.code())
	}
	if r := b.do(b.key, reverseMutation, map[string]any{"id": tx.ID, "reason": "   "}); r.code() != "VALIDATION_FAILED" {
		t.Fatalf("blank reason: %s", r.code())
	}
	var rev txJSON
	b.q(reverseMutation, vars).into(t, "reverseTransaction", &rev)
	if rev.ID == tx.ID || rev.Status != "reversed" || rev.ReversalOf == nil || *rev.ReversalOf != tx.ID ||
		rev.FromAgent != to.ID || rev.ToAgent != from.ID || string(rev.Amount) != "100" || rev.Reason == nil || *rev.Reason != "duplicate charge" {
		t.Fatalf("reversal record: %+v", rev)
	}
	var orig txJSON
	b.q(`query($id: ID!) { transaction(id: $id) { `+txFields+` } }`, map[string]any{"id": tx.ID}).into(t, "transaction", &orig)
	if orig.Status != "reversed" || orig.ReversedBy == nil || *orig.ReversedBy != rev.ID || *orig.Reason != "duplicate charge" {
		t.Fatalf("original after reversal: %+v", orig)
	}
	if r := b.do(b.key, reverseMutation, vars); r.code() != "CONFLICT" {
		t.Fatalf("reverse twice: %s", r.code())
	}
	if r := b.do(otherKey, reverseMutation, map[string]any{"id": rev.ID, "reason": "x"}); r.code() != "CONFLICT" {
		t.Fatalf("reverse a reversal: %s", r.code())
	}
	// The reversal frees the daily budget.
	b.mustExecute(b.key, pay(from, to, "100"))
	if n := len(b.eventsOf(b.orgID, "transaction.reversed")); n != 1 {
		t.Fatalf("reversed events: %d", n)
	}
}

func TestTransactionVisibilityAndPaging(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, otherKey := b.newOrg("globex")
	_, strangerKey := b.newOrg("initech")
	a1 := b.register(nil)
	a2 := b.register(map[string]any{"name": "a2"})
	o1 := b.registerAs(otherKey, nil)
	s1 := b.registerAs(strangerKey, nil)
	s2 := b.registerAs(strangerKey, map[string]any{"name": "s2"})
	var ids []string
	for i := 0; i < 7; i++ {
		ids = append(ids, b.mustExecute(b.key, pay(a1, a2, 1)).ID) // internal
	}
	for i := 0; i < 5; i++ {
		ids = append(ids, b.mustExecute(otherKey, pay(o1, a1, 2)).ID) // incoming from another org
	}
	for i := 0; i < 4; i++ {
		ids = append(ids, b.mustExecute(b.key, pay(a2, o1, 3)).ID) // outgoing to another org
	}
	stranger := b.mustExecute(strangerKey, pay(s1, s2, 1))
	if r := b.do(b.key, `query($id: ID!) { transaction(id: $id) { id } }`, map[string]any{"id": stranger.ID}); r.code() != "NOT_FOUND" {
		t.Fatalf("stranger's transaction: %s", r.code())
	}
	walk := func(key string, agentID *string, limit int) []string {
		var got []string
		var after any
		for {
			var page struct {
				Nodes    []txJSON
				PageInfo struct {
					EndCursor   *string
					HasNextPage bool
				}
				TotalCount int
			}
			b.do(key, `query($a: ID, $l: Int, $after: String) { transactions(agentId: $a, limit: $l, after: $after) { nodes { id createdAt } pageInfo { endCursor hasNextPage } totalCount } }`,
				map[string]any{"a": agentID, "l": limit, "after": after}).into(t, "transactions", &page)
			for _, n := range page.Nodes {
				got = append(got, n.ID)
			}
			if !page.PageInfo.HasNextPage {
				return got
			}
			after = *page.PageInfo.EndCursor
		}
	}
	mine := walk(b.key, nil, 3)
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
	if byAgent := walk(b.key, &o1.ID, 2); len(byAgent) != 9 {
		t.Fatalf("by counterparty agent: %d, want 9", len(byAgent))
	}
	if r := b.do(b.key, `{ transactions(limit: 201) { totalCount } }`, nil); r.code() != "VALIDATION_FAILED" {
		t.Fatalf("limit 201: %s", r.code())
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
	b := setup(t)
	from := b.register(nil)
	to := b.register(map[string]any{"name": "to"})
	conn, err := sql.Open("pg", b.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// 50,001 transactions, one a minute, ending an hour ago.
	_, err = conn.Exec(`INSERT INTO transactions (id, from_agent, to_agent, from_org, to_org, action, amount, currency, status, created_at)
		SELECT 'tx_seed' || g, $1, $2, $3, $3, 'purchase', 1, 'USD', 'completed', now() - interval '1 hour' - g * interval '1 minute'
		FROM generate_series(1, 50001) g`, from.ID, to.ID, b.orgID)
	if err != nil {
		t.Fatal(err)
	}
	r := b.do(b.key, `{ exportTransactions(format: csv) { count } }`, nil)
	if r.code() != "VALIDATION_FAILED" || !strings.Contains(r.Errors[0].Message, "50000") || !strings.Contains(r.Errors[0].Message, "since") {
		t.Fatalf("oversized export: %+v", r.Errors)
	}
	var exp struct{ Count int }
	since := time.Now().Add(-1*time.Hour - 10*time.Minute - 30*time.Second).UTC().Format(time.RFC3339)
	b.q(`query($s: Time) { exportTransactions(format: json, since: $s) { count } }`, map[string]any{"s": since}).into(t, "exportTransactions", &exp)
	if exp.Count != 10 {
		t.Fatalf("narrowed export: %d rows, want 10", exp.Count)
	}
}
