package resolvers_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agenttrust/service/internal/testkit"
)

type validationCase struct {
	name  string
	input map[string]any
	want  []string // sorted fieldErrors paths
}

func TestRegisterAgentValidation(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	spending, daily := []string{"input.spendingLimit"}, []string{"input.dailyLimit"}
	cases := []validationCase{
		{"name empty", map[string]any{"name": ""}, []string{"input.name"}},
		{"name blank", map[string]any{"name": " \t "}, []string{"input.name"}},
		{"name 201 characters", map[string]any{"name": strings.Repeat("a", 201)}, []string{"input.name"}},
		{"name 201 multi-byte characters", map[string]any{"name": strings.Repeat("é", 201)}, []string{"input.name"}},
		{"name control character", map[string]any{"name": "a\x00b"}, []string{"input.name"}},
		{"actions empty", map[string]any{"authorizedActions": []any{}}, []string{"input.authorizedActions"}},
		{"actions duplicate", map[string]any{"authorizedActions": []any{"purchase", "purchase"}}, []string{"input.authorizedActions[1]"}},
		{"action with space", map[string]any{"authorizedActions": []any{"purchase", "buy stuff"}}, []string{"input.authorizedActions[1]"}},
		{"action starting with digit", map[string]any{"authorizedActions": []any{"1st"}}, []string{"input.authorizedActions[0]"}},
		{"action empty", map[string]any{"authorizedActions": []any{""}}, []string{"input.authorizedActions[0]"}},
		{"spendingLimit zero string", map[string]any{"spendingLimit": "0"}, spending},
		{"spendingLimit zero number", map[string]any{"spendingLimit": 0}, spending},
		{"spendingLimit negative", map[string]any{"spendingLimit": "-1"}, spending},
		{"spendingLimit negative number", map[string]any{"spendingLimit": -5}, spending},
		{"spendingLimit abc", map[string]any{"spendingLimit": "abc"}, spending},
		{"spendingLimit NaN", map[string]any{"spendingLimit": "NaN"}, spending},
		{"spendingLimit 1e400 number", map[string]any{"spendingLimit": json.Number("1e400")}, spending},
		{"spendingLimit 1e400 string", map[string]any{"spendingLimit": "1e400"}, spending},
		{"spendingLimit absurdly large", map[string]any{"spendingLimit": "10000000000000000"}, spending},
		{"spendingLimit 3 decimals in USD", map[string]any{"spendingLimit": "1.005"}, spending},
		{"spendingLimit decimals in JPY", map[string]any{"spendingLimit": "1.5", "currency": "JPY"}, spending},
		{"spendingLimit boolean", map[string]any{"spendingLimit": true}, spending},
		{"dailyLimit zero", map[string]any{"dailyLimit": "0"}, daily},
		{"dailyLimit negative", map[string]any{"dailyLimit": -1}, daily},
		{"dailyLimit abc", map[string]any{"dailyLimit": "abc"}, daily},
		{"dailyLimit 3 decimals in USD", map[string]any{"dailyLimit": "10.001"}, daily},
		{"currency lower case", map[string]any{"currency": "usd"}, []string{"input.currency"}},
		{"currency XXX", map[string]any{"currency": "XXX"}, []string{"input.currency"}},
		{"currency withdrawn DEM", map[string]any{"currency": "DEM"}, []string{"input.currency"}},
		{"currency too short", map[string]any{"currency": "US"}, []string{"input.currency"}},
		{"currency empty", map[string]any{"currency": ""}, []string{"input.currency"}},
		{"several fields", map[string]any{"name": "", "authorizedActions": []any{}, "currency": "usd"},
			[]string{"input.authorizedActions", "input.currency", "input.name"}},
		{"several limits", map[string]any{"name": " ", "spendingLimit": "1.001", "dailyLimit": "0.001"},
			[]string{"input.dailyLimit", "input.name", "input.spendingLimit"}},
		{"several actions", map[string]any{"authorizedActions": []any{"ok", "ok", "not ok"}},
			[]string{"input.authorizedActions[1]", "input.authorizedActions[2]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := b.For(t).Do(b.Key, testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(c.input)})
			if got := r.Fields(t); !slices.Equal(got, c.want) {
				t.Fatalf("fieldErrors %v, want %v (%s)", got, c.want, r.Errors[0].Message)
			}
		})
	}
	if c := b.Agents(b.Key, nil); c.TotalCount != 0 || len(c.Nodes) != 0 {
		t.Fatalf("refused registrations stored %d agents", c.TotalCount)
	}
	if evs := b.Events(b.OrgID); len(evs) != 0 {
		t.Fatalf("refused registrations wrote %d events", len(evs))
	}
}

// A Decimal the scalar refuses names its input path however it was sent.
func TestDecimalErrorPath(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a := b.Register(nil)
	const fields = `name: "x", authorizedActions: ["a"], currency: "USD", environment: sandbox`
	cases := []struct {
		name, query string
		vars        map[string]any
		want        string
	}{
		{"inline string", `mutation { registerAgent(input: {` + fields + `, spendingLimit: "abc"}) { id } }`, nil, "input.spendingLimit"},
		{"inline negative", `mutation { registerAgent(input: {` + fields + `, spendingLimit: -1}) { id } }`, nil, "input.spendingLimit"},
		{"inline exponent overflow", `mutation { registerAgent(input: {` + fields + `, spendingLimit: "1e400"}) { id } }`, nil, "input.spendingLimit"},
		{"inline too precise", `mutation { registerAgent(input: {` + fields + `, spendingLimit: 1.005}) { id } }`, nil, "input.spendingLimit"},
		{"inline daily", `mutation { registerAgent(input: {` + fields + `, spendingLimit: 5, dailyLimit: 0}) { id } }`, nil, "input.dailyLimit"},
		{"aliased inline", `mutation { x: registerAgent(input: {` + fields + `, spendingLimit: "abc"}) { id } }`, nil, "input.spendingLimit"},
		{"scalar variable", `mutation($s: Decimal!) { registerAgent(input: {` + fields + `, spendingLimit: $s}) { id } }`,
			map[string]any{"s": "abc"}, "input.spendingLimit"},
		{"input variable", testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"spendingLimit": "abc"})}, "input.spendingLimit"},
		{"update inline", `mutation($id: ID!) { updateAgent(id: $id, input: {spendingLimit: "abc"}) { id } }`,
			map[string]any{"id": a.ID}, "input.spendingLimit"},
		{"update variable", testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"dailyLimit": "-2"}}, "input.dailyLimit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := b.For(t).Do(b.Key, c.query, c.vars)
			if got := r.Fields(t); !slices.Equal(got, []string{c.want}) {
				t.Fatalf("fieldErrors %v, want [%s]", got, c.want)
			}
			if !strings.Contains(r.Errors[0].Message, c.want) {
				t.Fatalf("message %q does not name %s", r.Errors[0].Message, c.want)
			}
		})
	}
	if c := b.Agents(b.Key, nil); c.TotalCount != 1 {
		t.Fatalf("refused inputs changed the agent count to %d", c.TotalCount)
	}
}

func TestUpdateAgentValidation(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	usd := b.Register(map[string]any{"dailyLimit": "10"})
	jpy := b.Register(map[string]any{"currency": "JPY", "spendingLimit": "1000"})
	events := len(b.Events(b.OrgID))
	cases := []validationCase{
		{"name empty", map[string]any{"name": ""}, []string{"input.name"}},
		{"name blank", map[string]any{"name": "   "}, []string{"input.name"}},
		{"name 201 multi-byte characters", map[string]any{"name": strings.Repeat("日", 201)}, []string{"input.name"}},
		{"spendingLimit zero", map[string]any{"spendingLimit": "0"}, []string{"input.spendingLimit"}},
		{"spendingLimit abc", map[string]any{"spendingLimit": "abc"}, []string{"input.spendingLimit"}},
		{"spendingLimit 3 decimals", map[string]any{"spendingLimit": "1.001"}, []string{"input.spendingLimit"}},
		{"dailyLimit negative", map[string]any{"dailyLimit": "-3"}, []string{"input.dailyLimit"}},
		{"dailyLimit 3 decimals", map[string]any{"dailyLimit": "1.001"}, []string{"input.dailyLimit"}},
		{"several", map[string]any{"name": "", "spendingLimit": "1.001", "dailyLimit": "0.001"},
			[]string{"input.dailyLimit", "input.name", "input.spendingLimit"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := b.For(t).Do(b.Key, testkit.UpdateMutation, map[string]any{"id": usd.ID, "input": c.input})
			if got := r.Fields(t); !slices.Equal(got, c.want) {
				t.Fatalf("fieldErrors %v, want %v", got, c.want)
			}
		})
	}
	r := b.Do(b.Key, testkit.UpdateMutation, map[string]any{"id": jpy.ID, "input": map[string]any{"spendingLimit": "1.5"}})
	if got := r.Fields(t); !slices.Equal(got, []string{"input.spendingLimit"}) {
		t.Fatalf("JPY decimals: fieldErrors %v", got)
	}
	for _, a := range []testkit.Agent{usd, jpy} {
		if got := b.Agent(a.ID); !reflect.DeepEqual(got, a) {
			t.Fatalf("refused updates changed the agent:\n%+v\nwas\n%+v", got, a)
		}
	}
	if got := b.Events(b.OrgID); len(got) != events {
		t.Fatalf("refused updates wrote %d events", len(got)-events)
	}
}

// A Decimal whose syntax is right but whose sign or size is not is judged by
// the input's own validation, beside the other fields: every bad field is
// named at once, whichever mutation or query it came with and however it was sent.
func TestEveryBadFieldNamedBesideADecimal(t *testing.T) {
	t.Parallel()
	b := testkit.New(t)
	a, to := b.Register(nil), b.Register(nil)
	const fields = `authorizedActions: ["a"], currency: "USD", environment: sandbox`
	policyDoc := `mutation($id: ID!, $in: SpendPolicyInput!) { setAgentPolicy(agentId: $id, input: $in) { id } }`
	cases := []struct {
		name, query string
		vars        map[string]any
		want        []string
	}{
		{"register variable", testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": " ", "spendingLimit": "-5"})},
			[]string{"input.name", "input.spendingLimit"}},
		{"register number variable", testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": "", "spendingLimit": -5, "dailyLimit": 0})},
			[]string{"input.dailyLimit", "input.name", "input.spendingLimit"}},
		{"register too large", testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": "", "spendingLimit": "1e20", "currency": "usd"})},
			[]string{"input.currency", "input.name", "input.spendingLimit"}},
		{"register too precise", testkit.RegisterMutation, map[string]any{"input": testkit.RegisterInput(map[string]any{"name": "", "spendingLimit": "0.0000000000000000000000000000001"})},
			[]string{"input.name", "input.spendingLimit"}},
		{"register inline", `mutation { registerAgent(input: {name: "", spendingLimit: -5, ` + fields + `}) { id } }`, nil,
			[]string{"input.name", "input.spendingLimit"}},
		{"update", testkit.UpdateMutation, map[string]any{"id": a.ID, "input": map[string]any{"name": "", "spendingLimit": "-5", "dailyLimit": "0"}},
			[]string{"input.dailyLimit", "input.name", "input.spendingLimit"}},
		{"execute", testkit.ExecuteMutation, map[string]any{"input": map[string]any{"fromAgent": a.ID, "toAgent": to.ID, "action": " ", "amount": "-5", "currency": "USD"}},
			[]string{"input.action", "input.amount"}},
		{"evaluate", testkit.EvaluateQuery, map[string]any{"in": map[string]any{"agentId": a.ID, "toAgent": a.ID, "action": "purchase", "amount": "0", "currency": "USD"}},
			[]string{"input.amount", "input.toAgent"}},
		{"mandate", testkit.CreateMandateMutation, map[string]any{"in": testkit.MandateInput(a, "-5", map[string]any{"description": " ", "maxPerTransaction": "0"})},
			[]string{"input.budget", "input.description", "input.maxPerTransaction"}},
		{"policy", policyDoc, map[string]any{"id": a.ID, "in": map[string]any{"timezone": "Mars/Olympus",
			"spendLimits": []any{map[string]any{"amount": "-5", "window": "day", "mode": "rolling"}},
			"approval":    map[string]any{"above": "0", "expiresAfterSeconds": 1}}},
			[]string{"input.approval.above", "input.approval.expiresAfterSeconds", "input.spendLimits[0].amount", "input.timezone"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := b.For(t).Do(b.Key, c.query, c.vars)
			if got := r.Fields(t); !slices.Equal(got, c.want) {
				t.Fatalf("fieldErrors %v, want %v", got, c.want)
			}
		})
	}
	if c := b.Agents(b.Key, nil); c.TotalCount != 2 {
		t.Fatalf("refused inputs changed the agent count to %d", c.TotalCount)
	}
	for _, x := range []testkit.Agent{a, to} {
		if got := b.Agent(x.ID); !reflect.DeepEqual(got, x) {
			t.Fatalf("refused inputs changed agent %s", x.ID)
		}
	}
}
