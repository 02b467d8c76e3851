package testkit

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

// Selections and documents of the agent operations.
const (
	AgentFields    = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt`
	AuditFields    = `sequence action timestamp actor details hash previousHash`
	AgentSelection = AgentFields + ` auditChain { ` + AuditFields + ` }`

	RegisterMutation = `mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { ` + AgentSelection + ` } }`
	UpdateMutation   = `mutation($id: ID!, $input: UpdateAgentInput!) { updateAgent(id: $id, input: $input) { ` + AgentSelection + ` } }`
	SuspendMutation  = `mutation($id: ID!, $reason: String) { suspendAgent(id: $id, reason: $reason) { ` + AgentSelection + ` } }`
	AgentQuery       = `query($id: ID!) { agent(id: $id) { ` + AgentSelection + ` } }`
	AgentsQuery      = `query($status: AgentStatus, $limit: Int, $after: String) {
	agents(status: $status, limit: $limit, after: $after) {
		nodes { ` + AgentFields + ` } pageInfo { endCursor hasNextPage } totalCount } }`
	VerifyQuery     = `query($id: ID!) { verifyAgent(id: $id) { verified fingerprint auditChainValid } }`
	AuditChainQuery = `query($id: ID!) { agentAuditChain(agentId: $id) { ` + AuditFields + ` } }`
)

// Formats of the contract the checks below assert.
var (
	AgentIDPattern     = regexp.MustCompile(`^agent_[A-Za-z0-9_-]{16,}$`)
	KeyIDPattern       = regexp.MustCompile(`^key_[A-Za-z0-9_-]{16,}$`)
	FingerprintPattern = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	HashPattern        = regexp.MustCompile(`^[0-9a-f]{64}$`)
	TimePattern        = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

// AuditEntry mirrors the schema's AuditEntry.
type AuditEntry struct {
	Sequence     int            `json:"sequence"`
	Action       string         `json:"action"`
	Timestamp    string         `json:"timestamp"`
	Actor        string         `json:"actor"`
	Hash         string         `json:"hash"`
	PreviousHash *string        `json:"previousHash"`
	Details      map[string]any `json:"details"`
}

// Agent mirrors the schema's Agent (amounts stay raw JSON numbers).
type Agent struct {
	ID                string          `json:"id"`
	Name              string          `json:"name"`
	AuthorizedActions []string        `json:"authorizedActions"`
	SpendingLimit     json.RawMessage `json:"spendingLimit"`
	DailyLimit        json.RawMessage `json:"dailyLimit"`
	Currency          string          `json:"currency"`
	Environment       string          `json:"environment"`
	Status            string          `json:"status"`
	Fingerprint       string          `json:"fingerprint"`
	CreatedAt         string          `json:"createdAt"`
	UpdatedAt         string          `json:"updatedAt"`
	AuditChain        []AuditEntry    `json:"auditChain"`
}

// PageInfo mirrors the schema's PageInfo.
type PageInfo struct {
	EndCursor   *string `json:"endCursor"`
	HasNextPage bool    `json:"hasNextPage"`
}

// AgentConnection mirrors the schema's AgentConnection.
type AgentConnection struct {
	Nodes      []Agent  `json:"nodes"`
	PageInfo   PageInfo `json:"pageInfo"`
	TotalCount int      `json:"totalCount"`
}

// IDs lists the page's agent ids in order.
func (c AgentConnection) IDs() []string {
	out := make([]string, len(c.Nodes))
	for i, a := range c.Nodes {
		out[i] = a.ID
	}
	return out
}

// Verification mirrors the schema's AgentVerification.
type Verification struct {
	Verified        bool   `json:"verified"`
	Fingerprint     string `json:"fingerprint"`
	AuditChainValid bool   `json:"auditChainValid"`
}

// RegisterInput is a valid RegisterAgentInput (USD, sandbox, limit 100.50);
// overrides replace fields, and a nil value removes one.
func RegisterInput(overrides map[string]any) map[string]any {
	in := map[string]any{
		"name": "buyer", "authorizedActions": []any{"purchase", "refund"},
		"spendingLimit": "100.50", "currency": "USD", "environment": "sandbox",
	}
	for k, v := range overrides {
		if v == nil {
			delete(in, k)
		} else {
			in[k] = v
		}
	}
	return in
}

// Register registers an agent for the kit's organization and checks it.
func (k *Kit) Register(overrides map[string]any) Agent {
	k.T.Helper()
	a := k.RegisterAs(k.Key, overrides)
	CheckAgent(k.T, a)
	return a
}

// RegisterAs registers an agent for the organization holding key.
func (k *Kit) RegisterAs(key string, overrides map[string]any) Agent {
	k.T.Helper()
	var a Agent
	k.Do(key, RegisterMutation, map[string]any{"input": RegisterInput(overrides)}).Into(k.T, "registerAgent", &a)
	return a
}

// Agent reads one of the kit's organization's agents and checks it.
func (k *Kit) Agent(id string) Agent {
	k.T.Helper()
	var a Agent
	k.Query(AgentQuery, map[string]any{"id": id}).Into(k.T, "agent", &a)
	CheckAgent(k.T, a)
	return a
}

// Agents lists agents as the holder of key; vars are status, limit, after.
func (k *Kit) Agents(key string, vars map[string]any) AgentConnection {
	k.T.Helper()
	var c AgentConnection
	k.Do(key, AgentsQuery, vars).Into(k.T, "agents", &c)
	for _, a := range c.Nodes {
		CheckAgent(k.T, a)
	}
	return c
}

// UpdateAgent updates an agent of the kit's organization and checks it.
func (k *Kit) UpdateAgent(id string, input map[string]any) Agent {
	k.T.Helper()
	var a Agent
	k.Query(UpdateMutation, map[string]any{"id": id, "input": input}).Into(k.T, "updateAgent", &a)
	CheckAgent(k.T, a)
	return a
}

// SuspendAgent suspends an agent of the kit's organization (reason may be nil).
func (k *Kit) SuspendAgent(id string, reason any) Agent {
	k.T.Helper()
	var a Agent
	k.Query(SuspendMutation, map[string]any{"id": id, "reason": reason}).Into(k.T, "suspendAgent", &a)
	CheckAgent(k.T, a)
	return a
}

// Verify runs verifyAgent as the kit's organization.
func (k *Kit) Verify(id string) Verification {
	k.T.Helper()
	var v Verification
	k.Query(VerifyQuery, map[string]any{"id": id}).Into(k.T, "verifyAgent", &v)
	return v
}

// AuditChain reads an agent's whole audit chain as the kit's organization.
func (k *Kit) AuditChain(id string) []AuditEntry {
	k.T.Helper()
	var chain []AuditEntry
	k.Query(AuditChainQuery, map[string]any{"id": id}).Into(k.T, "agentAuditChain", &chain)
	return chain
}

// CheckAgent asserts the contract's formats on every field of a.
func CheckAgent(t testing.TB, a Agent) {
	t.Helper()
	if !AgentIDPattern.MatchString(a.ID) {
		t.Errorf("id %q is not agent_<url-safe id>", a.ID)
	}
	if !FingerprintPattern.MatchString(a.Fingerprint) {
		t.Errorf("fingerprint %q is not sha256:<64 hex>", a.Fingerprint)
	}
	CheckTime(t, "createdAt", a.CreatedAt)
	CheckTime(t, "updatedAt", a.UpdatedAt)
	if a.UpdatedAt < a.CreatedAt {
		t.Errorf("updatedAt %s before createdAt %s", a.UpdatedAt, a.CreatedAt)
	}
	if a.Status != "active" && a.Status != "suspended" {
		t.Errorf("status %q", a.Status)
	}
	var n float64
	if err := json.Unmarshal(a.SpendingLimit, &n); err != nil || n <= 0 {
		t.Errorf("spendingLimit %s is not a positive JSON number", a.SpendingLimit)
	}
	if string(a.DailyLimit) != "null" {
		if err := json.Unmarshal(a.DailyLimit, &n); err != nil || n <= 0 {
			t.Errorf("dailyLimit %s is neither null nor a positive JSON number", a.DailyLimit)
		}
	}
	for _, e := range a.AuditChain {
		CheckTime(t, "audit timestamp", e.Timestamp)
		if !HashPattern.MatchString(e.Hash) || !KeyIDPattern.MatchString(e.Actor) {
			t.Errorf("audit entry %d: hash %q actor %q", e.Sequence, e.Hash, e.Actor)
		}
	}
}

// CheckTime asserts RFC 3339 in UTC with milliseconds, and a recent instant.
func CheckTime(t testing.TB, name, s string) {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	if !TimePattern.MatchString(s) || err != nil {
		t.Errorf("%s %q is not RFC 3339 UTC with milliseconds (%v)", name, s, err)
		return
	}
	if d := time.Since(at); d < -time.Minute || d > time.Minute {
		t.Errorf("%s %s is %v away from now", name, s, d)
	}
}

// CheckChain asserts chain order and links: sequences 1..n, each previousHash
// the hash before it, distinct hashes, timestamps never going back.
func CheckChain(t testing.TB, chain []AuditEntry) {
	t.Helper()
	seen := map[string]bool{}
	for i, e := range chain {
		if e.Sequence != i+1 {
			t.Fatalf("entry %d has sequence %d", i, e.Sequence)
		}
		if i == 0 && e.PreviousHash != nil {
			t.Fatalf("first entry links to %q", *e.PreviousHash)
		}
		if i > 0 && (e.PreviousHash == nil || *e.PreviousHash != chain[i-1].Hash) {
			t.Fatalf("entry %d previousHash %v, want %s", e.Sequence, e.PreviousHash, chain[i-1].Hash)
		}
		if i > 0 && e.Timestamp < chain[i-1].Timestamp {
			t.Fatalf("entry %d is older than entry %d", e.Sequence, i)
		}
		if seen[e.Hash] {
			t.Fatalf("entry %d repeats hash %s", e.Sequence, e.Hash)
		}
		seen[e.Hash] = true
	}
}

// SetPolicy runs setAgentPolicy as the holder of key, failing on any error.
func (k *Kit) SetPolicy(key, id string, in map[string]any) {
	k.T.Helper()
	k.Do(key, `mutation($id: ID!, $in: SpendPolicyInput!) { setAgentPolicy(agentId: $id, input: $in) { id } }`,
		map[string]any{"id": id, "in": in}).Into(k.T, "setAgentPolicy", new(struct{ ID string }))
}
