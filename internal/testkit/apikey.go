package testkit

import (
	"context"
	"fmt"
	"strings"

	"github.com/agenttrust/service/auth"
)

// Selections and documents of the API key operations.
const (
	APIKeyFields         = `id name role agentIds createdAt lastUsedAt revokedAt`
	APIKeysQuery         = `{ apiKeys { ` + APIKeyFields + ` } }`
	WhoamiQuery          = `{ whoami { ` + APIKeyFields + ` } }`
	CreateAPIKeyMutation = `mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret key { ` + APIKeyFields + ` } } }`
	RevokeAPIKeyMutation = `mutation($id: ID!) { revokeApiKey(id: $id) { ` + APIKeyFields + ` } }`
)

// APIKey mirrors the schema's ApiKey.
type APIKey struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Role       string   `json:"role"`
	AgentIDs   []string `json:"agentIds"`
	CreatedAt  string   `json:"createdAt"`
	LastUsedAt *string  `json:"lastUsedAt"`
	RevokedAt  *string  `json:"revokedAt"`
}

// CreatedAPIKey mirrors the schema's CreatedApiKey.
type CreatedAPIKey struct {
	Key    APIKey `json:"key"`
	Secret string `json:"secret"`
}

// CreateKey runs createApiKey as the holder of key and returns the answer.
func (k *Kit) CreateKey(key, name, role string, agentIDs ...string) *Response {
	k.T.Helper()
	in := map[string]any{"name": name, "role": role}
	if agentIDs != nil {
		in["agentIds"] = agentIDs
	}
	return k.Do(key, CreateAPIKeyMutation, map[string]any{"in": in})
}

// IssueKey gives the kit's organization a key of role for agentIDs, behind
// the service, and returns its id and secret.
func (k *Kit) IssueKey(role auth.Role, agentIDs ...string) (keyID, key string) {
	k.T.Helper()
	info, key, err := k.Orgs.IssueKey(context.Background(), auth.Principal{OrgID: k.OrgID, Role: auth.RoleAdmin}, auth.KeyInput{Name: string(role), Role: role, AgentIDs: agentIDs})
	if err != nil {
		k.T.Fatalf("issue %s key: %v", role, err)
	}
	return info.ID, key
}

// Snapshot is every table's row count and an md5 of its rows' text: two
// snapshots differ when any row of any table changed, except an API key's
// last_used_at, which authenticating any request (a refused one too)
// records once per auth.LastUseResolution.
func (k *Kit) Snapshot() map[string]string {
	k.T.Helper()
	conn := k.openSQL()
	defer conn.Close()
	var tables []string
	rows, err := conn.QueryContext(context.Background(),
		`SELECT quote_ident(table_name) FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`)
	if err != nil {
		k.T.Fatalf("list tables: %v", err)
	}
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			k.T.Fatal(err)
		}
		tables = append(tables, t)
	}
	rows.Close()
	parts := make([]string, len(tables))
	for i, t := range tables {
		parts[i] = fmt.Sprintf(`SELECT '%s', count(*)::text || ':' || md5(coalesce(string_agg(r, E'\n' ORDER BY r), '')) FROM (SELECT (to_jsonb(t) - 'last_used_at')::text AS r FROM %s t) s`, t, t)
	}
	out := map[string]string{}
	rows, err = conn.QueryContext(context.Background(), strings.Join(parts, " UNION ALL "))
	if err != nil {
		k.T.Fatalf("snapshot: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, sum string
		if err := rows.Scan(&name, &sum); err != nil {
			k.T.Fatal(err)
		}
		out[name] = sum
	}
	if len(out) < 5 {
		k.T.Fatalf("snapshot saw %d tables", len(out))
	}
	return out
}
