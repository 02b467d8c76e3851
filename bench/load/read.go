package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"

	dash "github.com/agenttrust/service/bench/dashboard"
)

// readScenario: the dashboard's requests (package bench/dashboard) from the
// service, each group against the same floor run (bench/floor: one SELECT
// of the plain page's columns through pgxpool, encoding/json) on the same
// rows: the plain page (the floor's own request), the page with trust, and
// the dashboard's mix (each of its requests drawn at random, every answer
// checked to be a clean 200; each request's content checked once before).
func readScenario(ctx context.Context, e *env, c config) []group {
	groups := []group{{scenario: "read: agents page"}, {scenario: "read: agents page + trust"}, {scenario: "read: dashboard mix"}}
	fail := func(err error) []group {
		for i := range groups {
			groups[i] = groups[i].fail(err)
		}
		return groups
	}
	s, err := e.serve(ctx, "read", 2)
	if err != nil {
		return fail(err)
	}
	defer s.close()
	pages, mix, err := seedRead(ctx, s)
	if err != nil {
		return fail(err)
	}
	// One server at a time holds database connections: the floor's pool
	// and the service's together could pass a shared Postgres' limit.
	s.svc.close()

	b, out, err := readFloor(ctx, e, c, s, pages[0])
	if err != nil {
		return fail(err)
	}
	for i := range groups {
		groups[i].baseline = &b
		groups[i].noteErrors("floor", out)
	}
	svc, err := e.startService(ctx, s.dbURL)
	if err != nil {
		return fail(err)
	}
	defer svc.close()
	key := s.orgs[0].key
	plans := []plan{
		{url: svc.base + "/graphql", workers: readWorkers, duration: c.duration, ok: checked(pages[0]), next: fixed(pages[0].Body, key)},
		{url: svc.base + "/graphql", workers: readWorkers, duration: c.duration, ok: checked(pages[2]), next: fixed(pages[2].Body, key)},
		{url: svc.base + "/graphql", workers: readWorkers, duration: c.duration, next: func(_ int, rng *rand.Rand) call {
			k := rng.IntN(len(mix))
			return call{body: mix[k].Body, key: key, kind: k}
		}},
	}
	targets := []string{"service: agents(limit: 50)", "service: agents(limit: 50) + trust", "service: the mix of " + fmt.Sprint(len(mix)) + " requests"}
	warm(ctx, c, plans...)
	for i, p := range plans {
		groups[i].service, out = measure(ctx, svc, p, targets[i])
		groups[i].noteErrors("service", out)
	}
	return groups
}

// readWorkers is the read scenario's clients.
const readWorkers = 32

// seedRead seeds the dashboard's rows through the service of s and checks
// the content of each of its pages and of each request of its mix once.
func seedRead(ctx context.Context, s *served) (pages, mix []dash.Request, err error) {
	client := newClient(1)
	defer client.CloseIdleConnections()
	send := func(key string, body []byte) ([]byte, error) {
		status, raw, err := post(ctx, client, s.svc.base+"/graphql", call{body: body, key: key})
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("HTTP %d: %.300s", status, raw)
		}
		return raw, err
	}
	f, err := dash.Seed(send, s.orgs[0].key, s.orgs[1].key)
	if err != nil {
		return nil, nil, err
	}
	pages, mix = dash.Pages(), f.Mix()
	for _, r := range append(pages[:len(pages):len(pages)], mix...) {
		out, err := send(s.orgs[0].key, r.Body)
		if err == nil {
			err = r.Check(out)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return pages, mix, nil
}

// readFloor measures the floor serving page on the database of s.
func readFloor(ctx context.Context, e *env, c config, s *served, page dash.Request) (row, outcome, error) {
	fl, err := e.startFloor(ctx, s.dbURL, s.orgs[0].id)
	if err != nil {
		return row{}, outcome{}, err
	}
	defer fl.close()
	p := plan{url: fl.base + "/graphql", workers: readWorkers, duration: c.duration, ok: checked(page),
		next: fixed(page.Body, s.orgs[0].key)}
	warm(ctx, c, p)
	b, out := measure(ctx, fl, p, "floor: pgx + encoding/json, plain page")
	return b, out, nil
}

// checked accepts a clean 200 whose content passes r's check.
func checked(r dash.Request) func(int, []byte) error {
	return func(status int, body []byte) error {
		if status != http.StatusOK {
			return fmt.Errorf("HTTP %d: %.300s", status, body)
		}
		return r.Check(body)
	}
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
