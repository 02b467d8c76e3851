package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/agenttrust/service/agent"
	"github.com/agenttrust/service/db"
	"github.com/agenttrust/service/db/dbtest"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/trust"
)

// TestListWithProfiles: a page read with its profiles in one statement is
// List's page (filters, cursors, errors alike), and each profile is the one
// Profiles computes for that agent (counters away from their defaults, a
// suspended agent, an agent without counters: nil), and each agent on it
// reads as Get (bun's reader of the same row) reads it.
func TestListWithProfiles(t *testing.T) {
	t.Parallel()
	d := dbtest.New(t)
	ctx := context.Background()
	p := dbtest.Admin(t, d, "acme")
	agents, trustSvc := db.NewAgentService(d), db.NewTrustService(d)
	var ids []string
	for i := range 7 {
		a, err := agents.Register(ctx, p, agent.RegisterInput{Name: fmt.Sprint("a", i), AuthorizedActions: []string{"purchase"},
			SpendingLimit: money.MustParse("100.50"), Currency: "USD", Environment: agent.Sandbox})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
	}
	for i, id := range ids[1:4] {
		if err := d.Exec(ctx, `UPDATE trust_counters SET completed = ?, failures = 1.25, limit_refusals = 2, reversals = 0.5,
			disputing_orgs = 0.75, open_disputes = 1, counterparty_orgs = ?, first_external_at = now() - interval '3 days',
			evidence_at = now() - interval '1 day', updated_at = now() - interval '2 hours' WHERE agent_id = ?`, 10*(i+1), i+1, id); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := agents.Suspend(ctx, p, ids[2], nil); err != nil {
		t.Fatal(err)
	}
	if err := d.Exec(ctx, `DELETE FROM trust_counters WHERE agent_id = ?`, ids[5]); err != nil {
		t.Fatal(err)
	}

	suspended := agent.Suspended
	compare := func(t *testing.T, ctx context.Context, f agent.ListFilter) *agent.Page {
		t.Helper()
		before := d.Statements()
		page, profiles, err := trustSvc.ListWithProfiles(ctx, p, f)
		if err != nil {
			t.Fatal(err)
		}
		if n := d.Statements() - before; n != 1 {
			t.Fatalf("ListWithProfiles ran %d statements, want 1", n)
		}
		want, err := agents.List(ctx, p, f)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(deref(page.Agents)) != fmt.Sprint(deref(want.Agents)) || page.EndCursor != want.EndCursor || page.HasNextPage != want.HasNextPage {
			t.Fatalf("page %+v\nList's %+v", page, want)
		}
		if len(profiles) != len(page.Agents) {
			t.Fatalf("%d profiles for %d agents", len(profiles), len(page.Agents))
		}
		pageIDs := make([]string, len(page.Agents))
		for i, a := range page.Agents {
			pageIDs[i] = a.ID
			got, err := agents.Get(ctx, p, a.ID)
			if err != nil || fmt.Sprint(*got) != fmt.Sprint(*a) {
				t.Fatalf("page's agent %+v, Get's %+v (%v)", *a, got, err)
			}
		}
		byID, err := trustSvc.Profiles(ctx, p, pageIDs)
		if err != nil {
			t.Fatal(err)
		}
		for i, id := range pageIDs {
			got, want := profiles[i], byID[id]
			if (got == nil) != (want == nil) {
				t.Fatalf("agent %s: profile %+v, Profiles' %+v", id, got, want)
			}
			if got == nil {
				continue
			}
			if got.AgentID != id || got.Score != want.Score || got.Assessment != want.Assessment ||
				!got.UpdatedAt.Equal(want.UpdatedAt) || fmt.Sprint(got.Contributions()) != fmt.Sprint(want.Contributions()) {
				t.Fatalf("agent %s: profile %+v, Profiles' %+v", id, got, want)
			}
		}
		return page
	}
	first := compare(t, ctx, agent.ListFilter{Window: paging.Window{Limit: 4}})
	if !first.HasNextPage || len(first.Agents) != 4 {
		t.Fatalf("first page %+v", first)
	}
	compare(t, ctx, agent.ListFilter{Window: paging.Window{Limit: 4, After: first.EndCursor}})
	compare(t, ctx, agent.ListFilter{Window: paging.Window{Limit: 50}, Status: &suspended})
	compare(t, ctx, agent.ListFilter{Window: paging.Window{Limit: 50}})

	// A page fills only the fields asked for (and the status its scores count).
	for _, withTrust := range []bool{false, true} {
		f := agent.ListFilter{Window: paging.Window{Limit: 50}, Fields: []string{"name", "policy"}}
		var (
			named *agent.Page
			err   error
		)
		if withTrust {
			named, _, err = trustSvc.ListWithProfiles(ctx, p, f)
		} else {
			named, err = agents.List(ctx, p, f)
		}
		if err != nil || len(named.Agents) != len(ids) {
			t.Fatalf("named fields: %v, %+v", err, named)
		}
		for _, a := range named.Agents {
			if a.ID == "" || a.Name == "" || a.Policy.Version != 1 || a.Fingerprint != "" || a.OrgID != "" ||
				a.AuthorizedActions != nil || !a.CreatedAt.IsZero() || (a.Status != "") != withTrust {
				t.Fatalf("page of name and policy (trust %v): %+v", withTrust, *a)
			}
		}
	}

	// A page's profiles carry updatedAt only when it is asked for.
	for _, fields := range [][]string{{"name", "trust", "trust.score"}, {"name", "trust", "trust.updatedAt"}} {
		_, profiles, err := trustSvc.ListWithProfiles(ctx, p, agent.ListFilter{Window: paging.Window{Limit: 50}, Fields: fields})
		if err != nil {
			t.Fatal(err)
		}
		asked := fields[2] == "trust.updatedAt"
		for _, prof := range profiles {
			if prof != nil && (prof.UpdatedAt.IsZero() == asked || prof.Score == 0) {
				t.Fatalf("fields %v: profile %+v", fields, *prof)
			}
		}
	}

	var profiles []*trust.Profile
	var err error
	if _, profiles, err = trustSvc.ListWithProfiles(ctx, p, agent.ListFilter{Window: paging.Window{Limit: 50}}); err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, p := range profiles {
		if p == nil {
			missing++
		}
	}
	if missing != 1 {
		t.Fatalf("%d agents without a profile, want 1 (its counters deleted)", missing)
	}
	if _, _, err := trustSvc.ListWithProfiles(ctx, p, agent.ListFilter{Window: paging.Window{Limit: 0}}); failure.CodeOf(err) != failure.ValidationFailed {
		t.Fatalf("limit 0: %v", err)
	}
	if _, _, err := trustSvc.ListWithProfiles(ctx, p, agent.ListFilter{Window: paging.Window{Limit: 5, After: "bogus"}}); failure.CodeOf(err) != failure.ValidationFailed {
		t.Fatalf("bad cursor: %v", err)
	}
}

func deref(agents []*agent.Agent) []agent.Agent {
	out := make([]agent.Agent, len(agents))
	for i, a := range agents {
		out[i] = *a
	}
	return out
}
