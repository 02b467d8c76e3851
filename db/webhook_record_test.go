package db_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
)

// acmeDB is a fresh database with acme's organization: the database, a
// context, and the organization's id.
func acmeDB(t *testing.T) (*db.DB, context.Context, string) {
	t.Helper()
	d := dbtest.New(t)
	return d, t.Context(), acme(t, d).OrgID
}

// TestRecordCountsOnlyWhereRecordsMayBe: recording a batch counts the
// earlier attempts at its events only when a look at the endpoint's batches
// finds one of another run whose events overlap the range of the batch's; a
// job's first run (events past every record) numbers its attempts without
// counting, and so does a run whose earlier batches alone overlap. Where it
// counts, it unnests only the overlapping batches, not all the endpoint's
// records (which would make each record of a busy endpoint cost in
// proportion to the records before it). Checked on the generic plan, on a
// table without statistics, as a fresh deployment runs it.
func TestRecordCountsOnlyWhereRecordsMayBe(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		from    int
		job     int64
		counted bool
	}{
		{"events past the records", 5001, 1, false},
		{"events with records", 101, 1, true},
		{"events with records of the same run", 101, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			d, ctx, orgID := acmeDB(t)
			const records = 5000
			plan, err := d.RecordPlan(ctx, orgID, "wh_record", records, c.from, c.job)
			if err != nil {
				t.Fatal(err)
			}
			// No node may handle more rows than the batch's 100 events: an
			// unnest of all the endpoint's batches handles all 5,000.
			for _, m := range regexp.MustCompile(`(?:actual time=\S+ rows=|Rows Removed by Filter: )(\d+)`).FindAllStringSubmatch(plan, -1) {
				if n, _ := strconv.Atoi(m[1]); n > 100 {
					t.Fatalf("a plan node handled %d rows of %d records:\n%s", n, records, plan)
				}
			}
			look := regexp.MustCompile(`InitPlan 1 \(returns \$0\)\n\s*->  Index Only Scan using webhook_attempt_batches_events on webhook_attempt_batches b\s+\(cost=[^)]*\)\s+\(actual time=\S+ rows=\d+ loops=1\)\n\s*Index Cond: \(\(webhook_id = \$1\) AND \(hi_seq >= \$13\)\)`)
			if !look.MatchString(plan) {
				t.Fatalf("the look for batches overlapping the batch's range is not one walk of their event index:\n%s", plan)
			}
			count := regexp.MustCompile(`InitPlan 2 \(returns \$\d+\)\n\s*->  Aggregate\s+\(cost=[^)]*\)\s+\((never executed|actual time=\S+ rows=1 loops=1)\)`).FindStringSubmatch(plan)
			switch {
			case count == nil:
				t.Fatalf("no count of earlier attempts in the plan:\n%s", plan)
			case c.counted == (count[1] == "never executed"):
				t.Fatalf("counted %v, want %v:\n%s", count[1] != "never executed", c.counted, plan)
			}
		})
	}
}

// TestPendingLookReadsThePositionIndex: once the dispatcher has read every
// event, its look for events that older transactions still hide reads the
// position index, not the whole log, even on statistics older than the
// events.
func TestPendingLookReadsThePositionIndex(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	const events = 5000
	plan, err := d.PendingEventsPlan(t.Context(), events)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:actual time=\S+ rows=|Rows Removed by Filter: )(\d+)`).FindAllStringSubmatch(plan, -1) {
		if n, _ := strconv.Atoi(m[1]); n > 1 {
			t.Fatalf("a plan node handled %d rows of %d events:\n%s", n, events, plan)
		}
	}
	if !regexp.MustCompile(`Index Only Scan using events_position|Index Scan using events_position`).MatchString(plan) {
		t.Errorf("the look does not read the position index:\n%s", plan)
	}
}

// TestDispatchReadsThePositionIndex: after a burst, with statistics older
// than its events, the dispatcher reads one batch in the position index's
// order; without its planner settings Postgres planned a bitmap scan of every
// event after the cursor and a sort, for each pass.
func TestDispatchReadsThePositionIndex(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	const events, batch = 20000, 2000
	plan, err := d.DispatchReadPlan(t.Context(), events, batch)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:actual time=\S+ rows=|Rows Removed by Filter: )(\d+)`).FindAllStringSubmatch(plan, -1) {
		if n, _ := strconv.Atoi(m[1]); n > batch {
			t.Fatalf("a plan node handled %d rows of %d events for a batch of %d:\n%s", n, events, batch, plan)
		}
	}
	if !regexp.MustCompile(`Index Scan using events_position`).MatchString(plan) || strings.Contains(plan, "Sort") {
		t.Errorf("the read does not take the position index's order:\n%s", plan)
	}
}

// acme creates an organization and returns the principal of its first key.
func acme(t *testing.T, d *db.DB) auth.Principal {
	t.Helper()
	orgID, keyID, _, err := db.NewOrgService(d).CreateOrg(t.Context(), "acme")
	if err != nil {
		t.Fatal(err)
	}
	return auth.Principal{OrgID: orgID, KeyID: keyID, Role: auth.RoleAdmin}
}
