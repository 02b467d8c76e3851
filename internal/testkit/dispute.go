package testkit

import (
	"sync/atomic"
	"time"
)

// Selections and documents of the dispute operations.
const (
	DisputeFields    = `id disputeId agentId reason evidenceIds createdAt status reporterOrgId`
	ReportMutation   = `mutation($in: ReportAgentInput!) { reportAgent(input: $in) { ` + DisputeFields + ` } }`
	WithdrawMutation = `mutation($id: ID!) { withdrawDispute(id: $id) { ` + DisputeFields + ` } }`
	DisputeQuery     = `query($id: ID!) { dispute(id: $id) { ` + DisputeFields + ` } }`
	DisputesQuery    = `query($agent: ID, $status: DisputeStatus, $limit: Int, $after: String) {
	disputes(agentId: $agent, status: $status, limit: $limit, after: $after) { nodes { ` + DisputeFields + ` } pageInfo { endCursor hasNextPage } totalCount } }`
	ReinstateMutation = `mutation($id: ID!, $reason: String) { reinstateAgent(id: $id, reason: $reason) { ` + AgentFields + ` } }`
)

// Dispute mirrors the schema's Dispute.
type Dispute struct {
	ID            string   `json:"id"`
	DisputeID     string   `json:"disputeId"`
	AgentID       string   `json:"agentId"`
	Reason        string   `json:"reason"`
	EvidenceIDs   []string `json:"evidenceIds"`
	CreatedAt     string   `json:"createdAt"`
	Status        string   `json:"status"`
	ReporterOrgID string   `json:"reporterOrgId"`
}

// DisputeConnection mirrors the schema's DisputeConnection.
type DisputeConnection struct {
	Nodes      []Dispute `json:"nodes"`
	PageInfo   PageInfo  `json:"pageInfo"`
	TotalCount int       `json:"totalCount"`
}

// Report runs reportAgent as the holder of key and returns the answer.
func (k *Kit) Report(key, agentID, reason string, evidence ...string) *Response {
	k.T.Helper()
	return k.Do(key, ReportMutation, map[string]any{"in": map[string]any{"agentId": agentID, "reason": reason, "evidenceIds": evidence}})
}

// Disputes lists disputes as the holder of key and fails on any error.
func (k *Kit) Disputes(key string, vars map[string]any) DisputeConnection {
	k.T.Helper()
	var c DisputeConnection
	k.Do(key, DisputesQuery, vars).Into(k.T, "disputes", &c)
	return c
}

// Withdraw runs withdrawDispute as the holder of key and returns the answer.
func (k *Kit) Withdraw(key, id string) *Response {
	k.T.Helper()
	return k.Do(key, WithdrawMutation, map[string]any{"id": id})
}

// Clock is a test's service clock: fixed until advanced.
type Clock struct{ ns atomic.Int64 }

// Now is the clock's time.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()).UTC() }

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

// Clock replaces the kit's database clock (call it before any request).
func (k *Kit) Clock() *Clock {
	c := &Clock{}
	c.ns.Store(time.Now().UTC().Truncate(time.Millisecond).UnixNano())
	k.DB.Now = c.Now
	return c
}
