package db_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
)

// Finding delivery attempts by id (node, nodes) is an index lookup: for
// 200 ids of which a few exist, the buffers its statement touches are a few
// per id, whether the endpoint holds 40,000 attempts or 160,000. A page of
// its deliveries, first or deep, costs the same too.
func TestDeliveriesByIDCostIsConstantInHistory(t *testing.T) {
	t.Parallel()
	d, u := dbtest.NewWithURL(t)
	ctx := context.Background()
	orgID, _, _, err := db.NewOrgService(d).CreateOrg(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	conn := dbtest.OpenSQL(u)
	defer conn.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := conn.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`INSERT INTO webhooks (id, org_id, url, events, secret_sealed, created_at, updated_at)
		VALUES ('wh_busy', $1, 'https://example.com/', '{*}', 'x', now(), now())`, orgID)
	// Batches lo..hi of 20 attempts each, dlv_<batch>x_<i>, a second apart.
	seed := func(lo, hi int) {
		exec(`INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, run, ids,
				event_ids, event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
			SELECT 'wh_busy', now() - g * interval '1 second', 'dlv_' || g || 'x_0', now() - g * interval '1 second', 20, 1, 1, g, 1,
				ARRAY(SELECT 'dlv_' || g || 'x_' || i FROM generate_series(0, 19) AS i),
				array_fill('evt_x'::text, ARRAY[20]), array_fill(1::bigint, ARRAY[20]), array_fill('agent.registered'::text, ARRAY[20]),
				array_fill(1, ARRAY[20]), array_fill(true, ARRAY[20]), array_fill(204, ARRAY[20]), array_fill(5, ARRAY[20]),
				array_fill(NULL::text, ARRAY[20]), array_fill(''::text, ARRAY[20]), array_fill(now() - g * interval '1 second', ARRAY[20])
			FROM generate_series($1::int, $2::int) AS g`, lo, hi)
		exec(`ANALYZE webhook_attempt_batches`)
	}
	ids := make([]string, 200)
	for i := range ids {
		ids[i] = fmt.Sprintf("dlv_unknown%d", i)
	}
	ids[0], ids[1], ids[2] = "dlv_1x_0", "dlv_7x_9", "dlv_20x_19"
	ids[3] = "dlv_20x_20" // a place its batch does not have
	batches := make([]string, len(ids))
	for i, id := range ids {
		batches[i] = db.BatchOf(id)
	}
	cost := func() int {
		t.Helper()
		var found int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM (`+d.Statement(db.AttemptsByID, orgID, ids, batches)+`) AS a`).Scan(&found); err != nil || found != 3 {
			t.Fatalf("found %d attempts of 3: %v", found, err)
		}
		return buffers(t, conn, d.Statement(db.AttemptsByID, orgID, ids, batches))
	}
	// The first page of the endpoint's deliveries, and the page after a
	// cursor deep in its history, walk only the batches that hold them.
	page := func(from, before any, beforeID string) int {
		t.Helper()
		return buffers(t, conn, d.Statement(db.PageAttempts, []string{"wh_busy"}, orgID, from, before, beforeID, 51))
	}
	back := func(after any, afterID string) int {
		t.Helper()
		return buffers(t, conn, d.Statement(db.PageAttemptsBefore, []string{"wh_busy"}, orgID, after, afterID, 51, db.BatchSpan.Seconds()))
	}
	inf := "infinity"
	deep := time.Now().Add(-1000 * time.Second)
	seed(1, 2000)
	small, firstSmall, deepSmall := cost(), page(inf, inf, ""), page(deep.Add(db.BatchSpan), deep, "dlv_x")
	lastSmall, backSmall := back("-infinity", ""), back(deep, "dlv_x")
	seed(2001, 8000)
	large, firstLarge, deepLarge := cost(), page(inf, inf, ""), page(deep.Add(db.BatchSpan), deep, "dlv_x")
	lastLarge, backLarge := back("-infinity", ""), back(deep, "dlv_x")
	if bound := 3*len(ids) + 20; small > bound || large > bound || large > small+small/2 {
		t.Fatalf("the lookup touched %d buffers among 40,000 attempts and %d among 160,000 (bound %d)", small, large, bound)
	}
	if firstLarge > firstSmall+firstSmall/2 || deepLarge > deepSmall+deepSmall/2 ||
		lastLarge > lastSmall+lastSmall/2 || backLarge > backSmall+backSmall/2 {
		t.Fatalf("pages (first, deep, last, deep backwards) touched %d, %d, %d, %d buffers among 40,000 attempts, %d, %d, %d, %d among 160,000",
			firstSmall, deepSmall, lastSmall, backSmall, firstLarge, deepLarge, lastLarge, backLarge)
	}
}

// buffers is how many shared buffers statement q touches.
func buffers(t *testing.T, conn *sql.DB, q string) int {
	t.Helper()
	var plan []struct {
		Plan struct {
			Hit  int `json:"Shared Hit Blocks"`
			Read int `json:"Shared Read Blocks"`
		}
	}
	var raw []byte
	if err := conn.QueryRowContext(context.Background(), `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) `+q).Scan(&raw); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &plan); err != nil || len(plan) != 1 {
		t.Fatalf("plan %s: %v", raw, err)
	}
	return plan[0].Plan.Hit + plan[0].Plan.Read
}
