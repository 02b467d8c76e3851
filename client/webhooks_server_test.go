package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook/delivery"
)

// TestWebhooksRealServer drives every operation of the Webhooks group
// through the real REST edge, with a local HTTPS receiver, and verifies the
// deliveries it gets with VerifyWebhook.
func TestWebhooksRealServer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := webhooktest.NewEnv(t, webhooktest.Options{})
	ts := httptest.NewServer(env.Handler)
	t.Cleanup(ts.Close)
	c, err := client.New(client.Options{APIKey: env.Key, BaseURL: ts.URL, RetryWaitMin: time.Millisecond, RetryWaitMax: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rcv := webhooktest.New(t)
	verified := func(q webhooktest.Request, secret string) *client.Event {
		t.Helper()
		ev, err := client.VerifyWebhook(secret, q.Header, q.Body)
		if err != nil {
			t.Fatalf("verify %s: %v", q.Body, err)
		}
		if ev.ID != q.Header.Get("webhook-id") || ev.Type != q.Message.Type || ev.CreatedAt.IsZero() {
			t.Fatalf("event %+v from %s", ev, q.Body)
		}
		return ev
	}

	_, err = c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: "http://example.com/hook", Events: []string{"*"}})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || ve.StatusCode != 422 || !slices.ContainsFunc(ve.FieldErrors, func(f client.FieldError) bool { return f.Field == "url" }) || ve.RequestID == "" {
		t.Fatalf("plain http url: %#v", err)
	}

	wh, err := c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: rcv.URL(), Events: []string{"agent.registered"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(wh.ID, "wh_") || !strings.HasPrefix(wh.Secret, "whsec_") || wh.OrgID != env.OrgID || !wh.Active ||
		wh.URL != rcv.URL() || !slices.Equal(wh.Events, []string{"agent.registered"}) || wh.CreatedAt.IsZero() {
		t.Fatalf("registered: %+v", wh)
	}
	// The verification request was signed with the new secret.
	if ev := verified(rcv.Wait(t, 1, 5*time.Second, "webhook.verification")[0], wh.Secret); ev.Type != "webhook.verification" {
		t.Fatalf("verification event %+v", ev)
	}

	list, err := c.Webhooks.List(ctx)
	if err != nil || len(list) != 1 || list[0].ID != wh.ID || list[0].Secret != "" {
		t.Fatalf("list: %+v %v", list, err)
	}
	got, err := c.Webhooks.Get(ctx, wh.ID)
	if err != nil || got.ID != wh.ID || got.Secret != "" || !got.CreatedAt.Equal(wh.CreatedAt) {
		t.Fatalf("get: %+v %v", got, err)
	}
	off := false
	up, err := c.Webhooks.Update(ctx, wh.ID, client.UpdateWebhookInput{Active: &off, Events: []string{"agent.registered", "agent.suspended"}})
	if err != nil || up.Active || !slices.Equal(up.Events, []string{"agent.registered", "agent.suspended"}) || up.URL != wh.URL {
		t.Fatalf("update: %+v %v", up, err)
	}
	on := true
	if up, err = c.Webhooks.Update(ctx, wh.ID, client.UpdateWebhookInput{Active: &on}); err != nil || !up.Active {
		t.Fatalf("reactivate: %+v %v", up, err)
	}

	res, err := c.Webhooks.Test(ctx, wh.ID)
	if err != nil || !res.Success || res.StatusCode != 204 {
		t.Fatalf("test: %+v %v", res, err)
	}
	verified(rcv.Wait(t, 1, 5*time.Second, "webhook.test")[0], wh.Secret)

	// A real event, delivered by the runner.
	env.Start(delivery.Config{})
	agent, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: "hooked", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("10"), Currency: "USD", Environment: client.Sandbox})
	if err != nil {
		t.Fatal(err)
	}
	first := verified(rcv.Wait(t, 1, 10*time.Second, "agent.registered")[0], wh.Secret)
	if !strings.Contains(string(first.Data), agent.ID) {
		t.Fatalf("agent.registered data %s", first.Data)
	}

	if err := c.Webhooks.Redeliver(ctx, wh.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	again := rcv.Wait(t, 2, 10*time.Second, "agent.registered")
	if again[1].Header.Get("webhook-id") != first.ID {
		t.Fatalf("redelivery of %s has webhook-id %s", first.ID, again[1].Header.Get("webhook-id"))
	}

	// The attempt is recorded once the receiver has answered: poll for it.
	var deliveries []client.WebhookDelivery
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		deliveries = deliveries[:0]
		for d, err := range c.Webhooks.DeliveriesAll(ctx, wh.ID, client.DeliveriesParams{Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			deliveries = append(deliveries, d)
		}
		if len(deliveries) >= 2 || time.Now().After(deadline) {
			break
		}
	}
	var ofFirst int
	for _, d := range deliveries {
		if d.EventID == first.ID {
			ofFirst++
			if !d.Success || d.StatusCode == nil || *d.StatusCode != 204 || !strings.HasPrefix(d.ID, "dlv_") || d.EventType != "agent.registered" {
				t.Fatalf("delivery %+v", d)
			}
		}
	}
	if ofFirst != 2 || len(deliveries) != 2 || !deliveries[0].CreatedAt.After(deliveries[1].CreatedAt) {
		t.Fatalf("%d deliveries of %s in %+v, want 2, newest first", ofFirst, first.ID, deliveries)
	}
	page, err := c.Webhooks.Deliveries(ctx, wh.ID, client.DeliveriesParams{Limit: 1})
	if err != nil || len(page.Deliveries) != 1 || page.NextCursor == "" || page.Deliveries[0].ID != deliveries[0].ID {
		t.Fatalf("first page: %+v %v", page, err)
	}

	// After a rotation, deliveries carry both signatures: either secret verifies.
	rot, err := c.Webhooks.RotateSecret(ctx, wh.ID)
	if err != nil || rot.Secret == "" || rot.Secret == wh.Secret {
		t.Fatalf("rotate: %+v %v", rot, err)
	}
	if _, err := c.Agents.Register(ctx, client.RegisterAgentInput{Name: "after-rotation", AuthorizedActions: []string{"purchase"},
		SpendingLimit: dec("10"), Currency: "USD", Environment: client.Sandbox}); err != nil {
		t.Fatal(err)
	}
	last := rcv.Wait(t, 3, 10*time.Second, "agent.registered")[2]
	verified(last, rot.Secret)
	verified(last, wh.Secret)

	other, err := client.New(client.Options{APIKey: env.NewKey(), BaseURL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Webhooks.Get(ctx, wh.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("another organization's webhook: %v", err)
	}
	if err := c.Webhooks.Delete(ctx, wh.ID); err != nil {
		t.Fatal(err)
	}
	var nf *client.NotFoundError
	if _, err := c.Webhooks.Get(ctx, wh.ID); !errors.As(err, &nf) || nf.StatusCode != 404 {
		t.Fatalf("after delete: %v", err)
	}
	if err := c.Webhooks.Delete(ctx, wh.ID); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
}
