package event_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/agenttrust/service/event"
	"github.com/agenttrust/service/failure"
)

// FuzzParsePosition checks that a parsed position prints back to a string
// that parses to the same position, and that String's output always parses.
func FuzzParsePosition(f *testing.F) {
	for _, s := range []string{"0/0", "1/2", "18446744073709551615/9223372036854775807", "-1/2", "1/-2", "1/", "/1", "1/2/3", "x", "+1/+2", " 1/2"} {
		f.Add(s, uint64(7), int64(3))
	}
	f.Fuzz(func(t *testing.T, s string, xid uint64, seq int64) {
		if p, err := event.ParsePosition(s); err == nil {
			if p.Seq < 0 {
				t.Fatalf("ParsePosition(%q) accepted a negative sequence: %+v", s, p)
			}
			q, err := event.ParsePosition(p.String())
			if err != nil || q != p {
				t.Fatalf("ParsePosition(%q) = %+v; its String %q re-parses to %+v, %v", s, p, p.String(), q, err)
			}
		}
		if seq < 0 {
			seq = -(seq + 1)
		}
		p := event.Position{XID: xid, Seq: seq}
		if q, err := event.ParsePosition(p.String()); err != nil || q != p {
			t.Fatalf("Position %+v prints %q which parses to %+v, %v", p, p.String(), q, err)
		}
	})
}

// FuzzValidateTypes checks the filter rule against its definition: accepted
// exactly when the list is ["*"] or a non-empty list of known types; a
// refusal is VALIDATION_FAILED naming the field; an accepted filter matches
// precisely the listed types.
func FuzzValidateTypes(f *testing.F) {
	f.Add("*")
	f.Add("agent.registered,transaction.completed")
	f.Add("")
	f.Add("webhook.test")
	f.Add("*,agent.updated")
	f.Add("AGENT.REGISTERED")
	f.Add("agent.registered,agent.registered")
	f.Fuzz(func(t *testing.T, list string) {
		types := strings.Split(list, ",")
		if list == "" {
			types = []string{}
		}
		want := len(types) == 1 && types[0] == event.All
		if !want && len(types) > 0 {
			want = true
			for _, typ := range types {
				want = want && event.Known(typ)
			}
		}
		err := event.ValidateTypes("types", types)
		if (err == nil) != want {
			t.Fatalf("ValidateTypes(%q) = %v, want accepted=%v", types, err, want)
		}
		if err != nil {
			var fe *failure.Error
			if !errors.As(err, &fe) || fe.Code != failure.ValidationFailed || len(fe.FieldErrors) == 0 ||
				!strings.HasPrefix(fe.FieldErrors[0].Field, "types") {
				t.Fatalf("ValidateTypes(%q) = %#v, want VALIDATION_FAILED on types", types, err)
			}
			return
		}
		for _, typ := range append(event.Types, event.WebhookTest, "x") {
			listed := types[0] == event.All
			for _, u := range types {
				listed = listed || u == typ
			}
			if event.Matches(types, typ) != listed {
				t.Fatalf("Matches(%q, %q) = %v", types, typ, !listed)
			}
		}
	})
}
