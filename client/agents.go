package client

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Environment is where an agent operates.
type Environment string

// Environments.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// AgentStatus is an agent's lifecycle state.
type AgentStatus string

// Agent states.
const (
	AgentActive    AgentStatus = "active"
	AgentSuspended AgentStatus = "suspended"
)

// Agent is an autonomous agent that acts and pays for its organization.
type Agent struct {
	ID                string           `json:"id"`
	Name              string           `json:"name"`
	AuthorizedActions []string         `json:"authorizedActions"`
	SpendingLimit     decimal.Decimal  `json:"spendingLimit"`
	DailyLimit        *decimal.Decimal `json:"dailyLimit"` // nil: no daily cap
	Currency          string           `json:"currency"`
	Environment       Environment      `json:"environment"`
	Status            AgentStatus      `json:"status"`
	Fingerprint       string           `json:"fingerprint"` // sha256:<64 hex>
	CreatedAt         time.Time        `json:"createdAt"`
	UpdatedAt         time.Time        `json:"updatedAt"`
}

const agentFields = `id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt`

// AgentPage is one page of agents, newest first.
type AgentPage struct {
	Agents     []Agent
	PageInfo   PageInfo
	TotalCount int // agents matching the filter in all pages
}

// AgentVerification is the outcome of re-checking an agent's stored identity.
type AgentVerification struct {
	Verified        bool   `json:"verified"`
	Fingerprint     string `json:"fingerprint"`
	AuditChainValid bool   `json:"auditChainValid"`
}

// AuditEntry is one link of an agent's hash-linked audit chain.
type AuditEntry struct {
	Sequence     int             `json:"sequence"`
	Action       string          `json:"action"`
	Timestamp    time.Time       `json:"timestamp"`
	Actor        string          `json:"actor"`
	Details      json.RawMessage `json:"details"`
	Hash         string          `json:"hash"`
	PreviousHash *string         `json:"previousHash"` // nil on the first entry
}

// RegisterAgentInput is what Agents.Register needs.
type RegisterAgentInput struct {
	Name              string           `json:"name"`
	AuthorizedActions []string         `json:"authorizedActions"`
	SpendingLimit     decimal.Decimal  `json:"spendingLimit"`
	Currency          string           `json:"currency"`
	Environment       Environment      `json:"environment"`
	DailyLimit        *decimal.Decimal `json:"dailyLimit,omitempty"`
}

// UpdateAgentInput changes an agent: nil fields stay unchanged.
type UpdateAgentInput struct {
	Name          *string
	SpendingLimit *decimal.Decimal
	DailyLimit    *decimal.Decimal
	// RemoveDailyLimit clears the daily limit (DailyLimit must then be nil).
	RemoveDailyLimit bool
}

func (in UpdateAgentInput) vars() (map[string]any, error) {
	v := map[string]any{}
	if in.Name != nil {
		v["name"] = *in.Name
	}
	if in.SpendingLimit != nil {
		v["spendingLimit"] = *in.SpendingLimit
	}
	switch {
	case in.RemoveDailyLimit && in.DailyLimit != nil:
		return nil, fmt.Errorf("UpdateAgentInput: DailyLimit and RemoveDailyLimit are exclusive")
	case in.RemoveDailyLimit:
		v["dailyLimit"] = nil
	case in.DailyLimit != nil:
		v["dailyLimit"] = *in.DailyLimit
	}
	return v, nil
}

// ListAgentsParams filter and page Agents.List; zero fields are the defaults.
type ListAgentsParams struct {
	Status AgentStatus // "" lists every status
	Limit  int         // 1..200; 0 is the server's default of 50
	After  string      // the EndCursor of the previous page
	// Last and Before page backwards (not with Limit or After): the Last
	// agents (1..200, 0 the server's default) just before Before, the
	// StartCursor of the page after; empty Before: the list's last agents.
	Last   int
	Before string
}

// AuditChainParams page Agents.GetAuditChain; zero fields are the defaults.
type AuditChainParams struct {
	After int // only entries with a larger sequence; 0 starts at the beginning
	Limit int // 0 is the server's default of 500
}

// AgentsService holds the agents operations.
type AgentsService struct{ c *Client }

// Register stores a new agent in the caller's organization. It fails with a
// *ValidationError for invalid input. It is retried only when the request
// provably never reached the server.
func (s *AgentsService) Register(ctx context.Context, in RegisterAgentInput) (*Agent, error) {
	var a Agent
	err := s.c.graphql(ctx, "agents.register", once,
		`mutation($input: RegisterAgentInput!) { registerAgent(input: $input) { `+agentFields+` } }`,
		map[string]any{"input": in}, "registerAgent", &a)
	return ptrOrNil(&a, err)
}

// Get returns one of the organization's agents, or a *NotFoundError.
func (s *AgentsService) Get(ctx context.Context, id string) (*Agent, error) {
	var a Agent
	err := s.c.graphql(ctx, "agents.get", safe,
		`query($id: ID!) { agent(id: $id) { `+agentFields+` } }`, map[string]any{"id": id}, "agent", &a)
	return ptrOrNil(&a, err)
}

// List returns one page of the organization's agents, newest first. A limit
// outside 1..200 or a bad cursor is a *ValidationError.
func (s *AgentsService) List(ctx context.Context, p ListAgentsParams) (*AgentPage, error) {
	vars := backVars(pageVars(p.Limit, p.After, "status", string(p.Status)), p.Last, p.Before)
	var conn connection[Agent]
	err := s.c.graphql(ctx, "agents.list", safe,
		`query($status: AgentStatus, $limit: Int, $after: String, $last: Int, $before: String) { agents(status: $status, limit: $limit, after: $after, last: $last, before: $before) { nodes { `+agentFields+` } `+pageInfoFields+` totalCount } }`,
		vars, "agents", &conn)
	if err != nil {
		return nil, err
	}
	return &AgentPage{Agents: conn.Nodes, PageInfo: conn.PageInfo, TotalCount: conn.TotalCount}, nil
}

// ListAll iterates over every agent matching p, page after page from p.After
// on; the first error ends it.
func (s *AgentsService) ListAll(ctx context.Context, p ListAgentsParams) iter.Seq2[Agent, error] {
	return every(ctx, p.After, func(ctx context.Context, after string) ([]Agent, PageInfo, error) {
		p.After = after
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Agents, page.PageInfo, nil
	})
}

// ListAllBackward iterates over every agent matching p from p.Before (the
// oldest agent when empty) towards the newest, page before page of p.Last
// agents: oldest first. The first error ends it.
func (s *AgentsService) ListAllBackward(ctx context.Context, p ListAgentsParams) iter.Seq2[Agent, error] {
	if p.Last == 0 {
		p.Last = defaultPageSize
	}
	return backward(ctx, p.Before, func(ctx context.Context, before string) ([]Agent, PageInfo, error) {
		p.Before = before
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Agents, page.PageInfo, nil
	})
}

// Verify recomputes an agent's fingerprint and re-walks its audit chain.
func (s *AgentsService) Verify(ctx context.Context, id string) (*AgentVerification, error) {
	var v AgentVerification
	err := s.c.graphql(ctx, "agents.verify", safe,
		`query($id: ID!) { verifyAgent(id: $id) { verified fingerprint auditChainValid } }`,
		map[string]any{"id": id}, "verifyAgent", &v)
	return ptrOrNil(&v, err)
}

// Update changes an agent's name or limits and returns it with its new
// fingerprint. Setting absolute values is idempotent, so it is retried like
// a read (a retry may add a second audit entry of the same change).
func (s *AgentsService) Update(ctx context.Context, id string, in UpdateAgentInput) (*Agent, error) {
	input, err := in.vars()
	if err != nil {
		return nil, fmt.Errorf("agenttrust agents.update: %w", err)
	}
	var a Agent
	err = s.c.graphql(ctx, "agents.update", safe,
		`mutation($id: ID!, $input: UpdateAgentInput!) { updateAgent(id: $id, input: $input) { `+agentFields+` } }`,
		map[string]any{"id": id, "input": input}, "updateAgent", &a)
	return ptrOrNil(&a, err)
}

// Suspend moves an active agent to suspended; a suspended one is a
// *ConflictError. reason may be empty.
func (s *AgentsService) Suspend(ctx context.Context, id, reason string) (*Agent, error) {
	return s.setStatus(ctx, "agents.suspend", "suspendAgent", id, reason)
}

// Reinstate moves a suspended agent back to active; an active one is a
// *ConflictError. reason may be empty.
func (s *AgentsService) Reinstate(ctx context.Context, id, reason string) (*Agent, error) {
	return s.setStatus(ctx, "agents.reinstate", "reinstateAgent", id, reason)
}

func (s *AgentsService) setStatus(ctx context.Context, op, field, id, reason string) (*Agent, error) {
	vars := map[string]any{"id": id}
	if reason != "" {
		vars["reason"] = reason
	}
	var a Agent
	err := s.c.graphql(ctx, op, once,
		`mutation($id: ID!, $reason: String) { `+field+`(id: $id, reason: $reason) { `+agentFields+` } }`,
		vars, field, &a)
	return ptrOrNil(&a, err)
}

// GetAuditChain returns an agent's audit entries in chain order (sequence
// ascending), those after p.After, at most p.Limit of them.
func (s *AgentsService) GetAuditChain(ctx context.Context, agentID string, p AuditChainParams) ([]AuditEntry, error) {
	// Arguments are only named when set, so the call also works against a
	// server whose agentAuditChain takes none.
	vars := map[string]any{"agentId": agentID}
	var params, args []string
	if p.After != 0 {
		vars["after"] = p.After
		params, args = append(params, ", $after: Int"), append(args, ", after: $after")
	}
	if p.Limit != 0 {
		vars["limit"] = p.Limit
		params, args = append(params, ", $limit: Int"), append(args, ", limit: $limit")
	}
	var entries []AuditEntry
	err := s.c.graphql(ctx, "agents.getAuditChain", safe,
		`query($agentId: ID!`+strings.Join(params, "")+`) { agentAuditChain(agentId: $agentId`+strings.Join(args, "")+`) { sequence action timestamp actor details hash previousHash } }`,
		vars, "agentAuditChain", &entries)
	if err != nil {
		return nil, err
	}
	return entries, nil
}

// AuditChainAll iterates over an agent's audit entries in chain order from
// p.After on, fetching p.Limit entries (default 500) per request; the first
// error ends it.
func (s *AgentsService) AuditChainAll(ctx context.Context, agentID string, p AuditChainParams) iter.Seq2[AuditEntry, error] {
	return func(yield func(AuditEntry, error) bool) {
		limit := p.Limit
		if limit == 0 {
			limit = 500
		}
		for after := p.After; ; {
			page, err := s.GetAuditChain(ctx, agentID, AuditChainParams{After: after, Limit: limit})
			if err != nil {
				yield(AuditEntry{}, err)
				return
			}
			for _, e := range page {
				if !yield(e, nil) {
					return
				}
			}
			if len(page) < limit {
				return
			}
			after = page[len(page)-1].Sequence
		}
	}
}

// ptrOrNil returns v, or nil and err when err is set.
func ptrOrNil[T any](v *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}
