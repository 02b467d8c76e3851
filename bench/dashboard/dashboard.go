// Package dashboard is the read benchmarks' dashboard: the requests a
// dashboard sends (pages of agents with and without trust, an agent's
// detail, a page of transactions, a batch of trust summaries, a page of
// disputes), the data they read, seeded through the service's own GraphQL
// API, and a check of every answer. bench/read (wrk), bench/load (make bench)
// and the resolvers' Go benchmarks share it, so the three measure the same
// requests on the same rows.
package dashboard

import (
	"encoding/json"
	"fmt"
	"time"
)

// The plain page's fields: what the floor handler (bench/floor) serves.
const agentFields = `id name status spendingLimit currency environment createdAt`

// The pages compared one by one with the floor.
const (
	// PlainPage is the floor's own request.
	PlainPage = `{ agents(limit: 50) { nodes { ` + agentFields + ` } } }`
	// TypenamePage is the plain page with a second root field.
	TypenamePage = `{ __typename agents(limit: 50) { nodes { ` + agentFields + ` } } }`
	// TrustPage is the plain page with each agent's score and assessment.
	TrustPage = `{ agents(limit: 50) { nodes { ` + agentFields + ` trust { score assessment } } } }`
)

// The requests of the mix, beside the two pages above with totalCount and pageInfo.
const (
	pageInfo        = ` totalCount pageInfo { endCursor hasNextPage }`
	agentsPage      = `{ agents(limit: 50) { nodes { ` + agentFields + ` }` + pageInfo + ` } }`
	agentsTrustPage = `{ agents(limit: 50) { nodes { ` + agentFields + ` trust { score assessment } }` + pageInfo + ` } }`
	agentDetail     = `query($id: ID!) { agent(id: $id) { id name authorizedActions spendingLimit dailyLimit currency environment status fingerprint createdAt updatedAt
  trust { score assessment updatedAt
    factors { completionRate disputeRatio reversalRate tenureDays volume confidence counterpartyOrgs failures limitRefusals reversals disputingOrgs openDisputes suspended }
    contributions { factor points description } }
  auditChain(limit: 20) { sequence action timestamp actor details hash previousHash } } }`
	transactionsPage = `{ transactions(limit: 50) { nodes { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt }` + pageInfo + ` } }`
	batchTrust       = `query($ids: [ID!]!) { batchTrust(agentIds: $ids) { agentId score assessment } }`
	disputesPage     = `{ disputes(limit: 50) { nodes { id agentId reason evidenceIds createdAt status reporterOrgId }` + pageInfo + ` } }`
	overview         = `{ overview { agentsByStatus { key count } agentsByAssessment { key count } transactionsLast24h { key count }
 pendingApprovals openDisputes webhooksFailing webhooksDisabled } }`
	policyUsage = `query($id: ID!) { agent(id: $id) { policyUsage { spendLimits { window mode actions limit used remaining resetsAt freesUpAt }
 velocityLimits { windowSeconds actions maxCount count } } } }`
	agentSeries = `query($id: ID!, $since: Time!, $until: Time!) { spendSeries(agentId: $id, bucket: HOUR, since: $since, until: $until) { start amount count } }`
	orgSeries   = `query($since: Time!, $until: Time!) { spendSeries(currency: "USD", bucket: DAY, since: $since, until: $until) { start amount count } }`
)

// Sizes of the seeded data: the first organization's agents (one page),
// the second's, and the detail agent's extra payments (its chain then holds
// more than the 20 entries the detail reads).
const (
	Agents         = 50
	counterparties = 10
	extraPayments  = 24
)

// Post sends one GraphQL request body as the holder of key and returns the
// answer's body; any HTTP status but 200 is an error.
type Post func(key string, body []byte) ([]byte, error)

// Fixture is what Seed made: the first organization's agents in
// registration order, and the agent whose detail the mix reads.
type Fixture struct {
	Agents []string
	Detail string
}

// Request is one request of the dashboard: its name, its body, and what
// its answer must hold.
type Request struct {
	Name  string
	Body  []byte
	check func(data map[string]json.RawMessage) error
}

// Pages are the pages compared one by one with the floor: plain (the
// floor's own request), with a second root field, and with trust.
func Pages() []Request {
	return []Request{
		{Name: "plain", Body: Body(PlainPage, nil), check: nodes("agents", Agents)},
		{Name: "typename", Body: Body(TypenamePage, nil), check: nodes("agents", Agents)},
		{Name: "trust", Body: Body(TrustPage, nil), check: nodes("agents", Agents)},
	}
}

// Mix is the dashboard's mix, one request of each kind, sent in turn. The
// spend series are the detail agent's last 24 hours, up to the end of the
// current hour, and the organization's last 30 days, up to the end of today.
func (f *Fixture) Mix() []Request {
	hour := time.Now().UTC().Truncate(time.Hour).Add(time.Hour)
	today := time.Now().UTC().Truncate(24 * time.Hour).Add(24 * time.Hour)
	day := map[string]any{"id": f.Detail, "since": hour.Add(-24 * time.Hour), "until": hour}
	month := map[string]any{"since": today.Add(-30 * 24 * time.Hour), "until": today}
	return []Request{
		{Name: "agents", Body: Body(agentsPage, nil), check: nodes("agents", Agents)},
		{Name: "agents+trust", Body: Body(agentsTrustPage, nil), check: nodes("agents", Agents)},
		{Name: "agent detail", Body: Body(agentDetail, map[string]any{"id": f.Detail}), check: detail},
		{Name: "transactions", Body: Body(transactionsPage, nil), check: nodes("transactions", 50)},
		{Name: "batchTrust 50", Body: Body(batchTrust, map[string]any{"ids": f.Agents}), check: list("batchTrust", Agents)},
		{Name: "disputes", Body: Body(disputesPage, nil), check: nodes("disputes", 50)},
		{Name: "overview", Body: Body(overview, nil), check: overviewCounts},
		{Name: "policyUsage", Body: Body(policyUsage, map[string]any{"id": f.Detail}), check: usage},
		{Name: "spendSeries 24h", Body: Body(agentSeries, day), check: series(24, 1+extraPayments)},
		{Name: "spendSeries 30d", Body: Body(orgSeries, month), check: series(30, Agents+extraPayments)},
	}
}

// Check fails unless body is an answer without errors holding what the
// request asks for.
func (r Request) Check(body []byte) error {
	var resp struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors []json.RawMessage          `json:"errors"`
	}
	if err := json.Unmarshal(body, &resp); err != nil || len(resp.Errors) > 0 || resp.Data == nil {
		return fmt.Errorf("%s: want data without errors (%v): %.400s", r.Name, err, body)
	}
	if err := r.check(resp.Data); err != nil {
		return fmt.Errorf("%s: %w: %.400s", r.Name, err, body)
	}
	return nil
}

// nodes checks that data.root.nodes holds n elements and that totalCount,
// when asked for, counts at least as many.
func nodes(root string, n int) func(map[string]json.RawMessage) error {
	return func(data map[string]json.RawMessage) error {
		var c struct {
			Nodes      []json.RawMessage `json:"nodes"`
			TotalCount *int              `json:"totalCount"`
		}
		if err := json.Unmarshal(data[root], &c); err != nil {
			return err
		}
		if len(c.Nodes) != n || c.TotalCount != nil && *c.TotalCount < n {
			return fmt.Errorf("got %d nodes, want %d", len(c.Nodes), n)
		}
		return nil
	}
}

// list checks that data.root is a list of n elements.
func list(root string, n int) func(map[string]json.RawMessage) error {
	return func(data map[string]json.RawMessage) error {
		var l []json.RawMessage
		if err := json.Unmarshal(data[root], &l); err != nil {
			return err
		}
		if len(l) != n {
			return fmt.Errorf("got %d elements, want %d", len(l), n)
		}
		return nil
	}
}

// detail checks the agent detail: 20 audit entries and an explained score.
func detail(data map[string]json.RawMessage) error {
	var a struct {
		Trust struct {
			Contributions []json.RawMessage `json:"contributions"`
		} `json:"trust"`
		AuditChain []json.RawMessage `json:"auditChain"`
	}
	if err := json.Unmarshal(data["agent"], &a); err != nil {
		return err
	}
	if len(a.AuditChain) != 20 || len(a.Trust.Contributions) == 0 {
		return fmt.Errorf("got %d audit entries and %d contributions, want 20 and some", len(a.AuditChain), len(a.Trust.Contributions))
	}
	return nil
}

// overviewCounts checks that the overview counts the organization's agents.
func overviewCounts(data map[string]json.RawMessage) error {
	var o struct {
		AgentsByStatus []struct {
			Key   string `json:"key"`
			Count int    `json:"count"`
		} `json:"agentsByStatus"`
	}
	if err := json.Unmarshal(data["overview"], &o); err != nil {
		return err
	}
	n := 0
	for _, c := range o.AgentsByStatus {
		n += c.Count
	}
	if n != Agents {
		return fmt.Errorf("overview counts %d agents, want %d", n, Agents)
	}
	return nil
}

// usage checks that the detail agent's policy usage has an entry per limit
// of its policy (detailPolicy) and counts its payments in the day.
func usage(data map[string]json.RawMessage) error {
	var a struct {
		PolicyUsage struct {
			SpendLimits []struct {
				Used json.Number `json:"used"`
			} `json:"spendLimits"`
			VelocityLimits []struct {
				Count int `json:"count"`
			} `json:"velocityLimits"`
		} `json:"policyUsage"`
	}
	if err := json.Unmarshal(data["agent"], &a); err != nil {
		return err
	}
	u := a.PolicyUsage
	if len(u.SpendLimits) != 2 || len(u.VelocityLimits) != 1 || u.VelocityLimits[0].Count != 1+extraPayments {
		return fmt.Errorf("got %d spend and %d velocity limits, want 2 and 1 counting %d", len(u.SpendLimits), len(u.VelocityLimits), 1+extraPayments)
	}
	return nil
}

// series checks that a spend series has n buckets counting count payments.
func series(n, count int) func(map[string]json.RawMessage) error {
	return func(data map[string]json.RawMessage) error {
		var points []struct {
			Count int `json:"count"`
		}
		if err := json.Unmarshal(data["spendSeries"], &points); err != nil {
			return err
		}
		total := 0
		for _, p := range points {
			total += p.Count
		}
		if len(points) != n || total != count {
			return fmt.Errorf("got %d buckets counting %d payments, want %d counting %d", len(points), total, n, count)
		}
		return nil
	}
}

// Body encodes a GraphQL request body.
func Body(query string, vars map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		panic(err)
	}
	return b
}

// PostGraphilePages are the plain and the trust page as PostGraphile
// (bench/postgraphile) serves them from the same tables: the organization's
// newest 50 agents with the same fields, and their trust counters' score
// and assessment through the foreign key.
func PostGraphilePages(orgID string) []Request {
	const (
		page  = `query($org: String!) { allAgents(first: 50, orderBy: SEQ_DESC, condition: { orgId: $org }) { nodes { `
		trust = ` trustCounterByAgentId { score assessment }`
	)
	vars := map[string]any{"org": orgID}
	return []Request{
		{Name: "plain", Body: Body(page+agentFields+` } } }`, vars), check: nodes("allAgents", Agents)},
		{Name: "trust", Body: Body(page+agentFields+trust+` } } }`, vars), check: nodes("allAgents", Agents)},
	}
}
