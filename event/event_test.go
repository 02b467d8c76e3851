package event_test

import (
	"slices"
	"testing"

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
	want := []string{"agent.registered", "agent.updated", "agent.suspended", "agent.reinstated", "transaction.completed",
		"transaction.reversed", "trust.score_changed", "dispute.filed", "dispute.withdrawn", "webhook.disabled"}
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
