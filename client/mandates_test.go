package client_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/wire"
)

func TestMandates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	a, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "buyer", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("100"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	shop, err := b.c.Agents.Register(b.ctx, client.RegisterAgentInput{Name: "shop", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("1"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	perTx := dec("40")
	m, err := b.c.Mandates.Create(b.ctx, client.CreateMandateInput{AgentID: a.ID, Description: "office chairs",
		Actions: []string{"purchase"}, Budget: dec("50"), MaxPerTransaction: &perTx, ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil || m.Status != client.MandateActive || !m.Remaining.Equal(dec("50")) || m.MaxPerTransaction == nil {
		t.Fatalf("create: %+v %v", m, err)
	}
	_, err = b.c.Mandates.Create(b.ctx, client.CreateMandateInput{AgentID: a.ID, Description: "x", Actions: []string{"purchase"},
		Budget: dec("0.001"), ExpiresAt: time.Now().Add(time.Hour)})
	var invalid *client.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("invalid budget: %v", err)
	}
	yes := true
	if p, err := b.c.Agents.SetPolicy(b.ctx, a.ID, client.SpendPolicyInput{RequireMandate: &yes}, nil); err != nil || !p.RequireMandate {
		t.Fatalf("requireMandate: %+v %v", p, err)
	}
	ev, err := b.c.Trust.Evaluate(b.ctx, client.EvaluateInput{AgentID: a.ID, Action: "purchase", Amount: dec("41"), Currency: "USD", MandateID: m.ID})
	if err != nil || ev.ReasonCode != client.ReasonMandateAmountExceeded {
		t.Fatalf("evaluate: %+v %v", ev, err)
	}
	tx, err := b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase",
		Amount: dec("40"), Currency: "USD", MandateID: m.ID})
	if err != nil || tx.MandateID != m.ID {
		t.Fatalf("execute: %+v %v", tx, err)
	}
	_, err = b.c.Transactions.Execute(b.ctx, client.ExecuteInput{FromAgent: a.ID, ToAgent: shop.ID, Action: "purchase",
		Amount: dec("1"), Currency: "USD"})
	var denied *client.PolicyDeniedError
	if !errors.As(err, &denied) || denied.ReasonCode != client.ReasonMandateRequired {
		t.Fatalf("execute without a mandate: %v", err)
	}
	got, err := b.c.Mandates.Get(b.ctx, m.ID)
	if err != nil || !got.Spent.Equal(dec("40")) || got.Uses != 1 || !got.Remaining.Equal(dec("10")) {
		t.Fatalf("get: %+v %v", got, err)
	}
	for range 2 { // idempotent
		if got, err = b.c.Mandates.Revoke(b.ctx, m.ID, ""); err != nil || got.Status != client.MandateRevoked || got.RevokedAt == nil {
			t.Fatalf("revoke: %+v %v", got, err)
		}
	}
	var n int
	for m, err := range b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{AgentID: a.ID, Status: client.MandateRevoked, Limit: 1}) {
		if err != nil || m.ID != got.ID {
			t.Fatalf("list: %+v %v", m, err)
		}
		n++
	}
	var notFound *client.NotFoundError
	if _, err := b.c.Mandates.Get(b.ctx, "mdt_none"); n != 1 || !errors.As(err, &notFound) {
		t.Fatalf("listed %d; unknown mandate: %v", n, err)
	}
}

// TestMandateEventsReachSubscriptions: mandate.created and mandate.revoked
// stream to a subscription of the real service asking for them.
func TestMandateEventsReachSubscriptions(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx, srv := runService(t, wire.Options{DB: d})
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	_, _, key, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(client.Options{APIKey: key, BaseURL: ts.URL, RetryWaitMin: 10 * time.Millisecond, RetryWaitMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Events.Subscribe(ctx, client.SubscribeOptions{Types: []string{"agent.registered", "mandate.created", "mandate.revoked"}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	next := func() client.Event {
		t.Helper()
		select {
		case ev, ok := <-st.Events():
			if !ok {
				t.Fatalf("stream ended: %v", st.Err())
			}
			return ev
		case <-time.After(15 * time.Second):
			t.Fatal("no event within 15 s")
		}
		return client.Event{}
	}
	// The subscription starts live: register until its first event arrives.
	var a *client.Agent
	for registered := false; !registered; {
		if a, err = c.Agents.Register(ctx, client.RegisterAgentInput{Name: "a", AuthorizedActions: []string{"purchase"},
			SpendingLimit: dec("10"), Currency: "USD", Environment: client.Sandbox}); err != nil {
			t.Fatal(err)
		}
		select {
		case ev := <-st.Events():
			registered = ev.Type == "agent.registered"
		case <-time.After(200 * time.Millisecond):
		}
	}
	for len(st.Events()) > 0 { // registrations that raced the first
		next()
	}
	m, err := c.Mandates.Create(ctx, client.CreateMandateInput{AgentID: a.ID, Description: "streamed", Actions: []string{"purchase"},
		Budget: dec("5"), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Mandates.Revoke(ctx, m.ID, "done"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"mandate.created", "mandate.revoked"} {
		ev := next()
		for ev.Type == "agent.registered" {
			ev = next()
		}
		if ev.Type != want || !strings.Contains(string(ev.Data), `"id":"`+m.ID+`"`) {
			t.Fatalf("event %s %s, want %s of %s", ev.Type, ev.Data, want, m.ID)
		}
	}
}
