package client_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/client"
)

// Mandates page both ways like the other lists: a backward walk returns the
// forward walk's mandates in reverse, filters hold backwards too, a page
// before a cursor is the mandates just before it, and a before that is no
// cursor is refused.
func TestMandatesPageBothWays(t *testing.T) {
	t.Parallel()
	b := setup(t)
	buyer, other := b.register(b.c, "buyer", "100"), b.register(b.c, "other", "100")
	var created []string // oldest first
	for i := range 7 {
		agentID := buyer.ID
		if i%3 == 2 {
			agentID = other.ID
		}
		m, err := b.c.Mandates.Create(b.ctx, client.CreateMandateInput{AgentID: agentID, Description: fmt.Sprintf("m%d", i),
			Actions: []string{"purchase"}, Budget: dec("10"), ExpiresAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		created = append(created, m.ID)
	}
	if _, err := b.c.Mandates.Revoke(b.ctx, created[1], ""); err != nil {
		t.Fatal(err)
	}
	newestFirst := slices.Clone(created)
	slices.Reverse(newestFirst)
	id := func(m client.Mandate) string { return m.ID }
	for _, tc := range []struct {
		name              string
		forward, backward []string
		want              int
	}{
		{"all", collect(t, b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{Limit: 2}), id),
			collect(t, b.c.Mandates.ListAllBackward(b.ctx, client.ListMandatesParams{Last: 3}), id), 7},
		{"all, default size", collect(t, b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{}), id),
			collect(t, b.c.Mandates.ListAllBackward(b.ctx, client.ListMandatesParams{}), id), 7},
		{"one agent's", collect(t, b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{AgentID: buyer.ID, Limit: 2}), id),
			collect(t, b.c.Mandates.ListAllBackward(b.ctx, client.ListMandatesParams{AgentID: buyer.ID, Last: 2}), id), 5},
		{"active", collect(t, b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{Status: client.MandateActive, Limit: 4}), id),
			collect(t, b.c.Mandates.ListAllBackward(b.ctx, client.ListMandatesParams{Status: client.MandateActive, Last: 4}), id), 6},
	} {
		slices.Reverse(tc.backward)
		if len(tc.forward) != tc.want || !slices.Equal(tc.forward, tc.backward) {
			t.Errorf("%s: forward %v, backward reversed %v, want %d", tc.name, tc.forward, tc.backward, tc.want)
		}
	}
	if all := collect(t, b.c.Mandates.ListAll(b.ctx, client.ListMandatesParams{}), id); !slices.Equal(all, newestFirst) {
		t.Fatalf("forward walk %v, want newest first %v", all, newestFirst)
	}

	first, err := b.c.Mandates.List(b.ctx, client.ListMandatesParams{Limit: 3})
	if err != nil || first.PageInfo.HasPreviousPage || !first.PageInfo.HasNextPage || first.TotalCount != 7 {
		t.Fatalf("first page: %+v %v", first, err)
	}
	next, err := b.c.Mandates.List(b.ctx, client.ListMandatesParams{Limit: 3, After: first.PageInfo.EndCursor})
	if err != nil || len(next.Mandates) != 3 || next.Mandates[0].ID != newestFirst[3] || !next.PageInfo.HasPreviousPage {
		t.Fatalf("second page: %+v %v", next, err)
	}
	prev, err := b.c.Mandates.List(b.ctx, client.ListMandatesParams{Last: 2, Before: next.PageInfo.StartCursor})
	if err != nil || len(prev.Mandates) != 2 || prev.Mandates[0].ID != newestFirst[1] || prev.Mandates[1].ID != newestFirst[2] ||
		!prev.PageInfo.HasPreviousPage || !prev.PageInfo.HasNextPage || prev.TotalCount != 7 {
		t.Fatalf("page before the second: %+v %v, want %v", prev, err, newestFirst[1:3])
	}
	head, err := b.c.Mandates.List(b.ctx, client.ListMandatesParams{Last: 5, Before: next.PageInfo.StartCursor})
	if err != nil || len(head.Mandates) != 3 || head.Mandates[0].ID != newestFirst[0] || head.PageInfo.HasPreviousPage || !head.PageInfo.HasNextPage {
		t.Fatalf("page before the second, larger than what precedes it: %+v %v", head, err)
	}
	tail, err := b.c.Mandates.List(b.ctx, client.ListMandatesParams{Last: 2})
	if err != nil || len(tail.Mandates) != 2 || tail.Mandates[1].ID != created[0] || !tail.PageInfo.HasPreviousPage || tail.PageInfo.HasNextPage {
		t.Fatalf("last page: %+v %v", tail, err)
	}

	var invalid *client.ValidationError
	_, err = b.c.Mandates.List(b.ctx, client.ListMandatesParams{Last: 2, Before: "not-a-cursor"})
	if !errors.As(err, &invalid) || len(invalid.FieldErrors) != 1 || invalid.FieldErrors[0].Field != "before" {
		t.Fatalf("bad before: %v", err)
	}
	_, err = b.c.Mandates.List(b.ctx, client.ListMandatesParams{Limit: 2, Last: 2})
	if !errors.As(err, &invalid) {
		t.Fatalf("limit with last: %v", err)
	}
}
