package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/internal/webhooktest"
	"github.com/agenttrust/service/webhook"
)

// keys returns the sorted keys of a JSON object.
func keys(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type restErr struct {
	Error struct {
		Code        string `json:"code"`
		Message     string `json:"message"`
		FieldErrors []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"field_errors"`
	} `json:"error"`
}

// refusedREST fails unless r is status with the REST error body of code,
// naming field when field is not "".
func refusedREST(t *testing.T, r *webhooktest.Response, status int, code, field string) restErr {
	t.Helper()
	var e restErr
	r.JSON(t, &e)
	if r.Status != status || e.Error.Code != code || e.Error.Message == "" {
		t.Fatalf("want %d %s, got %d %s", status, code, r.Status, r.Body)
	}
	if field != "" && (len(e.Error.FieldErrors) == 0 || e.Error.FieldErrors[0].Field != field) {
		t.Fatalf("want a field error on %q, got %s", field, r.Body)
	}
	return e
}

var webhookKeys = []string{"active", "consecutive_failures", "created_at", "events", "id", "org_id", "url"}

func TestWebhookRESTLifecycle(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)

	r := e.Do(e.Key, http.MethodPost, "/webhooks", map[string]any{"url": rcv.URL(), "events": []string{event.AgentRegistered}})
	if r.Status != http.StatusCreated {
		t.Fatalf("register: %d %s", r.Status, r.Body)
	}
	if got, want := keys(t, r.Body), append(append([]string{}, webhookKeys...), "secret"); !reflect.DeepEqual(got, append(want[:6:6], "secret", "url")) {
		t.Fatalf("register answered keys %v", got)
	}
	var w struct {
		ID, OrgID, URL, Secret, CreatedAt string
		Events                            []string
		Active                            bool
		ConsecutiveFailures               int `json:"consecutive_failures"`
	}
	r.JSON(t, &w)
	var wire map[string]any
	r.JSON(t, &wire)
	if !strings.HasPrefix(w.ID, "wh_") || wire["org_id"] != e.OrgID || w.URL != rcv.URL() || !w.Active || w.ConsecutiveFailures != 0 ||
		!reflect.DeepEqual(w.Events, []string{event.AgentRegistered}) || !strings.HasPrefix(w.Secret, "whsec_") {
		t.Fatalf("register answered %s", r.Body)
	}
	if _, err := time.Parse(event.TimeFormat, wire["created_at"].(string)); err != nil {
		t.Fatalf("created_at %v: %v", wire["created_at"], err)
	}
	ver := rcv.Requests(webhook.TypeVerification)
	if len(ver) != 1 {
		t.Fatalf("%d verification requests, want 1", len(ver))
	}
	webhooktest.Verify(t, ver[0], w.Secret)

	for _, path := range []string{"/webhooks/" + w.ID} {
		r := e.Do(e.Key, http.MethodGet, path, nil)
		if r.Status != http.StatusOK || !reflect.DeepEqual(keys(t, r.Body), webhookKeys) {
			t.Fatalf("get: %d %s (the secret must not be shown)", r.Status, r.Body)
		}
	}
	r = e.Do(e.Key, http.MethodGet, "/webhooks", nil)
	var list struct{ Data []json.RawMessage }
	r.JSON(t, &list)
	if r.Status != http.StatusOK || len(list.Data) != 1 || !reflect.DeepEqual(keys(t, list.Data[0]), webhookKeys) {
		t.Fatalf("list: %d %s", r.Status, r.Body)
	}

	r = e.Do(e.Key, http.MethodPatch, "/webhooks/"+w.ID, map[string]any{"events": []string{"*"}, "active": false})
	var upd struct {
		Events []string
		Active bool
	}
	r.JSON(t, &upd)
	if r.Status != http.StatusOK || upd.Active || !reflect.DeepEqual(upd.Events, []string{"*"}) {
		t.Fatalf("update: %d %s", r.Status, r.Body)
	}

	r = e.Do(e.Key, http.MethodPost, "/webhooks/"+w.ID+"/test", nil)
	if r.Status != http.StatusOK || string(r.Body) != `{"status_code":204,"success":true}`+"\n" {
		t.Fatalf("test: %d %s", r.Status, r.Body)
	}
	tests := rcv.Requests(webhook.TypeTest)
	if len(tests) != 1 {
		t.Fatalf("%d webhook.test requests", len(tests))
	}
	webhooktest.Verify(t, tests[0], w.Secret)

	r = e.Do(e.Key, http.MethodPost, "/webhooks/"+w.ID+"/secret/rotate", nil)
	var rot struct{ Secret string }
	r.JSON(t, &rot)
	if r.Status != http.StatusOK || !strings.HasPrefix(rot.Secret, "whsec_") || rot.Secret == w.Secret || len(keys(t, r.Body)) != 8 {
		t.Fatalf("rotate: %d %s", r.Status, r.Body)
	}

	agentID := e.RegisterAgent("a1")
	var evID string
	deadline := time.Now().Add(10 * time.Second)
	for evID == "" && time.Now().Before(deadline) {
		evs, _ := e.DB.ReadOrgEvents(t.Context(), e.OrgID, event.Position{}, 10)
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), agentID) {
				evID = ev.ID
			}
		}
	}
	r = e.Do(e.Key, http.MethodPost, "/webhooks/"+w.ID+"/redeliver", map[string]any{"event_id": evID})
	if r.Status != http.StatusAccepted || string(r.Body) != `{"queued":true}`+"\n" {
		t.Fatalf("redeliver: %d %s", r.Status, r.Body)
	}
	refusedREST(t, e.Do(e.Key, http.MethodPost, "/webhooks/"+w.ID+"/redeliver", map[string]any{"event_id": "evt_nope"}), 404, "NOT_FOUND", "")
	refusedREST(t, e.Do(e.Key, http.MethodPost, "/webhooks/"+w.ID+"/redeliver", map[string]any{}), 422, "VALIDATION_FAILED", "event_id")

	r = e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID+"/deliveries", nil)
	if r.Status != http.StatusOK || string(r.Body) != `{"data":[],"next_cursor":null}`+"\n" {
		t.Fatalf("deliveries: %d %s", r.Status, r.Body)
	}
	refusedREST(t, e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID+"/deliveries?limit=0", nil), 422, "VALIDATION_FAILED", "limit")
	refusedREST(t, e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID+"/deliveries?limit=x", nil), 422, "VALIDATION_FAILED", "limit")
	refusedREST(t, e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID+"/deliveries?after=bogus", nil), 422, "VALIDATION_FAILED", "after")

	other := e.NewKey()
	refusedREST(t, e.Do(other, http.MethodGet, "/webhooks/"+w.ID, nil), 404, "NOT_FOUND", "")
	refusedREST(t, e.Do(other, http.MethodDelete, "/webhooks/"+w.ID, nil), 404, "NOT_FOUND", "")
	refusedREST(t, e.Do(other, http.MethodPost, "/webhooks/"+w.ID+"/secret/rotate", nil), 404, "NOT_FOUND", "")

	r = e.Do(e.Key, http.MethodDelete, "/webhooks/"+w.ID, nil)
	if r.Status != http.StatusNoContent || len(r.Body) != 0 {
		t.Fatalf("delete: %d %q", r.Status, r.Body)
	}
	refusedREST(t, e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID, nil), 404, "NOT_FOUND", "")
}

func TestWebhookRESTRefusals(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	post := func(body any) *webhooktest.Response { return e.Do(e.Key, http.MethodPost, "/webhooks", body) }

	refusedREST(t, e.Do("", http.MethodGet, "/webhooks", nil), 401, "UNAUTHENTICATED", "")
	refusedREST(t, e.Do("att_bogus", http.MethodPost, "/webhooks", map[string]any{}), 401, "UNAUTHENTICATED", "")
	refusedREST(t, post(`{"url":`), 400, "VALIDATION_FAILED", "body")
	refusedREST(t, post(`{"url":"https://x.example","events":["*"],"extra":1}`), 400, "VALIDATION_FAILED", "body")
	refusedREST(t, post(map[string]any{"url": "http://example.com/hook", "events": []string{"*"}}), 422, "VALIDATION_FAILED", "url")
	refusedREST(t, post(map[string]any{"url": "https://example.com/" + strings.Repeat("a", 2048), "events": []string{"*"}}), 422, "VALIDATION_FAILED", "url")
	refusedREST(t, post(map[string]any{"url": rcv.URL(), "events": []string{}}), 422, "VALIDATION_FAILED", "events")
	refusedREST(t, post(map[string]any{"url": rcv.URL(), "events": []string{"agent.exploded"}}), 422, "VALIDATION_FAILED", "events[0]")
	refusedREST(t, post(map[string]any{"url": rcv.URL(), "events": []string{"*", event.AgentRegistered}}), 422, "VALIDATION_FAILED", "events[0]")

	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 500} })
	er := refusedREST(t, post(map[string]any{"url": rcv.URL(), "events": []string{"*"}}), 422, "VALIDATION_FAILED", "url")
	if !strings.Contains(er.Error.FieldErrors[0].Message, "500") {
		t.Fatalf("refusal does not say what the endpoint answered: %s", er.Error.Message)
	}
	rcv.Answer(func(webhooktest.Request) webhooktest.Answer {
		return webhooktest.Answer{Status: 302, Header: map[string]string{"Location": "https://169.254.169.254/latest"}}
	})
	er = refusedREST(t, post(map[string]any{"url": rcv.URL(), "events": []string{"*"}}), 422, "VALIDATION_FAILED", "url")
	if !strings.Contains(er.Error.FieldErrors[0].Message, "302") || len(rcv.Requests()) != 2 {
		t.Fatalf("a redirect was followed or not reported: %s", er.Error.Message)
	}
	if r := e.Do(e.Key, http.MethodGet, "/webhooks", nil); string(r.Body) != `{"data":[]}`+"\n" {
		t.Fatalf("a refused endpoint was stored: %s", r.Body)
	}

	rcv.Answer(func(webhooktest.Request) webhooktest.Answer { return webhooktest.Answer{Status: 200} })
	id, _ := e.Register(rcv.URL(), "*")
	refusedREST(t, e.Do(e.Key, http.MethodPatch, "/webhooks/"+id, map[string]any{"url": "ftp://x"}), 422, "VALIDATION_FAILED", "url")
	rcv.Server.Close()
	r := e.Do(e.Key, http.MethodPost, "/webhooks/"+id+"/test", nil)
	if r.Status != http.StatusOK || string(r.Body) != `{"status_code":0,"success":false}`+"\n" {
		t.Fatalf("test of an unreachable endpoint: %d %s", r.Status, r.Body)
	}
	var w struct {
		ConsecutiveFailures int `json:"consecutive_failures"`
	}
	e.Do(e.Key, http.MethodGet, "/webhooks/"+id, nil).JSON(t, &w)
	if w.ConsecutiveFailures != 0 {
		t.Fatalf("a test changed consecutive_failures to %d", w.ConsecutiveFailures)
	}
}

func TestWebhookRegistrationRefusesPrivateAddresses(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{Strict: true})
	rcv := webhooktest.New(t)
	port := rcv.Server.URL[strings.LastIndex(rcv.Server.URL, ":"):]
	for _, url := range []string{
		rcv.URL(),                        // 127.0.0.1
		"https://localhost" + port + "/", // a name that resolves to loopback
		"https://[::1]" + port + "/",
		"https://[::ffff:127.0.0.1]" + port + "/",
		"https://10.1.2.3/", "https://192.168.1.1/", "https://169.254.169.254/", "https://100.64.0.1/",
	} {
		r := e.Do(e.Key, http.MethodPost, "/webhooks", map[string]any{"url": url, "events": []string{"*"}})
		er := refusedREST(t, r, 422, "VALIDATION_FAILED", "url")
		if !strings.Contains(er.Error.Message, "not allowed") {
			t.Fatalf("%s refused for the wrong reason: %s", url, er.Error.Message)
		}
	}
	if n := len(rcv.Requests()); n != 0 {
		t.Fatalf("the private receiver got %d requests", n)
	}
}

func TestWebhookGraphQLUsesTheSameService(t *testing.T) {
	t.Parallel()
	e := webhooktest.NewEnv(t, webhooktest.Options{})
	rcv := webhooktest.New(t)
	data := e.GraphQL(`mutation($in: RegisterWebhookInput!) { registerWebhook(input: $in) { id orgId url events active consecutiveFailures secret createdAt } }`,
		map[string]any{"in": map[string]any{"url": rcv.URL(), "events": []string{"*"}}})
	var w struct {
		ID, OrgID, Secret string
		Active            bool
	}
	_ = json.Unmarshal(data["registerWebhook"], &w)
	if !strings.HasPrefix(w.Secret, "whsec_") || w.OrgID != e.OrgID || !w.Active {
		t.Fatalf("registerWebhook answered %s", data["registerWebhook"])
	}
	data = e.GraphQL(`query($id: ID!) { webhooks { id secret } webhook(id: $id) { secret deliveries(limit: 5) { nodes { id } pageInfo { hasNextPage endCursor } } } }`, map[string]any{"id": w.ID})
	if string(data["webhooks"]) != `[{"id":"`+w.ID+`","secret":null}]` || string(data["webhook"]) != `{"secret":null,"deliveries":{"nodes":[],"pageInfo":{"hasNextPage":false,"endCursor":null}}}` {
		t.Fatalf("queries answered %s %s", data["webhooks"], data["webhook"])
	}
	data = e.GraphQL(`mutation($id: ID!) { testWebhook(id: $id) { statusCode success } rotateWebhookSecret(id: $id) { secret } }`, map[string]any{"id": w.ID})
	if string(data["testWebhook"]) != `{"statusCode":204,"success":true}` || strings.Contains(string(data["rotateWebhookSecret"]), w.Secret) {
		t.Fatalf("mutations answered %s %s", data["testWebhook"], data["rotateWebhookSecret"])
	}
	data = e.GraphQL(`mutation($id: ID!) { updateWebhook(id: $id, input: {active: false}) { active } deleteWebhook(id: $id) }`, map[string]any{"id": w.ID})
	if string(data["updateWebhook"]) != `{"active":false}` || string(data["deleteWebhook"]) != `true` {
		t.Fatalf("update/delete answered %s %s", data["updateWebhook"], data["deleteWebhook"])
	}
	if r := e.Do(e.Key, http.MethodGet, "/webhooks/"+w.ID, nil); r.Status != http.StatusNotFound {
		t.Fatalf("deleted through GraphQL, REST still finds it: %d", r.Status)
	}
}
