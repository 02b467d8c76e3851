package resolvers_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// registerRange registers agents named prefix-<i> for i in [from, to) in one
// request and returns their ids in registration order: the mutations of one
// document run one after another. It reports failure as an error, so
// goroutines may call it.
func registerRange(b *testkit.Kit, prefix string, from, to int) ([]string, error) {
	var doc strings.Builder
	vars := map[string]any{}
	doc.WriteString("mutation(")
	for i := from; i < to; i++ {
		fmt.Fprintf(&doc, "$in%d: RegisterAgentInput! ", i)
		vars[fmt.Sprintf("in%d", i)] = testkit.RegisterInput(map[string]any{"name": fmt.Sprintf("%s-%d", prefix, i)})
	}
	doc.WriteString(") {")
	for i := from; i < to; i++ {
		fmt.Fprintf(&doc, " a%d: registerAgent(input: $in%d) { id }", i, i)
	}
	doc.WriteString(" }")
	body, _ := json.Marshal(map[string]any{"query": doc.String(), "variables": vars})
	req := httptest.NewRequest(http.MethodPost, "/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+b.Key)
	rec := httptest.NewRecorder()
	b.Handler.ServeHTTP(rec, req)
	var r struct {
		Data   map[string]struct{ ID string }
		Errors []testkit.GQLError
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil || len(r.Errors) > 0 {
		return nil, fmt.Errorf("register %s-%d..%d: %d %v %+v", prefix, from, to, rec.Code, err, r.Errors)
	}
	ids := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		ids = append(ids, r.Data[fmt.Sprintf("a%d", i)].ID)
	}
	return ids, nil
}

const registerBatch = 10 // the most mutations one operation may run

// registerMany registers n agents one after another and returns their ids newest first.
func registerMany(b *testkit.Kit, n int) []string {
	b.T.Helper()
	var ids []string
	for from := 0; from < n; from += registerBatch {
		batch, err := registerRange(b, "agent", from, min(from+registerBatch, n))
		if err != nil {
			b.T.Fatal(err)
		}
		ids = append(ids, batch...)
	}
	slices.Reverse(ids)
	return ids
}

// registerConcurrently registers n agents from several workers at once and
// returns each worker's ids newest first: across workers the order is the
// database's, within one it is the order the worker registered them in.
func registerConcurrently(b *testkit.Kit, n, workers int) [][]string {
	b.T.Helper()
	out := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for from := w * n / workers; from < (w+1)*n/workers; from += registerBatch {
				batch, err := registerRange(b, fmt.Sprintf("worker%d", w), from, min(from+registerBatch, (w+1)*n/workers))
				if err != nil {
					b.T.Error(err)
					return
				}
				out[w] = append(out[w], batch...)
			}
			slices.Reverse(out[w])
		})
	}
	wg.Wait()
	if b.T.Failed() {
		b.T.FailNow()
	}
	return out
}

func TestAgentsEmpty(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	c := b.Agents(b.Key, nil)
	if len(c.Nodes) != 0 || c.TotalCount != 0 || c.PageInfo.HasNextPage || c.PageInfo.EndCursor != nil {
		t.Fatalf("empty organization's agents: %+v", c)
	}
}

func TestAgentsPagination(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	const n, limit = 500, 37
	workers := registerConcurrently(b, n, 5)

	var got []string
	position := map[string]int{}
	vars := map[string]any{"limit": limit}
	for pages := 1; ; pages++ {
		c := b.Agents(b.Key, vars)
		if c.TotalCount != n {
			t.Fatalf("page %d: totalCount %d, want %d", pages, c.TotalCount, n)
		}
		if len(c.Nodes) > limit || (c.PageInfo.HasNextPage && len(c.Nodes) != limit) {
			t.Fatalf("page %d: %d nodes, hasNextPage %v", pages, len(c.Nodes), c.PageInfo.HasNextPage)
		}
		for _, id := range c.IDs() {
			if _, dup := position[id]; dup {
				t.Fatalf("page %d repeats %s", pages, id)
			}
			position[id] = len(got)
			got = append(got, id)
		}
		if c.PageInfo.EndCursor == nil {
			t.Fatalf("page %d has no endCursor", pages)
		}
		vars["after"] = *c.PageInfo.EndCursor
		if !c.PageInfo.HasNextPage {
			if want := (n + limit - 1) / limit; pages != want {
				t.Fatalf("walked %d pages, want %d", pages, want)
			}
			break
		}
	}
	if len(got) != n {
		t.Fatalf("walk returned %d agents, want %d", len(got), n)
	}
	for w, ids := range workers {
		for i, id := range ids {
			p, ok := position[id]
			if !ok {
				t.Fatalf("walk skipped %s", id)
			}
			if i > 0 && p < position[ids[i-1]] {
				t.Fatalf("worker %d's agents are not newest first: %s at %d before %s at %d", w, id, p, ids[i-1], position[ids[i-1]])
			}
		}
	}
	if c := b.Agents(b.Key, vars); len(c.Nodes) != 0 || c.PageInfo.HasNextPage || c.PageInfo.EndCursor != nil {
		t.Fatalf("page after the last: %+v", c.PageInfo)
	}

	var def testkit.AgentConnection
	b.Query(`{ agents { nodes { id } pageInfo { hasNextPage } } }`, nil).Into(t, "agents", &def)
	if !slices.Equal(def.IDs(), got[:50]) || !def.PageInfo.HasNextPage {
		t.Fatalf("default page: %d agents, hasNextPage %v", len(def.Nodes), def.PageInfo.HasNextPage)
	}
	if c := b.Agents(b.Key, map[string]any{"limit": 200}); !slices.Equal(c.IDs(), got[:200]) {
		t.Fatalf("limit 200 returned %d agents", len(c.Nodes))
	}
}

func TestAgentsPaginationWithStatus(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	all := registerMany(b, 7)
	var suspended []string
	for i, id := range all {
		if i%2 == 0 {
			b.SuspendAgent(id, nil)
			suspended = append(suspended, id)
		}
	}
	var got []string
	vars := map[string]any{"status": "suspended", "limit": 2}
	for range len(all) {
		c := b.Agents(b.Key, vars)
		if c.TotalCount != len(suspended) {
			t.Fatalf("totalCount %d, want %d", c.TotalCount, len(suspended))
		}
		got = append(got, c.IDs()...)
		if !c.PageInfo.HasNextPage {
			break
		}
		vars["after"] = *c.PageInfo.EndCursor
	}
	if !slices.Equal(got, suspended) {
		t.Fatalf("suspended walk = %v, want %v", got, suspended)
	}
}

func TestAgentsPageArgumentValidation(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	registerMany(b, 2)
	for _, limit := range []int{0, -1, 201, 1000} {
		if got := b.Do(b.Key, testkit.AgentsQuery, map[string]any{"limit": limit}).Fields(t); !slices.Equal(got, []string{"limit"}) {
			t.Errorf("limit %d: fieldErrors %v", limit, got)
		}
	}
	for _, limit := range []int{1, 200} {
		if c := b.Agents(b.Key, map[string]any{"limit": limit}); len(c.Nodes) != min(limit, 2) {
			t.Errorf("limit %d returned %d agents", limit, len(c.Nodes))
		}
	}
	enc := base64.RawURLEncoding.EncodeToString
	for _, after := range []string{"garbage", "!!!", enc([]byte("c1:abc")), enc([]byte("c1:-5")), enc([]byte("x1:5"))} {
		if got := b.Do(b.Key, testkit.AgentsQuery, map[string]any{"after": after}).Fields(t); !slices.Equal(got, []string{"after"}) {
			t.Errorf("after %q: fieldErrors %v", after, got)
		}
	}
}

// A page with each agent's audit chain runs the same few statements at any size.
func TestAgentsStatementCount(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	registerMany(b, 60)
	statements := func(limit int) int64 {
		q := fmt.Sprintf(`{ agents(limit: %d) { nodes { id auditChain { hash } } } }`, limit)
		before := b.DB.Statements()
		var c testkit.AgentConnection
		b.Query(q, nil).Into(t, "agents", &c)
		if len(c.Nodes) != limit {
			t.Fatalf("limit %d returned %d agents", limit, len(c.Nodes))
		}
		for _, a := range c.Nodes {
			if len(a.AuditChain) != 1 || !testkit.HashPattern.MatchString(a.AuditChain[0].Hash) {
				t.Fatalf("agent %s has audit chain %+v", a.ID, a.AuditChain)
			}
		}
		return b.DB.Statements() - before
	}
	small, large := statements(5), statements(50)
	if small != large || large > 4 {
		t.Fatalf("statements: %d for 5 agents, %d for 50 (want equal and at most 4)", small, large)
	}
}
