package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
)

// restEdge is an in-memory stand-in for the webhook REST edge, shaped as the
// API's section on it specifies (snake_case bodies, statuses, error bodies).
// It checks the wire format of the Webhooks group; see the report for the
// tests against the real edge.
type restEdge struct {
	mu    sync.Mutex
	hooks map[string]map[string]any
	seen  []string // "METHOD path?query body"
}

func (e *restEdge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, strings.TrimSpace(r.Method+" "+r.URL.RequestURI()+" "+string(body)))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Request-Id", "req_rest")
	fail := func(status int, code, msg, extra string) {
		w.WriteHeader(status)
		_, _ = io.WriteString(w, `{"error":{"code":"`+code+`","message":"`+msg+`"`+extra+`}}`)
	}
	if r.Header.Get("Authorization") != "Bearer key_test" {
		fail(401, "UNAUTHENTICATED", "bad key", "")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	var hook map[string]any
	if len(parts) > 1 {
		if hook = e.hooks[parts[1]]; hook == nil {
			fail(404, "NOT_FOUND", "no such webhook", "")
			return
		}
	}
	write := func(status int, v any) {
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	route := r.Method + " " + parts[0]
	if len(parts) > 1 {
		route += "/{id}"
	}
	if len(parts) > 2 {
		route += "/" + strings.Join(parts[2:], "/")
	}
	switch route {
	case "POST webhooks":
		var in struct {
			URL    string   `json:"url"`
			Events []string `json:"events"`
		}
		_ = json.Unmarshal(body, &in)
		if !strings.HasPrefix(in.URL, "https://") {
			fail(422, "VALIDATION_FAILED", "invalid input", `,"field_errors":[{"field":"url","message":"must be https"}]`)
			return
		}
		h := map[string]any{"id": "wh_1", "url": in.URL, "events": in.Events, "active": true, "org_id": "org_1",
			"consecutive_failures": 0, "created_at": "2026-11-21T19:51:27.123Z"}
		e.hooks["wh_1"] = h
		out := maps(h)
		out["secret"] = "whsec_first"
		write(201, out)
	case "GET webhooks":
		write(200, map[string]any{"data": []any{e.hooks["wh_1"]}})
	case "GET webhooks/{id}":
		write(200, hook)
	case "PATCH webhooks/{id}":
		_ = json.Unmarshal(body, &hook)
		write(200, hook)
	case "DELETE webhooks/{id}":
		delete(e.hooks, parts[1])
		w.WriteHeader(204)
	case "POST webhooks/{id}/test":
		write(200, map[string]any{"status_code": 204, "success": true})
	case "POST webhooks/{id}/secret/rotate":
		out := maps(hook)
		out["secret"] = "whsec_second"
		write(200, out)
	case "GET webhooks/{id}/deliveries":
		if r.URL.Query().Get("after") == "" {
			write(200, map[string]any{"data": []any{
				map[string]any{"id": "dlv_2", "event_id": "evt_2", "event_type": "agent.updated", "attempt": 2, "success": false,
					"status_code": nil, "latency_ms": 10, "error": "connection refused", "response_body": nil, "created_at": "2026-11-21T19:51:28Z"},
			}, "next_cursor": "c1"})
			return
		}
		write(200, map[string]any{"data": []any{
			map[string]any{"id": "dlv_1", "event_id": "evt_1", "event_type": "agent.updated", "attempt": 1, "success": true,
				"status_code": 200, "latency_ms": 7, "error": nil, "response_body": "ok", "created_at": "2026-11-21T19:51:27Z"},
		}, "next_cursor": nil})
	case "POST webhooks/{id}/redeliver":
		write(202, map[string]any{"queued": true})
	default:
		fail(500, "INTERNAL", "unrouted "+route, "")
	}
}

func maps(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestWebhooksWireFormat(t *testing.T) {
	t.Parallel()
	edge := &restEdge{hooks: map[string]map[string]any{}}
	srv := httptest.NewServer(edge)
	defer srv.Close()
	c, err := client.New(client.Options{APIKey: "key_test", BaseURL: srv.URL, NoRetries: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	_, err = c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: "http://insecure", Events: []string{"*"}})
	var ve *client.ValidationError
	if !errors.As(err, &ve) || ve.StatusCode != 422 || len(ve.FieldErrors) != 1 || ve.FieldErrors[0].Field != "url" || ve.RequestID != "req_rest" {
		t.Fatalf("insecure url: %#v", err)
	}
	wh, err := c.Webhooks.Register(ctx, client.RegisterWebhookInput{URL: "https://hooks.example/x", Events: []string{"agent.updated"}})
	if err != nil || wh.ID != "wh_1" || wh.Secret != "whsec_first" || wh.OrgID != "org_1" || !wh.Active ||
		!slices.Equal(wh.Events, []string{"agent.updated"}) || !wh.CreatedAt.Equal(time.Date(2026, 11, 21, 19, 51, 27, 123e6, time.UTC)) {
		t.Fatalf("register: %+v %v", wh, err)
	}
	if list, err := c.Webhooks.List(ctx); err != nil || len(list) != 1 || list[0].ID != "wh_1" || list[0].Secret != "" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if got, err := c.Webhooks.Get(ctx, "wh_1"); err != nil || got.URL != "https://hooks.example/x" {
		t.Fatalf("get: %+v %v", got, err)
	}
	off := false
	if up, err := c.Webhooks.Update(ctx, "wh_1", client.UpdateWebhookInput{Active: &off}); err != nil || up.Active {
		t.Fatalf("update: %+v %v", up, err)
	}
	if res, err := c.Webhooks.Test(ctx, "wh_1"); err != nil || res.StatusCode != 204 || !res.Success {
		t.Fatalf("test: %+v %v", res, err)
	}
	if rot, err := c.Webhooks.RotateSecret(ctx, "wh_1"); err != nil || rot.Secret != "whsec_second" {
		t.Fatalf("rotate: %+v %v", rot, err)
	}
	var dl []client.WebhookDelivery
	for d, err := range c.Webhooks.DeliveriesAll(ctx, "wh_1", client.DeliveriesParams{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		dl = append(dl, d)
	}
	if len(dl) != 2 || dl[0].ID != "dlv_2" || dl[0].StatusCode != nil || dl[0].Error != "connection refused" ||
		dl[1].StatusCode == nil || *dl[1].StatusCode != 200 || dl[1].ResponseBody != "ok" || dl[1].Attempt != 1 {
		t.Fatalf("deliveries: %+v", dl)
	}
	if err := c.Webhooks.Redeliver(ctx, "wh_1", "evt_1"); err != nil {
		t.Fatal(err)
	}
	if err := c.Webhooks.Delete(ctx, "wh_1"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Webhooks.Get(ctx, "wh_1"); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("after delete: %v", err)
	}

	want := []string{
		`POST /webhooks {"url":"http://insecure","events":["*"]}`,
		`POST /webhooks {"url":"https://hooks.example/x","events":["agent.updated"]}`,
		`GET /webhooks`,
		`GET /webhooks/wh_1`,
		`PATCH /webhooks/wh_1 {"active":false}`,
		`POST /webhooks/wh_1/test`,
		`POST /webhooks/wh_1/secret/rotate`,
		`GET /webhooks/wh_1/deliveries?limit=1`,
		`GET /webhooks/wh_1/deliveries?after=c1&limit=1`,
		`POST /webhooks/wh_1/redeliver {"event_id":"evt_1"}`,
		`DELETE /webhooks/wh_1`,
		`GET /webhooks/wh_1`,
	}
	edge.mu.Lock()
	defer edge.mu.Unlock()
	if !slices.Equal(edge.seen, want) {
		t.Fatalf("requests:\n%s\nwant:\n%s", strings.Join(edge.seen, "\n"), strings.Join(want, "\n"))
	}
}
