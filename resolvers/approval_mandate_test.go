package resolvers_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/internal/testkit"
)

// mandateUse is a mandate's spent and uses as read back.
func mandateUse(t *testing.T, k *testkit.Kit, id string) (spent string, uses int) {
	t.Helper()
	m := k.Mandate(id)
	return string(m.Spent), m.Uses
}

// txMandate reads a transaction's status and mandateId.
func txMandate(t *testing.T, k *testkit.Kit, id string) (status string, mandateID *string) {
	t.Helper()
	var tx testkit.MandateTransaction
	k.Query(`query($id: ID!) { transaction(id: $id) { id status mandateId } }`, map[string]any{"id": id}).Into(t, "transaction", &tx)
	return tx.Status, tx.MandateID
}

// setupApprovals is setupMandates with the buyer able to pay up to 1000,
// and any amount over 500 waiting an hour for an admin's approval.
func setupApprovals(t *testing.T) *mandateWorld {
	w := setupMandates(t)
	w.k.Query(`mutation($id: ID!, $in: UpdateAgentInput!) { updateAgent(id: $id, input: $in) { id } }`,
		map[string]any{"id": w.buyer.ID, "in": map[string]any{"spendingLimit": "1000"}}).Into(t, "updateAgent", new(testkit.Agent))
	w.k.SetPolicy(w.k.Key, w.buyer.ID, map[string]any{"approval": map[string]any{"above": "500", "expiresAfterSeconds": 3600}})
	return w
}

// A mandate is charged only when an execute completes: a pending execute
// passes the mandate's checks but charges nothing; an approval re-checks
// the mandate under its lock and charges it; a decline or an expiry never
// does.
func TestApprovalUnderMandate(t *testing.T) {
	t.Parallel()
	w := setupApprovals(t)
	k := w.k
	mk := func(budget string) string { return k.MustCreateMandate(testkit.MandateInput(w.buyer, budget, nil)).ID }
	pay := func(mandateID, amount, key string) map[string]any {
		in := testkit.Pay(w.buyer, w.seller, amount)
		in["mandateId"] = mandateID
		if key != "" {
			in["idempotencyKey"] = key
		}
		return in
	}
	pending := func(mandateID, amount, key string) testkit.MandateTransaction {
		t.Helper()
		var tx testkit.MandateTransaction
		k.ExecuteUnder(k.Key, mandateID, pay(mandateID, amount, key)).Into(t, "executeTransaction", &tx)
		if tx.Status != "pending_approval" || tx.MandateID == nil || *tx.MandateID != mandateID {
			t.Fatalf("%s under %s: %+v", amount, mandateID, tx)
		}
		return tx
	}
	wantUse := func(id, spent string, uses int) {
		t.Helper()
		if s, u := mandateUse(t, k, id); s != spent || u != uses {
			t.Fatalf("mandate %s: spent %s uses %d, want %s and %d", id, s, u, spent, uses)
		}
	}

	// The evaluation checks the mandate and says the execute would wait.
	full := mk("1000")
	var e testkit.Evaluation
	k.Query(evaluateApproval, map[string]any{"in": map[string]any{"agentId": w.buyer.ID, "action": "purchase", "amount": "600",
		"currency": "USD", "toAgent": w.seller.ID, "mandateId": full}}).Into(t, "evaluateTrust", &e)
	if !e.Allowed || e.ReasonCode != "ok" || !e.RequiresApproval || !strings.Contains(e.Reason, "over the approval threshold") {
		t.Fatalf("evaluating 600 under a mandate: %+v", e)
	}
	small := mk("100")
	k.Query(evaluateApproval, map[string]any{"in": map[string]any{"agentId": w.buyer.ID, "action": "purchase", "amount": "600",
		"currency": "USD", "toAgent": w.seller.ID, "mandateId": small}}).Into(t, "evaluateTrust", &e)
	if e.Allowed || e.ReasonCode != "mandate_amount_exceeded" || e.RequiresApproval {
		t.Fatalf("evaluating 600 under a mandate of 100: %+v", e)
	}
	// Over the mandate, the execute is refused rather than stored pending.
	if r := k.ExecuteUnder(k.Key, small, pay(small, "600", "")); r.ReasonCode() != "mandate_amount_exceeded" {
		t.Fatalf("600 under a mandate of 100: %s", r.Body)
	}

	// Pending: the mandate is named but not charged; a retry returns it, still uncharged.
	p := pending(full, "600", "order-1")
	wantUse(full, "0", 0)
	if again := pending(full, "600", "order-1"); again.ID != p.ID {
		t.Fatalf("the retry made %s, want %s", again.ID, p.ID)
	}
	wantUse(full, "0", 0)
	// Completing below the threshold charges at once and leaves 550, less than the pending 600.
	var done testkit.MandateTransaction
	k.ExecuteUnder(k.Key, full, pay(full, "450", "")).Into(t, "executeTransaction", &done)
	if done.Status != "completed" {
		t.Fatalf("450: %+v", done)
	}
	wantUse(full, "450", 1)
	r := k.Approve(k.Key, p.ID)
	if r.Refused(t, "POLICY_DENIED"); r.ReasonCode() != "mandate_amount_exceeded" {
		t.Fatalf("approving 600 with 550 left: %s", r.Body)
	}
	if st, m := txMandate(t, k, p.ID); st != "pending_approval" || m == nil || *m != full {
		t.Fatalf("after a refused approval: %s %v", st, m)
	}
	wantUse(full, "450", 1)

	// Approved, it completes under its mandate and charges it.
	fresh := mk("1000")
	q := pending(fresh, "600", "")
	reqs := k.EventsOf(k.OrgID, "transaction.approval_requested") // the sender's organization's alone
	if last := data(t, reqs[len(reqs)-1]); last["id"] != q.ID || last["mandate_id"] != fresh {
		t.Fatalf("the pending execute's transaction.approval_requested: %v", last)
	}
	var approved testkit.MandateTransaction
	k.Do(k.Key, `mutation($id: ID!) { approveTransaction(id: $id) { `+testkit.TxFields+` mandateId } }`,
		map[string]any{"id": q.ID}).Into(t, "approveTransaction", &approved)
	if approved.Status != "completed" || approved.MandateID == nil || *approved.MandateID != fresh {
		t.Fatalf("approved: %+v", approved)
	}
	wantUse(fresh, "600", 1)
	evs := k.EventsOf(w.sellerOrg, "transaction.completed")
	if last := data(t, evs[len(evs)-1]); last["id"] != q.ID || last["mandate_id"] != fresh {
		t.Fatalf("the approval's transaction.completed: %v", last)
	}
	k.Approve(k.Key, q.ID).Refused(t, "CONFLICT")
	wantUse(fresh, "600", 1)

	// Revoked while it waits, its approval is refused and it stays pending; a decline charges nothing.
	revoked := mk("1000")
	v := pending(revoked, "600", "")
	k.RevokeMandate(k.Key, revoked, nil).Into(t, "revokeMandate", new(testkit.Mandate))
	r = k.Approve(k.Key, v.ID)
	if r.Refused(t, "POLICY_DENIED"); r.ReasonCode() != "mandate_revoked" {
		t.Fatalf("approving under a revoked mandate: %s", r.Body)
	}
	if st, _ := txMandate(t, k, v.ID); st != "pending_approval" {
		t.Fatalf("after approving under a revoked mandate: %s", st)
	}
	k.Decline(k.Key, v.ID, "task cancelled").Into(t, "declineTransaction", new(testkit.Transaction))
	wantUse(revoked, "0", 0)

	// An expired one charges nothing either.
	unused := mk("1000")
	x := pending(unused, "600", "")
	w.clock.Advance(time.Hour)
	if _, err := db.NewTransactionService(k.DB).ExpireApprovals(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := txMandate(t, k, x.ID); st != "expired" {
		t.Fatalf("after the sweep: %s", st)
	}
	wantUse(unused, "0", 0)
	wantUse(full, "450", 1)
}

// Approvals, executes and a revocation racing on one mandate: nothing
// deadlocks, the budget and uses are never exceeded, and the mandate's
// spent and uses are exactly its completed transactions'.
func TestApprovalUnderMandateStorm(t *testing.T) {
	t.Parallel()
	w := setupMandates(t)
	k := w.k
	k.SetPolicy(k.Key, w.buyer.ID, map[string]any{"approval": map[string]any{"above": "300", "expiresAfterSeconds": 3600}})
	maxUses := 8
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "2000", map[string]any{"maxUses": maxUses})).ID
	const pendingN, executes = 6, 10
	var queue []string
	for range pendingN {
		var tx testkit.MandateTransaction
		k.ExecuteUnder(k.Key, m, testkit.Pay(w.buyer, w.seller, "400")).Into(t, "executeTransaction", &tx)
		if tx.Status != "pending_approval" {
			t.Fatalf("400: %+v", tx)
		}
		queue = append(queue, tx.ID)
	}
	wantUse := func(spent string, uses int) {
		t.Helper()
		if s, u := mandateUse(t, k, m); s != spent || u != uses {
			t.Fatalf("mandate: spent %s uses %d, want %s and %d", s, u, spent, uses)
		}
	}
	wantUse("0", 0)
	codes := make([]string, pendingN+executes)
	var wg sync.WaitGroup
	for i, id := range queue {
		wg.Go(func() { codes[i] = outcome(k.Approve(k.Key, id)) })
	}
	for i := range executes {
		wg.Go(func() { codes[pendingN+i] = outcome(k.ExecuteUnder(k.Key, m, testkit.Pay(w.buyer, w.seller, "150"))) })
	}
	wg.Wait()
	for _, c := range codes {
		if c != "ok" && c != "mandate_exhausted" && c != "mandate_amount_exceeded" {
			t.Fatalf("outcomes %v", codes)
		}
	}
	var sum string
	var n int
	if err := k.DB.Pool().QueryRow(context.Background(), `SELECT coalesce(sum(amount), 0)::text, count(*) FROM transactions
		WHERE mandate_id = $1 AND status = 'completed'`, m).Scan(&sum, &n); err != nil {
		t.Fatal(err)
	}
	spent, uses := mandateUse(t, k, m)
	if !decimal.RequireFromString(spent).Equal(decimal.RequireFromString(sum)) || uses != n || uses > maxUses || n == 0 ||
		decimal.RequireFromString(spent).GreaterThan(decimal.NewFromInt(2000)) {
		t.Fatalf("mandate: spent %s in %d uses; completed under it: %s in %d (outcomes %v)", spent, uses, sum, n, codes)
	}
	for _, id := range queue {
		if st, _ := txMandate(t, k, id); st != "completed" && st != "pending_approval" {
			t.Fatalf("%s after the storm: %s", id, st)
		}
	}
	// A revocation ends it: what still waits can no longer be approved.
	k.RevokeMandate(k.Key, m, nil).Into(t, "revokeMandate", new(testkit.Mandate))
	for _, id := range queue {
		if st, _ := txMandate(t, k, id); st == "pending_approval" {
			if r := k.Approve(k.Key, id); r.ReasonCode() != "mandate_revoked" {
				t.Fatalf("approving %s after the revocation: %s", id, r.Body)
			}
		}
	}
	wantUse(spent, uses)
}

// outcome is "ok" for a successful answer, else its reasonCode or code.
func outcome(r *testkit.Response) string {
	if len(r.Errors) == 0 {
		return "ok"
	}
	if c := r.ReasonCode(); c != "" {
		return c
	}
	return r.Code()
}

// An export holds every field of the GraphQL Transaction type: each
// exported row, CSV or JSON, says what transaction(id) says, the approval
// and mandate fields included.
func TestExportHasEveryTransactionField(t *testing.T) {
	t.Parallel()
	w := setupApprovals(t)
	k := w.k
	m := k.MustCreateMandate(testkit.MandateInput(w.buyer, "5000", nil)).ID
	var done, waiting, declined testkit.MandateTransaction
	k.ExecuteUnder(k.Key, m, testkit.Pay(w.buyer, w.seller, "100")).Into(t, "executeTransaction", &done)
	k.ExecuteUnder(k.Key, m, testkit.Pay(w.buyer, w.seller, "600")).Into(t, "executeTransaction", &waiting)
	k.ExecuteUnder(k.Key, m, testkit.Pay(w.buyer, w.seller, "700")).Into(t, "executeTransaction", &declined)
	k.Decline(k.Key, declined.ID, "not this one").Into(t, "declineTransaction", new(testkit.Transaction))

	fields := strings.Fields(`id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason
		createdAt expiresAt decidedAt decidedBy mandateId`)
	want := map[string]map[string]any{}
	for _, id := range []string{done.ID, waiting.ID, declined.ID} {
		var tx map[string]any
		k.Query(`query($id: ID!) { transaction(id: $id) { `+strings.Join(fields, " ")+` } }`, map[string]any{"id": id}).Into(t, "transaction", &tx)
		want[id] = tx
	}
	if want[waiting.ID]["expiresAt"] == nil || want[declined.ID]["decidedBy"] != k.KeyID || want[done.ID]["mandateId"] != m {
		t.Fatalf("the transactions themselves: %v", want)
	}
	// text is a field's value as a CSV cell: empty for null, amounts exact.
	text := func(v any) string {
		switch v := v.(type) {
		case nil:
			return ""
		case float64:
			return decimal.NewFromFloat(v).String()
		case json.Number:
			return v.String()
		}
		return fmt.Sprint(v)
	}

	var exp struct{ Content string }
	k.Query(`{ exportTransactions(format: csv) { content } }`, nil).Into(t, "exportTransactions", &exp)
	rows, err := csv.NewReader(strings.NewReader(exp.Content)).ReadAll()
	if err != nil || len(rows) != 4 || !slices.Equal(rows[0], fields) {
		t.Fatalf("csv export: %v %q", err, exp.Content)
	}
	for _, row := range rows[1:] {
		tx := want[row[0]]
		for i, f := range fields {
			if row[i] != text(tx[f]) {
				t.Errorf("csv %s.%s = %q, transaction says %q", row[0], f, row[i], text(tx[f]))
			}
		}
	}

	k.Query(`{ exportTransactions(format: json) { content } }`, nil).Into(t, "exportTransactions", &exp)
	dec := json.NewDecoder(strings.NewReader(exp.Content))
	dec.UseNumber()
	var objs []map[string]any
	if err := dec.Decode(&objs); err != nil || len(objs) != 3 {
		t.Fatalf("json export: %v %s", err, exp.Content)
	}
	for _, o := range objs {
		tx := want[text(o["id"])]
		if len(o) != len(fields) {
			t.Errorf("json row %v: %d fields, want %d", o["id"], len(o), len(fields))
		}
		for _, f := range fields {
			if text(o[f]) != text(tx[f]) {
				t.Errorf("json %s.%s = %q, transaction says %q", o["id"], f, text(o[f]), text(tx[f]))
			}
		}
	}
}
