package trust_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/trust"
)

// The snake_case wire shape of every trust event payload, pinned.
func TestPayloadShapes(t *testing.T) {
	t.Parallel()
	r := trust.Result{Score: 612, Assessment: trust.Moderate}
	score, _ := json.Marshal(trust.ScoreChanged("agent_a", 700, trust.Verified, r, "withdrawal:disp_d"))
	want := `{"agent_id":"agent_a","previous_score":700,"score":612,"previous_assessment":"Verified","assessment":"Moderate","cause":"withdrawal:disp_d","cause_type":"withdrawal","cause_id":"disp_d"}`
	if string(score) != want {
		t.Errorf("trust.score_changed:\n got %s\nwant %s", score, want)
	}
	d := &trust.Dispute{ID: "disp_d", AgentID: "agent_a", ReporterOrg: "org_r", Reason: "never delivered",
		EvidenceIDs: []string{"tx_1"}, Status: trust.StatusWithdrawn, CreatedAt: time.Date(2026, 11, 22, 9, 30, 0, 5e6, time.UTC), AgentOrg: "org_a"}
	data, _ := json.Marshal(d.ToData())
	want = `{"id":"disp_d","dispute_id":"disp_d","agent_id":"agent_a","reporter_org_id":"org_r","reason":"never delivered","evidence_ids":["tx_1"],"status":"withdrawn","created_at":"2026-11-22T09:30:00.005Z"}`
	if string(data) != want {
		t.Errorf("dispute.filed / dispute.withdrawn:\n got %s\nwant %s", data, want)
	}
}

func fieldsOf(err error) string {
	fe := failure.As(err)
	if fe == nil {
		return ""
	}
	var names []string
	for _, f := range fe.FieldErrors {
		names = append(names, f.Field)
	}
	return strings.Join(names, ",")
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := trust.ReportInput{AgentID: "agent_x", Reason: "late", EvidenceIDs: []string{"tx_1", "tx_2"}}
	many := make([]string, trust.MaxEvidence+1)
	for i := range many {
		many[i] = "tx_" + strings.Repeat("a", i+1)
	}
	to, one := "agent_x", money.MustParse("1")
	open, bogus := trust.StatusOpen, trust.DisputeStatus("closed")
	tests := []struct {
		name   string
		err    error
		fields string
	}{
		{"report ok", ok.Validate(), ""},
		{"report bad agent", trust.ReportInput{AgentID: "tx_1", Reason: "x", EvidenceIDs: []string{"tx_1"}}.Validate(), "input.agentId"},
		{"report blank reason", trust.ReportInput{AgentID: "agent_x", Reason: " \t", EvidenceIDs: []string{"tx_1"}}.Validate(), "input.reason"},
		{"report long reason", trust.ReportInput{AgentID: "agent_x", Reason: strings.Repeat("é", 2001), EvidenceIDs: []string{"tx_1"}}.Validate(), "input.reason"},
		{"report no evidence", trust.ReportInput{AgentID: "agent_x", Reason: "x"}.Validate(), "input.evidenceIds"},
		{"report too much evidence", trust.ReportInput{AgentID: "agent_x", Reason: "x", EvidenceIDs: many}.Validate(), "input.evidenceIds"},
		{"report duplicate evidence", trust.ReportInput{AgentID: "agent_x", Reason: "x", EvidenceIDs: []string{"tx_1", "tx_2", "tx_1"}}.Validate(), "input.evidenceIds[2]"},
		{"evaluate ok", second(trust.EvaluateInput{AgentID: "agent_a", Amount: one, Currency: "USD"}.Validate()), ""},
		{"evaluate JPY places", second(trust.EvaluateInput{AgentID: "agent_a", Amount: money.MustParse("1.5"), Currency: "JPY"}.Validate()), ""},
		{"evaluate bad currency", second(trust.EvaluateInput{AgentID: "agent_a", Amount: one, Currency: "usd"}.Validate()), "input.currency"},
		{"evaluate to itself", second(trust.EvaluateInput{AgentID: "agent_x", Amount: one, Currency: "USD", ToAgent: &to}.Validate()), "input.toAgent"},
		{"evaluate zero", second(trust.EvaluateInput{AgentID: "agent_a", Currency: "USD"}.Validate()), "input.amount"},
		{"evaluate negative, bad currency", second(trust.EvaluateInput{AgentID: "agent_a", Amount: money.MustParse("-5"), Currency: "usd"}.Validate()),
			"input.currency,input.amount"},
		{"evaluate too large", second(trust.EvaluateInput{AgentID: "agent_a", Amount: money.AmountFromInt(1e16), Currency: "USD"}.Validate()), "input.amount"},
		{"batch ok", trust.ValidateBatch([]string{"agent_a"}), ""},
		{"batch empty", trust.ValidateBatch(nil), "agentIds"},
		{"batch 101", trust.ValidateBatch(make([]string, 101)), "agentIds"},
		{"filter ok", trust.DisputeFilter{Window: paging.Window{Limit: 200}, Status: &open}.Validate(), ""},
		{"filter limit 0", trust.DisputeFilter{Window: paging.Window{Limit: 0}}.Validate(), "limit"},
		{"filter limit 201", trust.DisputeFilter{Window: paging.Window{Limit: 201}}.Validate(), "limit"},
		{"filter bad status", trust.DisputeFilter{Window: paging.Window{Limit: 5}, Status: &bogus}.Validate(), "status"},
	}
	for _, tt := range tests {
		if got := fieldsOf(tt.err); got != tt.fields || (tt.fields == "") != (tt.err == nil) {
			t.Errorf("%s: fields %q (err %v), want %q", tt.name, got, tt.err, tt.fields)
		}
	}
}

func second[T any](_ T, err error) error { return err }
