package paging_test

import (
	"testing"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/paging"
)

func TestArgsWindow(t *testing.T) {
	t.Parallel()
	n := func(i int) *int { return &i }
	s := func(v string) *string { return &v }
	def := n(paging.Default) // the schema's default fills limit when it is not written
	for _, tc := range []struct {
		name  string
		args  paging.Args
		want  paging.Window
		field string // the ValidationFailed field; "" when valid
	}{
		{"defaults", paging.Args{Limit: def}, paging.Window{Limit: 50}, ""},
		{"limit", paging.Args{Limit: n(7), LimitSet: true, After: s("c")}, paging.Window{Limit: 7, After: "c"}, ""},
		{"first", paging.Args{Limit: def, First: n(9)}, paging.Window{Limit: 9}, ""},
		{"limit and first", paging.Args{Limit: n(9), LimitSet: true, First: n(9)}, paging.Window{}, "first"},
		{"first 0", paging.Args{Limit: def, First: n(0)}, paging.Window{}, "first"},
		{"limit 201", paging.Args{Limit: n(201), LimitSet: true}, paging.Window{}, "limit"},
		{"last", paging.Args{Limit: def, Last: n(3), Before: s("c")}, paging.Window{Limit: 3, Before: "c", Backward: true}, ""},
		{"before alone", paging.Args{Limit: def, Before: s("c")}, paging.Window{Limit: 50, Before: "c", Backward: true}, ""},
		{"last alone", paging.Args{Limit: def, Last: n(200)}, paging.Window{Limit: 200, Backward: true}, ""},
		{"last 201", paging.Args{Limit: def, Last: n(201)}, paging.Window{}, "last"},
		{"last and after", paging.Args{Limit: def, Last: n(2), After: s("c")}, paging.Window{}, "last"},
		{"before and limit", paging.Args{Limit: n(2), LimitSet: true, Before: s("c")}, paging.Window{}, "last"},
		{"last and first", paging.Args{Limit: def, Last: n(2), First: n(2)}, paging.Window{}, "last"},
		{"empty cursors are absent", paging.Args{Limit: def, After: s(""), Before: s("")}, paging.Window{Limit: 50}, ""},
	} {
		got, err := tc.args.Window()
		if tc.field == "" && (err != nil || got != tc.want) {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
		if fe := failure.As(err); tc.field != "" && (fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != tc.field) {
			t.Errorf("%s: %v, want VALIDATION_FAILED on %s", tc.name, err, tc.field)
		}
	}
}

func TestWindowFlags(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		w               paging.Window
		more            bool
		hasNext, hasPre bool
	}{
		{paging.Window{}, false, false, false},
		{paging.Window{}, true, true, false},
		{paging.Window{After: "c"}, false, false, true},
		{paging.Window{Backward: true}, true, false, true},
		{paging.Window{Backward: true, Before: "c"}, false, true, false},
	} {
		if next, prev := tc.w.Flags(tc.more); next != tc.hasNext || prev != tc.hasPre {
			t.Errorf("%+v more %v: hasNext %v hasPrevious %v", tc.w, tc.more, next, prev)
		}
	}
}
