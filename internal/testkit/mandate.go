package testkit

import (
	"encoding/json"
	"time"
)

// Selections and documents of the mandate operations.
const (
	MandateFields = `id agentId description actions counterpartyAgents counterpartyOrgs maxPerTransaction budget currency
	maxUses notBefore expiresAt status spent uses remaining createdAt revokedAt`
	CreateMandateMutation = `mutation($in: CreateMandateInput!) { createMandate(input: $in) { ` + MandateFields + ` } }`
	RevokeMandateMutation = `mutation($id: ID!, $reason: String) { revokeMandate(id: $id, reason: $reason) { ` + MandateFields + ` } }`
	MandateQuery          = `query($id: ID!) { mandate(id: $id) { ` + MandateFields + ` } }`
	MandatesQuery         = `query($agentId: ID, $status: MandateStatus, $limit: Int, $after: String) {
	mandates(agentId: $agentId, status: $status, limit: $limit, after: $after) {
		nodes { ` + MandateFields + ` } edges { cursor node { id } } pageInfo { endCursor hasNextPage } totalCount } }`
	// MandateExecuteMutation is ExecuteMutation selecting the transaction's mandateId too.
	MandateExecuteMutation = `mutation($input: ExecuteTransactionInput!) { executeTransaction(input: $input) { ` + TxFields + ` mandateId } }`
	// EvaluateQuery is evaluateTrust with any input.
	EvaluateQuery = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`
)

// Mandate mirrors the schema's Mandate (amounts stay raw JSON numbers).
type Mandate struct {
	ID                 string          `json:"id"`
	AgentID            string          `json:"agentId"`
	Description        string          `json:"description"`
	Actions            []string        `json:"actions"`
	CounterpartyAgents []string        `json:"counterpartyAgents"`
	CounterpartyOrgs   []string        `json:"counterpartyOrgs"`
	MaxPerTransaction  json.RawMessage `json:"maxPerTransaction"`
	Budget             json.RawMessage `json:"budget"`
	Currency           string          `json:"currency"`
	MaxUses            *int            `json:"maxUses"`
	NotBefore          *string         `json:"notBefore"`
	ExpiresAt          string          `json:"expiresAt"`
	Status             string          `json:"status"`
	Spent              json.RawMessage `json:"spent"`
	Uses               int             `json:"uses"`
	Remaining          json.RawMessage `json:"remaining"`
	CreatedAt          string          `json:"createdAt"`
	RevokedAt          *string         `json:"revokedAt"`
}

// MandateConnection mirrors the schema's MandateConnection.
type MandateConnection struct {
	Nodes []Mandate `json:"nodes"`
	Edges []struct {
		Cursor string `json:"cursor"`
		Node   struct {
			ID string `json:"id"`
		} `json:"node"`
	} `json:"edges"`
	PageInfo   PageInfo `json:"pageInfo"`
	TotalCount int      `json:"totalCount"`
}

// MandateTransaction mirrors a Transaction with its mandateId.
type MandateTransaction struct {
	Transaction
	MandateID *string `json:"mandateId"`
}

// MandateInput is a CreateMandateInput for agent a: purchases up to budget,
// expiring in a day, with overrides applied (a nil value removes the field).
func MandateInput(a Agent, budget any, overrides map[string]any) map[string]any {
	in := map[string]any{"agentId": a.ID, "description": "buy two concert tickets", "actions": []string{"purchase"},
		"budget": budget, "expiresAt": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339Nano)}
	for k, v := range overrides {
		if v == nil {
			delete(in, k)
			continue
		}
		in[k] = v
	}
	return in
}

// CreateMandate runs createMandate as the holder of key and returns the answer.
func (k *Kit) CreateMandate(key string, in map[string]any) *Response {
	k.T.Helper()
	return k.Do(key, CreateMandateMutation, map[string]any{"in": in})
}

// MustCreateMandate is CreateMandate as the kit's organization, failing on any error.
func (k *Kit) MustCreateMandate(in map[string]any) Mandate {
	k.T.Helper()
	var m Mandate
	k.CreateMandate(k.Key, in).Into(k.T, "createMandate", &m)
	return m
}

// RevokeMandate runs revokeMandate as the holder of key and returns the answer.
func (k *Kit) RevokeMandate(key, id string, reason *string) *Response {
	k.T.Helper()
	return k.Do(key, RevokeMandateMutation, map[string]any{"id": id, "reason": reason})
}

// Mandate reads a mandate as the kit's organization, failing on any error.
func (k *Kit) Mandate(id string) Mandate {
	k.T.Helper()
	var m Mandate
	k.Query(MandateQuery, map[string]any{"id": id}).Into(k.T, "mandate", &m)
	return m
}

// Mandates lists mandates as the holder of key.
func (k *Kit) Mandates(key string, vars map[string]any) *Response {
	k.T.Helper()
	return k.Do(key, MandatesQuery, vars)
}

// ExecuteUnder runs executeTransaction with in under mandateID as the holder of key.
func (k *Kit) ExecuteUnder(key, mandateID string, in map[string]any) *Response {
	k.T.Helper()
	in["mandateId"] = mandateID
	return k.Do(key, MandateExecuteMutation, map[string]any{"input": in})
}

// EvaluateInput runs evaluateTrust with in as the kit's organization, failing on any error.
func (k *Kit) EvaluateInput(in map[string]any) Evaluation {
	k.T.Helper()
	var e Evaluation
	k.Query(EvaluateQuery, map[string]any{"in": in}).Into(k.T, "evaluateTrust", &e)
	return e
}
