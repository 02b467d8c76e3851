package resolvers_test

import (
	"encoding/base64"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// Control characters in names, memos, reasons and idempotency keys are
// VALIDATION_FAILED, and nothing is written.
func TestControlCharacters(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	from := b.Register(nil)
	to := b.Register(map[string]any{"name": "to"})
	tx := b.MustExecute(b.Key, testkit.Pay(from, to, "1"))
	for _, bad := range []string{"a\x00b", "a\x07b", "a\x1bb", "\u0085x", "a\x7fb"} {
		r := b.Do(b.Key, testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": bad})})
		checkFields(t, r, "input.name")
		in := testkit.Pay(from, to, "1")
		in["memo"] = bad
		checkFields(t, b.Execute(b.Key, in), "input.memo")
		in = testkit.Pay(from, to, "1")
		in["idempotencyKey"] = bad
		checkFields(t, b.Execute(b.Key, in), "input.idempotencyKey")
		checkFields(t, b.Do(b.Key, testkit.ReverseMutation, map[string]any{"id": tx.ID, "reason": bad}), "reason")
		checkFields(t, b.Do(b.Key, testkit.SuspendMutation, map[string]any{"id": from.ID, "reason": bad}), "reason")
		checkFields(t, b.Do(b.Key, reportMutation, map[string]any{"in": map[string]any{
			"agentId": to.ID, "reason": bad, "evidenceIds": []string{tx.ID}}}), "input.reason")
	}
	// Tabs and line breaks are text in a memo or reason.
	in := testkit.Pay(from, to, "1")
	in["memo"] = "line one\nline two\tend"
	if got := b.MustExecute(b.Key, in); got.Memo == nil || *got.Memo != "line one\nline two\tend" {
		t.Fatalf("memo with line breaks: %v", got.Memo)
	}
	var c struct{ TotalCount int }
	b.Query(`{ transactions { totalCount } }`, nil).Into(t, "transactions", &c)
	if c.TotalCount != 2 {
		t.Fatalf("%d transactions, want 2: a refused input wrote something", c.TotalCount)
	}
}

func checkFields(t *testing.T, r *testkit.Response, field string) {
	t.Helper()
	if f := r.Fields(t); len(f) != 1 || f[0] != field {
		t.Fatalf("fieldErrors %v, want %s", f, field)
	}
}

// CSV cells a spreadsheet would run as formulas are neutralised; JSON keeps
// the memo as written.
func TestExportFormulaInjection(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, otherKey := b.NewOrg("counterparty")
	payer := b.RegisterAs(otherKey, nil)
	me := b.Register(nil)
	memos := []string{"=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "plain"}
	for _, m := range memos {
		in := testkit.Pay(payer, me, "1")
		in["memo"] = m
		b.MustExecute(otherKey, in)
	}
	var exp struct{ Content string }
	b.Query(`{ exportTransactions(format: csv) { content } }`, nil).Into(t, "exportTransactions", &exp)
	rows, err := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
	if err != nil || len(rows) != len(memos)+1 {
		t.Fatalf("csv: %v, %d rows", err, len(rows))
	}
	for i, m := range memos {
		want := m
		if m != "plain" {
			want = "'" + m
		}
		if got := rows[i+1][6]; got != want {
			t.Errorf("memo %q exported as %q, want %q", m, got, want)
		}
	}
	b.Query(`{ exportTransactions(format: json) { content } }`, nil).Into(t, "exportTransactions", &exp)
	if !strings.Contains(exp.Content, `"memo":"=HYPERLINK`) {
		t.Fatalf("json export changed the memo: %.300s", exp.Content)
	}
}

// A daily outflow whose sum exceeds the largest amount, and cursors with
// extreme timestamps, answer contract errors, not INTERNAL.
func TestExtremeValues(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const most = "999999999999999.99"
	from := b.Register(map[string]any{"spendingLimit": most})
	to := b.Register(map[string]any{"name": "to"})
	b.MustExecute(b.Key, testkit.Pay(from, to, most))
	b.MustExecute(b.Key, testkit.Pay(from, to, most))
	b.UpdateAgent(from.ID, map[string]any{"dailyLimit": most})
	if ev := b.Evaluate(from.ID, "purchase", "1", "USD"); ev.ReasonCode != "daily_limit_exceeded" {
		t.Fatalf("evaluate over a huge outflow: %+v", ev)
	}
	r := b.Execute(b.Key, testkit.Pay(from, to, "1"))
	r.Refused(t, "POLICY_DENIED")

	for _, micros := range []string{"9223372036854775807", "-9223372036854775808", "253402300800000001", "-1"} {
		cursor := base64.RawURLEncoding.EncodeToString([]byte("c1:" + micros + ":tx_x"))
		r := b.Do(b.Key, `query($a: String) { transactions(after: $a) { nodes { id } } }`, map[string]any{"a": cursor})
		checkFields(t, r, "after")
	}
}
