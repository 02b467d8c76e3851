package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/agenttrust/service/bench/benchdb"
	"github.com/agenttrust/service/db"
)

// The requests of the scenarios.
const (
	trustPageQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt trust { score assessment } } } }`
	plainPageQuery = `{ agents(limit: 50) { nodes { id name status spendingLimit currency environment createdAt } } }`
	evaluateQuery  = `query($in: TrustEvaluationInput!) { evaluateTrust(input: $in) { allowed reason reasonCode } }`
	executeQuery   = `mutation($in: ExecuteTransactionInput!) { executeTransaction(input: $in) { id fromAgent toAgent action amount currency memo status reversalOf reversedBy reason createdAt } }`
	registerQuery  = `mutation($in: RegisterAgentInput!) { registerAgent(input: $in) { id } }`
	typenameQuery  = `{ __typename }`
)

type org struct{ id, key string }

// newOrgs creates n organizations (and their keys) in the database at dbURL.
func newOrgs(ctx context.Context, dbURL string, n int) ([]org, error) {
	d, err := db.Open(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	svc := db.NewOrgService(d)
	out := make([]org, n)
	for i := range out {
		if out[i].id, _, out[i].key, err = svc.CreateOrg(ctx, fmt.Sprintf("load-%03d", i)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// registerAgents registers n agents through the service's API (so each has
// its audit chain, event and trust counters) with the given spending limit
// and no daily limit, 8 at a time, and returns their ids in order.
func registerAgents(ctx context.Context, base, key, prefix string, n int, limit string) ([]string, error) {
	ids := make([]string, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var once sync.Once
	var failed error
	c := newClient(8)
	defer c.CloseIdleConnections()
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				id, err := registerOne(ctx, c, base, key, fmt.Sprintf("%s %d", prefix, i), limit)
				if err != nil {
					once.Do(func() { failed = fmt.Errorf("register %s %d: %w", prefix, i, err) })
					return
				}
				ids[i] = id
			}
		})
	}
	wg.Wait()
	return ids, failed
}

// registerOne registers one agent with the given spending limit and
// returns its id.
func registerOne(ctx context.Context, c *http.Client, base, key, name, limit string) (string, error) {
	body := gql(registerQuery, map[string]any{"in": map[string]any{
		"name": name, "authorizedActions": []string{"purchase", "refund"},
		"spendingLimit": limit, "currency": "USD", "environment": "sandbox"}})
	status, raw, err := post(ctx, c, base+"/graphql", call{body: body, key: key})
	if err != nil {
		return "", err
	}
	if err := graphqlOK(status, raw); err != nil {
		return "", err
	}
	var r struct {
		Data struct {
			RegisterAgent struct{ ID string } `json:"registerAgent"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Data.RegisterAgent.ID == "" {
		return "", fmt.Errorf("no id (%v) in %.200s", err, raw)
	}
	return r.Data.RegisterAgent.ID, nil
}

// steadyTrust gives agents the counters of an established agent (10^4
// completed transactions with five other organizations, the first 90 days
// ago) and the score those counters produce, so that a few more transactions
// leave the score where it is: an execute then writes no trust snapshot and
// no trust.score_changed event, as in the pgbench script's steady state.
func steadyTrust(ctx context.Context, dbURL string, agentIDs []string) error {
	conn := benchdb.Open(dbURL)
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `UPDATE trust_counters SET completed = 10000, counterparty_orgs = 5,
		first_external_at = now() - interval '90 days', evidence_at = now() WHERE agent_id = ANY($1::text[])`, benchdb.TextArray(agentIDs)); err != nil {
		return fmt.Errorf("steady counters: %w", err)
	}
	if err := benchdb.Rescore(ctx, conn, agentIDs); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, `VACUUM ANALYZE`)
	return err
}
