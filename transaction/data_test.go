package transaction_test

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/transaction"
)

var snakeCase = regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`)

// TestEventPayloads pins the data of both transaction.* events: type, keys
// (snake_case) and the encoding of each value.
func TestEventPayloads(t *testing.T) {
	t.Parallel()
	orig, reason, memo := "tx_orig", "duplicate", "invoice #7"
	tx := transaction.Transaction{ID: "tx_rev", FromAgent: "agent_b", ToAgent: "agent_a", FromOrg: "org_b", ToOrg: "org_a",
		Action: "purchase", Amount: money.MustParse("12.30"), Currency: "USD", Memo: &memo, Status: transaction.Reversed,
		ReversalOf: &orig, Reason: &reason, CreatedAt: time.Date(2026, 11, 21, 19, 51, 27, 123456789, time.UTC)}
	want := map[string]string{
		"id": `"tx_rev"`, "from_agent": `"agent_b"`, "to_agent": `"agent_a"`, "action": `"purchase"`, "amount": `12.3`,
		"currency": `"USD"`, "memo": `"invoice #7"`, "status": `"reversed"`, "reversal_of": `"tx_orig"`,
		"reversed_by": `null`, "reason": `"duplicate"`, "created_at": `"2026-11-21T19:51:27.123Z"`,
		"expires_at": `null`, "decided_at": `null`, "decided_by": `null`,
	}
	mdt := "mdt_m"
	for _, tc := range []struct {
		p     event.Payload
		typ   string
		extra map[string]string
	}{
		{transaction.CompletedEvent{Data: tx.ToData(), MandateID: &mdt}, "transaction.completed", map[string]string{"mandate_id": `"mdt_m"`}},
		{transaction.ReversedEvent{Data: tx.ToData()}, "transaction.reversed", nil},
		{transaction.ApprovalRequestedEvent{Data: tx.ToData(), MandateID: &mdt}, "transaction.approval_requested", map[string]string{"mandate_id": `"mdt_m"`}},
		{transaction.ApprovalRequestedEvent{Data: tx.ToData()}, "transaction.approval_requested", map[string]string{"mandate_id": `null`}},
		{transaction.DeclinedEvent{Data: tx.ToData()}, "transaction.declined", nil},
		{transaction.ExpiredEvent{Data: tx.ToData()}, "transaction.expired", nil},
	} {
		want := maps.Clone(want)
		maps.Copy(want, tc.extra)
		if tc.p.EventType() != tc.typ || !event.Known(tc.typ) {
			t.Errorf("%T: EventType %q, want %q", tc.p, tc.p.EventType(), tc.typ)
		}
		raw, err := json.Marshal(tc.p)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		var got []string
		for k, v := range m {
			if !snakeCase.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", tc.typ, k)
			}
			if want[k] != string(v) {
				t.Errorf("%s: %s = %s, want %s", tc.typ, k, v, want[k])
			}
			got = append(got, k)
		}
		if len(got) != len(want) {
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range want {
					if !yield(k) {
						return
					}
				}
			})
			slices.Sort(got)
			t.Errorf("%s keys %v, want %v", tc.typ, got, keys)
		}
	}
}

// TestDecisionData pins how a decided transaction's expiry and decision
// encode: RFC 3339 in UTC with milliseconds, and the deciding key's id.
func TestDecisionData(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 6, 0, 0, 987654321, time.FixedZone("x", 3600))
	key := "key_admin"
	tx := transaction.Transaction{ID: "tx_1", Status: transaction.Declined, ExpiresAt: &at, DecidedAt: &at, DecidedBy: &key}
	raw, err := json.Marshal(transaction.DeclinedEvent{Data: tx.ToData()})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"status": `"declined"`, "expires_at": `"2026-11-27T05:00:00.987Z"`,
		"decided_at": `"2026-11-27T05:00:00.987Z"`, "decided_by": `"key_admin"`} {
		if string(m[k]) != want {
			t.Errorf("%s = %s, want %s", k, m[k], want)
		}
	}
}
