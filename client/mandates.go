package client

import (
	"context"
	"iter"
	"time"

	"github.com/shopspring/decimal"
)

// MandateStatus is where a mandate is in its life, as of the read.
type MandateStatus string

// Mandate states.
const (
	MandateActive    MandateStatus = "active"
	MandateRevoked   MandateStatus = "revoked"
	MandateExpired   MandateStatus = "expired"
	MandateExhausted MandateStatus = "exhausted" // its budget or uses are spent
)

// Reason codes of an execute or evaluation naming a mandate (after
// ReasonActionNotAuthorized, before the counterparty codes).
const (
	ReasonMandateRequired       = "mandate_required"        // the policy requires a mandate; none was named
	ReasonMandateNotFound       = "mandate_not_found"       // unknown, or another agent's
	ReasonMandateRevoked        = "mandate_revoked"         // revoked
	ReasonMandateExpired        = "mandate_expired"         // past ExpiresAt
	ReasonMandateNotActive      = "mandate_not_active"      // before NotBefore
	ReasonMandateExhausted      = "mandate_exhausted"       // budget or uses spent
	ReasonMandateScopeMismatch  = "mandate_scope_mismatch"  // action or counterparty outside it
	ReasonMandateAmountExceeded = "mandate_amount_exceeded" // over MaxPerTransaction or Remaining
)

// Mandate is spend authority for one task, granted to one agent.
type Mandate struct {
	ID                 string           `json:"id"` // mdt_<id>
	AgentID            string           `json:"agentId"`
	Description        string           `json:"description"`
	Actions            []string         `json:"actions"`
	CounterpartyAgents []string         `json:"counterpartyAgents"` // nil: any
	CounterpartyOrgs   []string         `json:"counterpartyOrgs"`   // nil: any
	MaxPerTransaction  *decimal.Decimal `json:"maxPerTransaction"`  // nil: no cap beyond the budget
	Budget             decimal.Decimal  `json:"budget"`
	Currency           string           `json:"currency"`
	MaxUses            *int             `json:"maxUses"` // nil: no cap
	NotBefore          *time.Time       `json:"notBefore"`
	ExpiresAt          time.Time        `json:"expiresAt"`
	Status             MandateStatus    `json:"status"`
	Spent              decimal.Decimal  `json:"spent"`
	Uses               int              `json:"uses"`
	Remaining          decimal.Decimal  `json:"remaining"`
	CreatedAt          time.Time        `json:"createdAt"`
	RevokedAt          *time.Time       `json:"revokedAt"`
}

const mandateFields = `id agentId description actions counterpartyAgents counterpartyOrgs maxPerTransaction budget currency
 maxUses notBefore expiresAt status spent uses remaining createdAt revokedAt`

// CreateMandateInput grants a mandate to one of your agents.
type CreateMandateInput struct {
	AgentID            string           `json:"agentId"`
	Description        string           `json:"description"`
	Actions            []string         `json:"actions"`                      // some of the agent's authorized actions
	CounterpartyAgents []string         `json:"counterpartyAgents,omitempty"` // nil: any receiver
	CounterpartyOrgs   []string         `json:"counterpartyOrgs,omitempty"`   // nil: any organization
	MaxPerTransaction  *decimal.Decimal `json:"maxPerTransaction,omitempty"`
	Budget             decimal.Decimal  `json:"budget"` // in the agent's currency
	MaxUses            *int             `json:"maxUses,omitempty"`
	NotBefore          *time.Time       `json:"notBefore,omitempty"`
	ExpiresAt          time.Time        `json:"expiresAt"` // at most 90 days ahead
}

// ListMandatesParams filter and page Mandates.List.
type ListMandatesParams struct {
	AgentID string        // only this agent's mandates
	Status  MandateStatus // "" lists every status
	Limit   int           // 1..200; 0 is the server's default of 50
	After   string        // the EndCursor of the previous page
	// Last and Before page backwards (not with Limit or After): the Last
	// mandates (1..200, 0 the server's default) just before Before, the
	// StartCursor of the page after; empty Before: the list's last ones.
	Last   int
	Before string
}

// MandatePage is one page of mandates, newest first.
type MandatePage struct {
	Mandates   []Mandate
	PageInfo   PageInfo
	TotalCount int
}

// MandatesService holds the mandate operations.
type MandatesService struct{ c *Client }

// Create grants a mandate (admin keys): invalid input is a
// *ValidationError naming every field, an agent not yours a
// *NotFoundError. It is retried only when the request provably never
// reached the server.
func (s *MandatesService) Create(ctx context.Context, in CreateMandateInput) (*Mandate, error) {
	var m Mandate
	err := s.c.graphql(ctx, "mandates.create", once,
		`mutation($input: CreateMandateInput!) { createMandate(input: $input) { `+mandateFields+` } }`,
		map[string]any{"input": in}, "createMandate", &m)
	return ptrOrNil(&m, err)
}

// Revoke revokes a mandate (admin keys): every execute that starts after it
// returns is refused. Revoking again returns it unchanged, so it is retried
// like a read; a mandate not yours is a *NotFoundError.
func (s *MandatesService) Revoke(ctx context.Context, id, reason string) (*Mandate, error) {
	vars := map[string]any{"id": id}
	if reason != "" {
		vars["reason"] = reason
	}
	var m Mandate
	err := s.c.graphql(ctx, "mandates.revoke", safe,
		`mutation($id: ID!, $reason: String) { revokeMandate(id: $id, reason: $reason) { `+mandateFields+` } }`,
		vars, "revokeMandate", &m)
	return ptrOrNil(&m, err)
}

// Get returns one of your organization's mandates, or a *NotFoundError.
func (s *MandatesService) Get(ctx context.Context, id string) (*Mandate, error) {
	var m Mandate
	err := s.c.graphql(ctx, "mandates.get", safe,
		`query($id: ID!) { mandate(id: $id) { `+mandateFields+` } }`, map[string]any{"id": id}, "mandate", &m)
	return ptrOrNil(&m, err)
}

// List returns one page of your organization's mandates, newest first.
func (s *MandatesService) List(ctx context.Context, p ListMandatesParams) (*MandatePage, error) {
	vars := backVars(pageVars(p.Limit, p.After, "agentId", p.AgentID, "status", string(p.Status)), p.Last, p.Before)
	var conn connection[Mandate]
	err := s.c.graphql(ctx, "mandates.list", safe,
		`query($agentId: ID, $status: MandateStatus, $limit: Int, $after: String, $last: Int, $before: String) { mandates(agentId: $agentId, status: $status, limit: $limit, after: $after, last: $last, before: $before) { nodes { `+mandateFields+` } `+pageInfoFields+` totalCount } }`,
		vars, "mandates", &conn)
	if err != nil {
		return nil, err
	}
	return &MandatePage{Mandates: conn.Nodes, PageInfo: conn.PageInfo, TotalCount: conn.TotalCount}, nil
}

// ListAll iterates over every mandate matching p, page after page from
// p.After on; the first error ends it.
func (s *MandatesService) ListAll(ctx context.Context, p ListMandatesParams) iter.Seq2[Mandate, error] {
	return every(ctx, p.After, func(ctx context.Context, after string) ([]Mandate, PageInfo, error) {
		p.After = after
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Mandates, page.PageInfo, nil
	})
}

// ListAllBackward iterates over every mandate matching p from p.Before (the
// oldest when empty) towards the newest, page before page of p.Last: oldest
// first. The first error ends it.
func (s *MandatesService) ListAllBackward(ctx context.Context, p ListMandatesParams) iter.Seq2[Mandate, error] {
	if p.Last == 0 {
		p.Last = defaultPageSize
	}
	return backward(ctx, p.Before, func(ctx context.Context, before string) ([]Mandate, PageInfo, error) {
		p.Before = before
		page, err := s.List(ctx, p)
		if err != nil {
			return nil, PageInfo{}, err
		}
		return page.Mandates, page.PageInfo, nil
	})
}
