package db_test

import (
	"testing"

	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/money"
)

// TestPartiesReadAlike: evaluateTrust's pgx read of its agents and the read
// an execute locks give the policy and the trust model the same values, so
// the two decide alike (with and without a daily limit, with counters away
// from their defaults).
func TestPartiesReadAlike(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx, p := t.Context(), acme(t, d)
	daily := money.MustParse("250.75")
	var ids []string
	for _, in := range []agent.RegisterInput{
		{Name: "plain", AuthorizedActions: []string{"purchase"}, SpendingLimit: money.MustParse("100.50"), Currency: "USD", Environment: agent.Sandbox},
		{Name: "daily", AuthorizedActions: []string{"purchase", "refund"}, SpendingLimit: money.MustParse("1000"), DailyLimit: &daily, Currency: "EUR", Environment: agent.Production},
	} {
		a, err := db.NewAgentService(d).Register(ctx, p, in)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	if err := d.Exec(ctx, `UPDATE trust_counters SET completed = 12.5, failures = 1.25, limit_refusals = 2, reversals = 0.5,
		disputing_orgs = 0.75, open_disputes = 1, counterparty_orgs = 3, first_external_at = now() - interval '3 days' WHERE agent_id = ?`, ids[1]); err != nil {
		t.Fatal(err)
	}
	// Actions that the text array format quotes and escapes.
	if err := d.Exec(ctx, `UPDATE agents SET authorized_actions = ? WHERE id = ?`,
		pgdialect.Array([]string{"a b", `c,"d"`, `e\f`, "NULL", "{g}", ""}), ids[0]); err != nil {
		t.Fatal(err)
	}
	if err := d.CompareParties(ctx, ids...); err != nil {
		t.Fatal(err)
	}
}

// TestPartyReadPlansOnce: evaluateTrust's read of one or two agents runs on a cached generic plan after Postgres'
// five trial calls, in a new database whose tables were never analyzed
// (with ids = ANY($1::text[]) it planned every call, more than the read).
func TestPartyReadPlansOnce(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx, p := t.Context(), acme(t, d)
	var ids []string
	for _, name := range []string{"a", "b"} {
		a, err := db.NewAgentService(d).Register(ctx, p, agent.RegisterInput{Name: name, AuthorizedActions: []string{"purchase"},
			SpendingLimit: money.MustParse("100"), Currency: "USD", Environment: agent.Sandbox})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	const calls = 10
	for _, c := range []struct{ ids []string }{{ids[:1]}, {ids}} {
		generic, custom, err := d.PartyPlans(ctx, c.ids, calls)
		if err != nil {
			t.Fatal(err)
		}
		if custom > 5 || generic+custom != calls {
			t.Errorf("%d ids: %d generic and %d custom plans in %d calls, want at most 5 custom", len(c.ids), generic, custom, calls)
		}
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
