package client

import (
	"context"
	"time"
)

// The roles of an API key.
const (
	RoleAdmin    = "admin"    // everything in its organization: an operator's key
	RoleAgent    = "agent"    // reads, and acts for its AgentIDs only: an agent's key
	RoleReadonly = "readonly" // reads only: a dashboard's key
)

// APIKey describes an API key; its secret is shown only by Create.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
	// AgentIDs are the agents an agent key acts for; empty for other roles.
	AgentIDs   []string   `json:"agentIds"`
	CreatedAt  time.Time  `json:"createdAt"`
	LastUsedAt *time.Time `json:"lastUsedAt"` // recorded at most once a minute
	RevokedAt  *time.Time `json:"revokedAt"`
}

// CreatedAPIKey is a new key and its secret, the att_sk_… value to pass as
// Options.APIKey; the secret is never shown again.
type CreatedAPIKey struct {
	Key    APIKey `json:"key"`
	Secret string `json:"secret"`
}

// CreateAPIKeyInput is what a new key takes. AgentIDs are required for
// RoleAgent and must be empty otherwise.
type CreateAPIKeyInput struct {
	Name     string   `json:"name"`
	Role     string   `json:"role"`
	AgentIDs []string `json:"agentIds,omitempty"`
}

const apiKeyFields = `id name role agentIds createdAt lastUsedAt revokedAt`

// KeysService holds the API key operations. Except Whoami, they need an
// admin key: any other answers a *ForbiddenError.
type KeysService struct{ c *Client }

// List returns the organization's keys, newest first.
func (s *KeysService) List(ctx context.Context) ([]APIKey, error) {
	var keys []APIKey
	err := s.c.graphql(ctx, "keys.list", safe, `{ apiKeys { `+apiKeyFields+` } }`, nil, "apiKeys", &keys)
	return keys, err
}

// Whoami describes the key the client authenticates with.
func (s *KeysService) Whoami(ctx context.Context) (*APIKey, error) {
	var k APIKey
	err := s.c.graphql(ctx, "keys.whoami", safe, `{ whoami { `+apiKeyFields+` } }`, nil, "whoami", &k)
	return ptrOrNil(&k, err)
}

// Create issues a key; a *ValidationError names input.agentIds when they
// are not agents of the organization or do not fit the role. It is retried
// only when the request provably never reached the server.
func (s *KeysService) Create(ctx context.Context, in CreateAPIKeyInput) (*CreatedAPIKey, error) {
	var k CreatedAPIKey
	err := s.c.graphql(ctx, "keys.create", once,
		`mutation($in: CreateApiKeyInput!) { createApiKey(input: $in) { secret key { `+apiKeyFields+` } } }`,
		map[string]any{"in": in}, "createApiKey", &k)
	return ptrOrNil(&k, err)
}

// Revoke revokes a key of the organization (the client's own too); it is
// refused from then on and its open streams end. Revoking twice is
// harmless; an unknown id is a *NotFoundError.
func (s *KeysService) Revoke(ctx context.Context, id string) (*APIKey, error) {
	var k APIKey
	err := s.c.graphql(ctx, "keys.revoke", safe,
		`mutation($id: ID!) { revokeApiKey(id: $id) { `+apiKeyFields+` } }`, map[string]any{"id": id}, "revokeApiKey", &k)
	return ptrOrNil(&k, err)
}
