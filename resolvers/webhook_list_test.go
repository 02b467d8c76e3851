package resolvers_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

// seedEndpoint stores one of k's organization's endpoints and batches of
// attempts for it directly, each batch holding 4 attempts a second apart.
func seedEndpoint(k *testkit.Kit, whID string, batches int) {
	k.Exec(`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
		VALUES ($1, $2, 'https://example.com/', '{*}', 'x', now(), now())`, whID, k.OrgID)
	if batches == 0 {
		return
	}
	k.Exec(`INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run, ids,
			event_ids, event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
		SELECT $1, t + interval '3 seconds', 'dlv_' || $1 || g || '_0', t, 4, 1, 1, g, 1,
			ARRAY(SELECT 'dlv_' || $1 || g || '_' || i FROM generate_series(0, 3) AS i),
			array_fill('evt_x'::text, ARRAY[4]), array_fill(1::bigint, ARRAY[4]), array_fill('agent.registered'::text, ARRAY[4]),
			array_fill(1, ARRAY[4]), array_fill(true, ARRAY[4]), array_fill(204, ARRAY[4]), array_fill(5, ARRAY[4]),
			array_fill(NULL::text, ARRAY[4]), array_fill(''::text, ARRAY[4]),
			ARRAY(SELECT t + i * interval '1 second' FROM generate_series(0, 3) AS i)
		FROM generate_series(1, $2::int) AS g, LATERAL (SELECT timestamptz '2026-11-01T00:00:00Z' + g * interval '10 seconds' AS t) AS s`,
		whID, batches)
}

type deliveryPageAnswer struct {
	Nodes    []struct{ ID, CreatedAt string }
	PageInfo struct {
		EndCursor   *string
		HasNextPage bool
	}
}

// The deliveries of a list of endpoints are read in one statement whatever
// the number of endpoints (gqlgen's batch resolver), and each endpoint's
// page is the one webhook(id) answers alone.
func TestWebhookListDeliveriesInOneStatement(t *testing.T) {
	t.Parallel()
	const list = `query($limit: Int, $after: String) { webhooks { id deliveries(limit: $limit, after: $after) {
		nodes { id createdAt } pageInfo { endCursor hasNextPage } } } }`
	const one = `query($id: ID!, $limit: Int, $after: String) { webhook(id: $id) { deliveries(limit: $limit, after: $after) {
		nodes { id createdAt } pageInfo { endCursor hasNextPage } } } }`
	statements := map[int]int64{}
	for _, endpoints := range []int{2, 8} {
		k := testkit.New(t)
		for i := range endpoints {
			seedEndpoint(k, fmt.Sprintf("wh_l%d", i), []int{0, 1, 30}[i%3])
		}
		for _, vars := range []map[string]any{{"limit": 5}, {"limit": 50}} {
			var got []struct {
				ID         string
				Deliveries deliveryPageAnswer
			}
			before := k.DB.Statements()
			k.Query(list, vars).Into(t, "webhooks", &got)
			statements[endpoints] = k.DB.Statements() - before
			if len(got) != endpoints {
				t.Fatalf("%d endpoints listed, want %d", len(got), endpoints)
			}
			for _, w := range got {
				var alone struct{ Deliveries deliveryPageAnswer }
				k.Query(one, map[string]any{"id": w.ID, "limit": vars["limit"]}).Into(t, "webhook", &alone)
				if !reflect.DeepEqual(w.Deliveries, alone.Deliveries) {
					t.Fatalf("%s in the list: %+v; alone: %+v", w.ID, w.Deliveries, alone.Deliveries)
				}
				// The next page after the list's cursor, for all of them at once, too.
				if c := w.Deliveries.PageInfo.EndCursor; c != nil && w.Deliveries.PageInfo.HasNextPage {
					var next []struct {
						ID         string
						Deliveries deliveryPageAnswer
					}
					k.Query(list, map[string]any{"limit": vars["limit"], "after": *c}).Into(t, "webhooks", &next)
					k.Query(one, map[string]any{"id": w.ID, "limit": vars["limit"], "after": *c}).Into(t, "webhook", &alone)
					for _, n := range next {
						if n.ID == w.ID && !reflect.DeepEqual(n.Deliveries, alone.Deliveries) {
							t.Fatalf("%s after %s in the list: %+v; alone: %+v", w.ID, *c, n.Deliveries, alone.Deliveries)
						}
					}
				}
			}
		}
	}
	if statements[2] != statements[8] {
		t.Fatalf("statements: %d for 2 endpoints' deliveries, %d for 8", statements[2], statements[8])
	}
}
