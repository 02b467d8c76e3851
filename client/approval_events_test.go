package client_test

import (
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/wire"
)

// The approval events reach a subscription filtered to them, from a real
// server whose own sweep expires the transaction left undecided.
func TestSubscribeApprovalEvents(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	var skew atomic.Int64
	d.Now = func() time.Time { return time.Now().Add(time.Duration(skew.Load())) }
	ctx, srv := runService(t, wire.Options{DB: d, ExpirySweep: 10 * time.Millisecond})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	orgID, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Options{APIKey: key, BaseURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	reg := func(name string) string {
		a, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: name, AuthorizedActions: []string{"purchase"},
			SpendingLimit: dec("1000"), Currency: "USD", Environment: client.Sandbox})
		if err != nil {
			t.Fatal(err)
		}
		return a.ID
	}
	buyer, shop := reg("buyer"), reg("shop")
	if _, err := c.Agents.SetPolicy(ctx, buyer, client.SpendPolicyInput{Approval: &client.ApprovalRule{Above: dec("100"), ExpiresAfterSeconds: 60}}, nil); err != nil {
		t.Fatal(err)
	}
	evs, err := d.Events(ctx, orgID, 0, 100)
	if err != nil || len(evs) == 0 {
		t.Fatalf("events so far: %v %v", evs, err)
	}
	st, err := c.Events.Subscribe(ctx, client.SubscribeOptions{After: evs[len(evs)-1].ID,
		Types: []string{"transaction.approval_requested", "transaction.declined", "transaction.expired"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	pay := func() *client.Transaction {
		tx, err := c.Transactions.Execute(ctx, client.ExecuteInput{FromAgent: buyer, ToAgent: shop, Action: "purchase", Amount: dec("150"), Currency: "USD"})
		if err != nil || tx.Status != client.TransactionPendingApproval {
			t.Fatalf("pay 150: %+v %v", tx, err)
		}
		return tx
	}
	declined, expiring := pay(), pay()
	if _, err := c.Transactions.Decline(ctx, declined.ID, "not now"); err != nil {
		t.Fatal(err)
	}
	skew.Store(int64(time.Minute)) // expiring's expiresAt has passed: the server's sweep expires it
	want := []struct{ typ, id string }{
		{"transaction.approval_requested", declined.ID}, {"transaction.approval_requested", expiring.ID},
		{"transaction.declined", declined.ID}, {"transaction.expired", expiring.ID},
	}
	for _, w := range want {
		select {
		case ev, ok := <-st.Events():
			if !ok {
				t.Fatalf("stream ended: %v", st.Err())
			}
			if ev.Type != w.typ || !jsonHas(ev.Data, w.id) {
				t.Fatalf("event %s %s, want %s of %s", ev.Type, ev.Data, w.typ, w.id)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("no %s event", w.typ)
		}
	}
	if got, err := c.Transactions.Get(ctx, expiring.ID); err != nil || got.Status != client.TransactionExpired {
		t.Fatalf("expiring: %+v %v", got, err)
	}
}

// jsonHas reports whether an event's data holds the string value s.
func jsonHas(data []byte, s string) bool {
	return strings.Contains(string(data), `"`+s+`"`)
}
