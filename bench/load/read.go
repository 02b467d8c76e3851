package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
)

// readScenario: the dashboard's page of 50 agents with their trust, from
// the service, against the floor (bench/floor: one SELECT of the plain
// page's columns through pgxpool, encoding/json) on the same rows.
func readScenario(ctx context.Context, e *env, c config) []group {
	g := group{scenario: "read: agents page + trust"}
	s, err := e.serve(ctx, "read", 1)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	dbURL, svc, orgs := s.dbURL, s.svc, s.orgs
	if _, err := registerAgents(ctx, svc.base, orgs[0].key, "agent", 50, "1000.50"); err != nil {
		return []group{g.fail(err)}
	}
	// One server at a time holds database connections: the floor's pool
	// and the service's together could pass a shared Postgres' limit.
	svc.close()

	fifty := func(status int, body []byte) error {
		if status != http.StatusOK {
			return fmt.Errorf("HTTP %d: %.300s", status, body)
		}
		var r struct {
			Data struct {
				Agents struct{ Nodes []json.RawMessage } `json:"agents"`
			} `json:"data"`
			Errors []json.RawMessage `json:"errors"`
		}
		if err := json.Unmarshal(body, &r); err != nil || len(r.Errors) > 0 || len(r.Data.Agents.Nodes) != 50 {
			return fmt.Errorf("want 50 agents and no errors (%v): %.300s", err, body)
		}
		return nil
	}
	const workers = 32
	fl, err := e.startFloor(ctx, dbURL, orgs[0].id)
	if err != nil {
		return []group{g.fail(err)}
	}
	floorPlan := plan{url: fl.base + "/graphql", workers: workers, duration: c.duration, ok: fifty,
		next: fixed(gql(plainPageQuery, nil), orgs[0].key)}
	warm(ctx, c, floorPlan)
	b, out := measure(ctx, fl, floorPlan, "floor: pgx + encoding/json, plain page")
	fl.close()
	g.baseline = &b
	g.noteErrors("floor", out)

	if svc, err = e.startService(ctx, dbURL); err != nil {
		return []group{g.fail(err)}
	}
	defer svc.close()
	svcPlan := plan{url: svc.base + "/graphql", workers: workers, duration: c.duration, ok: fifty,
		next: fixed(gql(trustPageQuery, nil), orgs[0].key)}
	warm(ctx, c, svcPlan)
	g.service, out = measure(ctx, svc, svcPlan, "service: agents(limit: 50) + trust")
	g.noteErrors("service", out)
	return []group{g}
}

// evaluateScenario: evaluateTrust against { __typename } on the same server:
// what the decision costs over the least a GraphQL request can be.
func evaluateScenario(ctx context.Context, e *env, c config) []group {
	g := group{scenario: "evaluate: evaluateTrust"}
	s, err := e.serve(ctx, "evaluate", 2)
	if err != nil {
		return []group{g.fail(err)}
	}
	defer s.close()
	svc, orgs := s.svc, s.orgs
	from, err := registerAgents(ctx, svc.base, orgs[0].key, "buyer", 16, "1000")
	if err != nil {
		return []group{g.fail(err)}
	}
	to, err := registerAgents(ctx, svc.base, orgs[1].key, "seller", 16, "1000")
	if err != nil {
		return []group{g.fail(err)}
	}
	bodies := make([][]byte, len(from))
	for i := range bodies {
		bodies[i] = gql(evaluateQuery, map[string]any{"in": map[string]any{
			"agentId": from[i], "toAgent": to[i], "action": "purchase", "amount": "120.50", "currency": "USD"}})
	}
	allowed := func(status int, body []byte) error {
		if err := graphqlOK(status, body); err != nil {
			return err
		}
		var r struct {
			Data struct {
				EvaluateTrust struct{ Allowed bool } `json:"evaluateTrust"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &r); err != nil || !r.Data.EvaluateTrust.Allowed {
			return fmt.Errorf("want allowed (%v): %.300s", err, body)
		}
		return nil
	}
	const workers = 4
	evalPlan := plan{url: svc.base + "/graphql", workers: workers, duration: c.duration, ok: allowed,
		next: func(w int, rng *rand.Rand) call { return call{body: bodies[rng.IntN(len(bodies))], key: orgs[0].key} }}
	typePlan := plan{url: svc.base + "/graphql", workers: workers, duration: c.duration,
		next: fixed(gql(typenameQuery, nil), orgs[0].key)}
	warm(ctx, c, evalPlan, typePlan)
	b, out := measure(ctx, svc, typePlan, "{ __typename }, same server")
	g.baseline = &b
	g.noteErrors("{ __typename }", out)
	g.service, out = measure(ctx, svc, evalPlan, "service: evaluateTrust")
	g.noteErrors("evaluateTrust", out)
	return []group{g}
}

// fixed sends the same request every time.
func fixed(body []byte, key string) func(int, *rand.Rand) call {
	return func(int, *rand.Rand) call { return call{body: body, key: key} }
}

// warm runs each plan, unreported, for the warm-up time.
func warm(ctx context.Context, c config, plans ...plan) {
	for _, p := range plans {
		p.duration = c.warmup
		p.run(ctx)
	}
}

// noteErrors adds the first failure of a run with failures to the notes.
func (g *group) noteErrors(target string, o outcome) {
	if o.errors > 0 {
		g.notes = append(g.notes, fmt.Sprintf("%s: %d of %d requests failed, the first with: %s", target, o.errors, o.requests, o.firstErr))
	}
}

func (g group) fail(err error) group {
	g.err = err
	return g
}
