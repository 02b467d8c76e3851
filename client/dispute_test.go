package client_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/agenttrust/service/client"
)

func TestDisputes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := b.otherOrg()
	payer := b.register(b.c, "payer", "100")
	theirs := b.register(other, "theirs", "100")
	var filed []string
	for i := range 3 {
		tx := b.execute(payer.ID, theirs.ID, "1")
		d, err := b.c.Trust.Report(b.ctx, client.ReportInput{AgentID: theirs.ID, Reason: "dispute", EvidenceIDs: []string{tx.ID}})
		if err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		filed = append([]string{d.ID}, filed...) // newest first
	}

	got, err := b.c.Trust.GetDispute(b.ctx, filed[0])
	if err != nil || got.ID != filed[0] || got.Status != client.DisputeOpen || got.AgentID != theirs.ID {
		t.Fatalf("get: %+v %v", got, err)
	}
	// The reported organization sees it too, but may not withdraw it.
	if _, err := other.Trust.GetDispute(b.ctx, filed[0]); err != nil {
		t.Fatalf("get by the reported organization: %v", err)
	}
	if _, err := other.Trust.WithdrawDispute(b.ctx, filed[0]); !errors.Is(err, client.ErrForbidden) {
		t.Fatalf("withdraw by the reported organization: %v", err)
	}

	w, err := b.c.Trust.WithdrawDispute(b.ctx, filed[1])
	if err != nil || w.Status != client.DisputeWithdrawn {
		t.Fatalf("withdraw: %+v %v", w, err)
	}
	if _, err := b.c.Trust.WithdrawDispute(b.ctx, filed[1]); !errors.Is(err, client.ErrConflict) {
		t.Fatalf("second withdraw: %v", err)
	}

	var all []string
	for d, err := range b.c.Trust.ListAllDisputes(b.ctx, client.ListDisputesParams{AgentID: theirs.ID, Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, d.ID)
	}
	if !slices.Equal(all, filed) {
		t.Fatalf("all disputes %v, want %v", all, filed)
	}
	page, err := b.c.Trust.ListDisputes(b.ctx, client.ListDisputesParams{Status: client.DisputeOpen})
	if err != nil || page.TotalCount != 2 || len(page.Disputes) != 2 || page.Disputes[0].ID != filed[0] || page.Disputes[1].ID != filed[2] {
		t.Fatalf("open disputes: %+v %v", page, err)
	}
}
