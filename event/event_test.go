package event_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

func TestKnown(t *testing.T) {
	t.Parallel()
	for _, typ := range event.Types {
		if !event.Known(typ) {
			t.Errorf("Known(%q) = false", typ)
		}
	}
	for _, typ := range []string{event.WebhookTest, event.WebhookVerification, event.All, "", "agent.deleted", "AGENT.REGISTERED"} {
		if event.Known(typ) {
			t.Errorf("Known(%q) = true", typ)
		}
	}
	// The contract's list, complete.
	want := []string{"agent.registered", "agent.updated", "agent.suspended", "agent.reinstated", "agent.policy_changed", "transaction.completed",
		"transaction.reversed", "transaction.approval_requested", "transaction.declined", "transaction.expired", "trust.score_changed", "dispute.filed", "dispute.withdrawn", "webhook.disabled",
		"mandate.created", "mandate.revoked"}
	if !slices.Equal(event.Types, want) {
		t.Fatalf("Types = %v, want %v", event.Types, want)
	}
}

func TestValidateTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in     []string
		fields []string // nil: valid
	}{
		{in: []string{"*"}},
		{in: []string{"agent.registered"}},
		{in: []string{"agent.reinstated", "dispute.withdrawn", "webhook.disabled"}},
		{in: nil, fields: []string{"input.events"}},
		{in: []string{}, fields: []string{"input.events"}},
		{in: []string{"agent.registered", "nope"}, fields: []string{"input.events[1]"}},
		{in: []string{"*", "agent.registered"}, fields: []string{"input.events[0]"}},
		{in: []string{"webhook.test", "webhook.verification"}, fields: []string{"input.events[0]", "input.events[1]"}},
	} {
		err := event.ValidateTypes("input.events", tc.in)
		if tc.fields == nil {
			if err != nil {
				t.Errorf("%v: %v", tc.in, err)
			}
			continue
		}
		fe := failure.As(err)
		if fe == nil || fe.Code != failure.ValidationFailed {
			t.Errorf("%v: want VALIDATION_FAILED, got %v", tc.in, err)
			continue
		}
		var got []string
		for _, f := range fe.FieldErrors {
			got = append(got, f.Field)
		}
		if !slices.Equal(got, tc.fields) {
			t.Errorf("%v: fields %v, want %v", tc.in, got, tc.fields)
		}
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		filter []string
		typ    string
		want   bool
	}{
		{nil, event.AgentRegistered, true},
		{[]string{"*"}, event.DisputeFiled, true},
		{[]string{event.AgentRegistered}, event.AgentRegistered, true},
		{[]string{event.AgentRegistered}, event.AgentUpdated, false},
	} {
		if got := event.Matches(tc.filter, tc.typ); got != tc.want {
			t.Errorf("Matches(%v, %q) = %v", tc.filter, tc.typ, got)
		}
	}
}

// TestAppendTime: AppendTime writes what FormatTime writes, in and out of
// years 0..9999, in any zone, at millisecond and day boundaries.
func TestAppendTime(t *testing.T) {
	t.Parallel()
	east := time.FixedZone("east", 5*3600+30*60)
	times := []time.Time{{}, time.Unix(0, 0), time.Date(2026, 11, 23, 23, 59, 59, 999_999_999, east),
		time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 1_000_000, time.UTC)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 10_000 {
		times = append(times, time.Unix(r.Int64N(400_000_000_000)-200_000_000_000, r.Int64N(1e9)).In(east))
	}
	for _, at := range times {
		if got, want := string(event.AppendTime([]byte("x"), at)), "x"+event.FormatTime(at); got != want {
			t.Fatalf("%v: %s, want %s", at, got, want)
		}
	}
}
