package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/internal/testkit"
)

// createApiKey shows the secret once; the key works with its role and
// agents at once; apiKeys and whoami describe it; its agents must be the
// organization's and are given exactly for an agent key.
func TestCreateAPIKey(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a := k.Register(nil)
	_, otherKey := k.NewOrg("other")
	x := k.RegisterAs(otherKey, nil)

	var created testkit.CreatedAPIKey
	k.CreateKey(k.Key, "buyer bot", "agent", a.ID).Into(t, "createApiKey", &created)
	if !strings.HasPrefix(created.Secret, auth.KeyPrefix) || created.Key.Role != "agent" || created.Key.Name != "buyer bot" ||
		!slices.Equal(created.Key.AgentIDs, []string{a.ID}) || !strings.HasPrefix(created.Key.ID, "key_") || created.Key.RevokedAt != nil {
		t.Fatalf("created %+v", created)
	}
	var me testkit.APIKey
	k.Do(created.Secret, testkit.WhoamiQuery, nil).Into(t, "whoami", &me)
	if me.ID != created.Key.ID || me.Role != "agent" || me.LastUsedAt == nil {
		t.Fatalf("whoami %+v", me)
	}
	var keys []testkit.APIKey
	k.Do(k.Key, testkit.APIKeysQuery, nil).Into(t, "apiKeys", &keys)
	if len(keys) != 2 || keys[0].ID != created.Key.ID || keys[1].ID != k.KeyID || keys[1].Role != "admin" || len(keys[1].AgentIDs) != 0 {
		t.Fatalf("apiKeys %+v", keys)
	}
	if strings.Contains(k.Do(k.Key, testkit.APIKeysQuery, nil).Body, created.Secret) {
		t.Fatal("apiKeys shows a secret")
	}

	for _, c := range []struct {
		role   string
		agents []string
		field  string
	}{
		{"agent", nil, "input.agentIds"},
		{"agent", []string{x.ID}, "input.agentIds"},
		{"agent", []string{"agent_none"}, "input.agentIds"},
		{"readonly", []string{a.ID}, "input.agentIds"},
		{"admin", []string{a.ID}, "input.agentIds"},
	} {
		before := k.Snapshot()
		if got := k.CreateKey(k.Key, "bad", c.role, c.agents...).Fields(t); !slices.Equal(got, []string{c.field}) {
			t.Errorf("%s %v: fields %v", c.role, c.agents, got)
		}
		if d := diffSnapshots(before, k.Snapshot()); len(d) > 0 {
			t.Errorf("%s %v refused but changed %v", c.role, c.agents, d)
		}
	}
	r := k.Do(k.Key, `mutation { createApiKey(input: {name: "x", role: owner}) { secret } }`, nil)
	if r.Code() != "GRAPHQL_VALIDATION_FAILED" {
		t.Fatalf("unknown role: %s", r.Body)
	}
}

// revokeApiKey is admin only, idempotent, and a key may revoke itself; the
// revoked key is refused from the next request on. node(id:) answers a key
// to an admin key only.
func TestRevokeAPIKey(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	readonlyID, readonly := k.IssueKey(auth.RoleReadonly)

	k.Do(readonly, testkit.RevokeAPIKeyMutation, vars("id", readonlyID)).Refused(t, "FORBIDDEN")
	var node struct{ ID, Role string }
	k.Do(k.Key, `query($id: ID!) { node(id: $id) { id ... on ApiKey { role } } }`, vars("id", readonlyID)).Into(t, "node", &node)
	if node.ID != readonlyID || node.Role != "readonly" {
		t.Fatalf("node %+v", node)
	}
	k.Do(readonly, `query($id: ID!) { node(id: $id) { id } }`, vars("id", readonlyID)).Refused(t, "NOT_FOUND")

	var first, again testkit.APIKey
	k.Do(k.Key, testkit.RevokeAPIKeyMutation, vars("id", readonlyID)).Into(t, "revokeApiKey", &first)
	k.Do(k.Key, testkit.RevokeAPIKeyMutation, vars("id", readonlyID)).Into(t, "revokeApiKey", &again)
	if first.RevokedAt == nil || again.RevokedAt == nil || *first.RevokedAt != *again.RevokedAt {
		t.Fatalf("revoked %+v, again %+v", first, again)
	}
	k.Do(readonly, testkit.WhoamiQuery, nil).Refused(t, "UNAUTHENTICATED")

	k.Do(k.Key, testkit.RevokeAPIKeyMutation, vars("id", "key_none")).Refused(t, "NOT_FOUND")

	var self testkit.APIKey
	k.Do(k.Key, testkit.RevokeAPIKeyMutation, vars("id", k.KeyID)).Into(t, "revokeApiKey", &self)
	if self.ID != k.KeyID || self.RevokedAt == nil {
		t.Fatalf("self-revocation %+v", self)
	}
	k.Do(k.Key, testkit.WhoamiQuery, nil).Refused(t, "UNAUTHENTICATED")
}

// Another organization's key is NOT_FOUND to revokeApiKey and node.
func TestRevokeAPIKeyTenancy(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	other := k.NewOrgWithKey("other")
	k.Do(k.Key, testkit.RevokeAPIKeyMutation, vars("id", other.KeyID)).Refused(t, "NOT_FOUND")
	k.Do(k.Key, `query($id: ID!) { node(id: $id) { id } }`, vars("id", other.KeyID)).Refused(t, "NOT_FOUND")
	k.Do(other.Key, testkit.WhoamiQuery, nil).Into(t, "whoami", new(testkit.APIKey))
}

// An agent key whose agent is suspended still reads, and its payments are
// refused by the policy (agent_suspended).
func TestAgentKeyOfSuspendedAgent(t *testing.T) {
	t.Parallel()
	k := testkit.New(t)
	a, b := k.Register(nil), k.Register(nil)
	_, key := k.IssueKey(auth.RoleAgent, a.ID)
	k.MustExecute(key, testkit.Pay(a, b, "1"))
	k.SuspendAgent(a.ID, "review")

	var got testkit.Agent
	k.Do(key, `query($id: ID!) { agent(id: $id) { id status } }`, vars("id", a.ID)).Into(t, "agent", &got)
	if got.Status != "suspended" {
		t.Fatalf("agent %+v", got)
	}
	r := k.Execute(key, testkit.Pay(a, b, "1"))
	r.Refused(t, "POLICY_DENIED")
	if r.Errors[0].Extensions["reasonCode"] != "agent_suspended" {
		t.Fatalf("refusal %s", r.Body)
	}
	k.Do(key, `mutation($id: ID!) { reinstateAgent(id: $id) { id } }`, vars("id", a.ID)).Refused(t, "FORBIDDEN")
}

// Revoking a key through revokeApiKey ends its open websocket and SSE
// streams, on this process and another; a refused operation over a
// websocket is FORBIDDEN too.
func TestRevokeAPIKeyEndsStreams(t *testing.T) {
	t.Parallel()
	b := setupLive(t)
	_, otherProcess := b.process()
	agentID := b.registerAgent(b.ts, b.key, "payer")
	k, key, err := b.orgs.IssueKey(t.Context(), auth.Principal{OrgID: b.orgID, Role: auth.RoleAdmin}, auth.KeyInput{Role: auth.RoleAgent, AgentIDs: []string{agentID}})
	must(t, err)

	ws, _, err := dialWS(t, b.ts, transportWS)
	must(t, err)
	ws.init(map[string]any{"Authorization": "Bearer " + key})
	ws.subscribe("refused", `mutation { suspendAgent(id: "`+agentID+`") { id } }`, nil)
	if m := ws.next(5 * time.Second); !strings.Contains(string(m.Payload), `"FORBIDDEN"`) || !strings.Contains(string(m.Payload), "an agent key may not suspendAgent") {
		t.Fatalf("agent key's suspendAgent over a websocket: %+v %s", m, m.Payload)
	}
	ws.subscribe("1", eventsSubscription, nil)
	there, _, err := dialWS(t, otherProcess, transportWS)
	must(t, err)
	there.init(map[string]any{"Authorization": "Bearer " + key})
	there.subscribe("1", eventsSubscription, nil)
	sse := openSSE(t, b.ts, key, eventsSubscription, nil)
	waitSubscribers(t, b, 2)

	var revoked testkit.APIKey
	must(t, json.Unmarshal(b.do(b.ts, b.key, testkit.RevokeAPIKeyMutation, vars("id", k.ID), "revokeApiKey"), &revoked))
	at := time.Now()
	for _, w := range []*wsClient{ws, there} {
		if reason := w.expectClose(4401, 5*time.Second-time.Since(at)); !strings.Contains(reason, "revoked") {
			t.Fatalf("close reason %q", reason)
		}
	}
	if ev := sse.next(5*time.Second - time.Since(at)); ev.name != "next" || !strings.Contains(ev.data, "UNAUTHENTICATED") {
		t.Fatalf("SSE after revocation: %+v", ev)
	}
}
