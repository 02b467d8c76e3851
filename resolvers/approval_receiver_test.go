package resolvers_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/internal/testkit"
	"github.com/agenttrust/service/policy"
)

// receiverView is what the receiving organization can learn of the
// transactions ids: each one's answer to transaction(id), node(id) and
// nodes(ids), and the ids its list and its pending queue hold.
type receiverView struct {
	get, node, nodes map[string]bool // id -> found
	listed           []string
	total, queued    int
}

func viewAsReceiver(t *testing.T, b *testkit.Kit, key string, ids []string) receiverView {
	t.Helper()
	v := receiverView{get: map[string]bool{}, node: map[string]bool{}, nodes: map[string]bool{}}
	for _, id := range ids {
		r := b.Do(key, `query($id: ID!) { transaction(id: $id) { id } }`, map[string]any{"id": id})
		switch {
		case len(r.Errors) == 0:
			v.get[id] = true
		case r.Code() != "NOT_FOUND":
			t.Fatalf("transaction(%s) as the receiver: %s", id, r.Body)
		}
		r = b.Do(key, nodeQuery, map[string]any{"id": id})
		switch {
		case len(r.Errors) == 0:
			v.node[id] = true
		case r.Code() != "NOT_FOUND":
			t.Fatalf("node(%s) as the receiver: %s", id, r.Body)
		}
	}
	var ns []*struct{ ID string }
	b.Do(key, nodesQuery, map[string]any{"ids": ids}).Into(t, "nodes", &ns)
	for _, n := range ns {
		if n != nil {
			v.nodes[n.ID] = true
		}
	}
	var c struct {
		Nodes      []testkit.Transaction `json:"nodes"`
		TotalCount int                   `json:"totalCount"`
	}
	b.Do(key, `{ transactions(limit: 200) { nodes { id } totalCount } }`, nil).Into(t, "transactions", &c)
	for _, n := range c.Nodes {
		v.listed = append(v.listed, n.ID)
	}
	v.total = c.TotalCount
	_, v.queued = pendingQueue(t, b, key)
	return v
}

// A pending transaction belongs to the sender's organization until it
// completes: the receiver's organization finds it nowhere (queries, lists,
// node, events) while it waits, nor once declined or expired, and sees it,
// with its transaction.completed, from its approval on.
func TestPendingHiddenFromReceiver(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	shopOrg, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000"})
	b.SetPolicy(b.Key, a.ID, map[string]any{"approval": map[string]any{"above": "0.01", "expiresAfterSeconds": 60}})
	paid := b.MustExecute(b.Key, testkit.Pay(a, shop, "0.01")) // at the threshold: completes at once
	var pending []string
	for range 4 {
		pending = append(pending, b.MustExecute(b.Key, testkit.Pay(a, shop, "5")).ID)
	}
	toApprove, toDecline, toExpire, waiting := pending[0], pending[1], pending[2], pending[3]
	all := append([]string{paid.ID}, pending...)

	check := func(stage string, visible ...string) {
		t.Helper()
		v := viewAsReceiver(t, b, shopKey, all)
		for _, id := range all {
			want := slices.Contains(visible, id)
			if v.get[id] != want || v.node[id] != want || v.nodes[id] != want || slices.Contains(v.listed, id) != want {
				t.Fatalf("%s: %s visible to the receiver: transaction %v, node %v, nodes %v, listed %v; want %v",
					stage, id, v.get[id], v.node[id], v.nodes[id], slices.Contains(v.listed, id), want)
			}
		}
		if v.total != len(visible) || v.queued != 0 {
			t.Fatalf("%s: the receiver counts %d transactions and %d pending, want %d and 0", stage, v.total, v.queued, len(visible))
		}
		// The sender's organization sees every one of them.
		if own := viewAsReceiver(t, b, b.Key, all); own.total != len(all) || len(own.get) != len(all) || len(own.nodes) != len(all) {
			t.Fatalf("%s: the sender sees %d of %d (%d by id)", stage, own.total, len(all), len(own.get))
		}
	}
	check("pending", paid.ID)
	b.Approve(shopKey, toApprove).Refused(t, "NOT_FOUND")
	b.Decline(shopKey, toDecline, "no").Refused(t, "NOT_FOUND")
	b.Reverse(shopKey, waiting, "no").Refused(t, "NOT_FOUND")
	r := b.Report(shopKey, a.ID, "cites a pending one", waiting)
	r.Refused(t, "VALIDATION_FAILED")

	b.Approve(b.Key, toApprove).Into(t, "approveTransaction", new(testkit.Transaction))
	b.Decline(b.Key, toDecline, "not now").Into(t, "declineTransaction", new(testkit.Transaction))
	b.Exec(`UPDATE transactions SET expires_at = now() - interval '1 second' WHERE id = $1`, toExpire)
	if n, err := db.NewTransactionService(b.DB).ExpireApprovals(context.Background()); err != nil || n != 1 {
		t.Fatalf("expired %d: %v", n, err)
	}
	check("decided", paid.ID, toApprove)

	for _, typ := range []string{"transaction.approval_requested", "transaction.declined", "transaction.expired"} {
		if evs := b.EventsOf(shopOrg, typ); len(evs) != 0 {
			t.Fatalf("the receiver got %d %s events", len(evs), typ)
		}
	}
	if n := len(b.EventsOf(b.OrgID, "transaction.approval_requested")); n != len(pending) {
		t.Fatalf("the sender got %d approval_requested events, want %d", n, len(pending))
	}
	if n, m := len(b.EventsOf(b.OrgID, "transaction.declined")), len(b.EventsOf(b.OrgID, "transaction.expired")); n != 1 || m != 1 {
		t.Fatalf("the sender got %d declined and %d expired events", n, m)
	}
	var got []string
	for _, e := range b.EventsOf(shopOrg, "transaction.completed") {
		got = append(got, data(t, e)["id"].(string))
	}
	if slices.Sort(got); !slices.Equal(got, sortedCopy(paid.ID, toApprove)) {
		t.Fatalf("the receiver's transaction.completed events name %v", got)
	}
}

func sortedCopy(s ...string) []string {
	slices.Sort(s)
	return s
}

// At most APPROVAL_MAX_PENDING transactions wait per sending agent: under 64
// parallel executes over the threshold exactly that many wait and the rest
// are POLICY_DENIED too_many_pending_approvals. The code comes after every
// other one, applies only where the threshold does, counts each agent
// apart, and frees up as transactions are decided.
func TestPendingApprovalsBounded(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	_, shopKey := b.NewOrg("shop")
	shop := b.RegisterAs(shopKey, nil)
	a := b.Register(map[string]any{"spendingLimit": "1000"})
	other := b.Register(map[string]any{"spendingLimit": "1000"})
	for _, x := range []testkit.Agent{a, other} {
		b.SetPolicy(b.Key, x.ID, map[string]any{"approval": map[string]any{"above": "1", "expiresAfterSeconds": 3600}})
	}
	const parallel = 64
	max := policy.DefaultMaxPending
	codes := make([]string, parallel)
	var wg sync.WaitGroup
	for i := range parallel {
		wg.Go(func() {
			r := b.Execute(b.Key, testkit.Pay(a, shop, fmt.Sprintf("%d.50", 2+i)))
			codes[i] = "pending"
			if len(r.Errors) > 0 {
				codes[i] = r.Code() + "/" + r.ReasonCode()
			}
		})
	}
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count["pending"] != max || count["POLICY_DENIED/too_many_pending_approvals"] != parallel-max {
		t.Fatalf("64 parallel executes: %v, want %d pending and the rest too_many_pending_approvals", count, max)
	}
	if _, total := pendingQueue(t, b, b.Key); total != max {
		t.Fatalf("%d pending, want %d", total, max)
	}

	over := testkit.Pay(a, shop, "5")
	r := b.Execute(b.Key, over)
	r.Refused(t, "POLICY_DENIED")
	reason := r.Errors[0].Extensions["reason"].(string)
	if !strings.Contains(reason, fmt.Sprint(max)) || !strings.Contains(reason, "APPROVAL_MAX_PENDING") {
		t.Fatalf("the reason names no bound: %q", reason)
	}
	if e := evaluateApprovalOf(t, b, a, shop, "5"); e.Allowed || e.ReasonCode != "too_many_pending_approvals" {
		t.Fatalf("evaluateTrust over the threshold with a full queue: %+v", e)
	}
	// Every other code comes first; under the threshold nothing waits, so the bound does not apply.
	if r := b.Execute(b.Key, testkit.Pay(a, shop, "2000")); r.ReasonCode() != "amount_exceeds_limit" {
		t.Fatalf("over the spending limit with a full queue: %s", r.Body)
	}
	if tx := b.MustExecute(b.Key, testkit.Pay(a, shop, "1")); tx.Status != "completed" {
		t.Fatalf("under the threshold with a full queue: %s", tx.Status)
	}
	// Another agent of the organization has its own bound.
	if tx := b.MustExecute(b.Key, testkit.Pay(other, shop, "5")); tx.Status != "pending_approval" {
		t.Fatalf("another agent: %s", tx.Status)
	}
	// Deciding one frees a place.
	ids, _ := pendingQueue(t, b, b.Key)
	b.Decline(b.Key, ids[len(ids)-1], "make room").Into(t, "declineTransaction", new(testkit.Transaction))
	if tx := b.MustExecute(b.Key, over); tx.Status != "pending_approval" {
		t.Fatalf("after a decline: %s", tx.Status)
	}
	b.Execute(b.Key, over).Refused(t, "POLICY_DENIED")
	// A refusal is on the sender's audit chain like any other.
	chain := b.AuditChain(a.ID)
	if last := chain[len(chain)-1]; last.Action != "transaction.refused" || last.Details["reason_code"] != "too_many_pending_approvals" {
		t.Fatalf("audit chain ends with %s %s", last.Action, last.Details)
	}
}
