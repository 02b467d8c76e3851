package db

import (
	"database/sql"
	"encoding/json"
	"testing"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/trust"
)

func ptr[T any](v T) *T { return &v }

// TestWrittenOutStatements: the statements written out for the execute path
// (insertCompleted, insertAudit, updateAuditHead, insertEvent, updateTrust) are, byte for byte, what bun's
// query builders give for the same values, so the service sends what
// bench/pgbench/execute.sql mirrors. Values carry quotes, backslashes, HTML,
// NUL escapes, nil and set pointers, fractions and negatives.
func TestWrittenOutStatements(t *testing.T) {
	t.Parallel()
	sqldb := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN("postgres://u@127.0.0.1:1/none?sslmode=disable")))
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { db.Close() })
	at := time.Date(2026, 11, 23, 11, 24, 42, 304438123, time.FixedZone("x", 3600))
	same := func(what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", what, got, want)
		}
	}
	for _, details := range []string{`{"a":"b"}`, `{"r":"it's <a> & \"q\" \\ \u0000 é \u2028"}`, `null`, `{"n":[1,2.50,{"z":null}]}`, `{"a": 1}`, `{"a":"\\u0000"}`, `{"a":"x\u0000"}`, `{"a":"b"`, `{"a":"b"}}`, ``} {
		for _, prev := range []string{"", "ff3a"} {
			r := auditRow{AgentID: "agent_'x", Sequence: 7, Action: "transaction.completed", At: at, Actor: "key_k",
				Details: json.RawMessage(details), Hash: "7ca0", PreviousHash: prev}
			same("insertAudit", insertAudit(db, &r).String(), db.NewInsert().Model(&r).String())
		}
	}
	a := agentRow{ID: "agent_'a", AuditSeq: 12, AuditHead: "dec7", AuditHeadMAC: "1b33"}
	same("updateAuditHead", updateAuditHead(db, &a).String(),
		db.NewUpdate().Model(&a).Column("audit_seq", "audit_head", "audit_head_mac").WherePK().String())
	for _, memo := range []*string{nil, ptr("it's \\ <memo>")} {
		r := transactionRow{ID: "tx_1", FromAgent: "agent_a", ToAgent: "agent_b", FromOrg: "org_a", ToOrg: "org_'b",
			Action: "purchase", Amount: money.MustParse("100.50"), Currency: "USD", Memo: memo, Status: "completed", CreatedAt: at}
		same("insertCompleted", insertCompleted(db, &r).String(), db.NewInsert().Model(&r).Returning("NULL").String())
	}
	for _, orgs := range [][]string{{"org_a"}, {"org_a", "org_'b\\\"c"}} {
		r := eventRow{ID: "evt_1", Type: "transaction.completed", OrgIDs: orgs, Data: json.RawMessage(`{"memo":"<it's>","n":null}`), CreatedAt: at}
		same("insertEvent", insertEvent(db, &r).String(), db.NewInsert().Model(&r).Returning("seq").String())
	}
	first := at.Add(-90 * 24 * time.Hour)
	for _, f := range []*time.Time{nil, &first} {
		c := trust.Counters{At: at, Completed: 10005.998872008793, Failures: 0.5, LimitRefusals: 1e-9, Reversals: 3,
			DisputingOrgs: -0.25, OpenDisputes: 2, CounterpartyOrgs: 6}
		res := trust.Result{Score: 848, Assessment: "Verified"}
		want := db.NewUpdate().Table("trust_counters").
			Set("evidence_at = ?", c.At).Set("completed = ?", c.Completed).Set("failures = ?", c.Failures).
			Set("limit_refusals = ?", c.LimitRefusals).Set("reversals = ?", c.Reversals).
			Set("disputing_orgs = ?", c.DisputingOrgs).Set("open_disputes = ?", c.OpenDisputes).
			Set("counterparty_orgs = ?", c.CounterpartyOrgs).Set("first_external_at = ?", f).
			Set("score = ?", res.Score).Set("assessment = ?", res.Assessment).Set("updated_at = ?", at).
			Where("agent_id = ?", "agent_'a").String()
		same("updateTrust", updateTrust(db, "agent_'a", c, f, res, at).String(), want)
	}
}
