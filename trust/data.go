package trust

import (
	"strings"

	"github.com/agenttrust/service/event"
)

// ScoreChangedData is the payload of trust.score_changed (snake_case).
type ScoreChangedData struct {
	AgentID            string `json:"agent_id"`
	PreviousScore      int    `json:"previous_score"`
	Score              int    `json:"score"`
	PreviousAssessment string `json:"previous_assessment"`
	Assessment         string `json:"assessment"`
	// Cause is "cause_type:cause_id", as on the snapshot.
	Cause     string `json:"cause"`
	CauseType string `json:"cause_type"`
	CauseID   string `json:"cause_id"`
}

// ScoreChanged builds the payload of a score change with its cause ("type:id").
func ScoreChanged(agentID string, prevScore int, prevAssessment string, r Result, cause string) ScoreChangedData {
	typ, causeID, _ := strings.Cut(cause, ":")
	return ScoreChangedData{AgentID: agentID, PreviousScore: prevScore, Score: r.Score,
		PreviousAssessment: prevAssessment, Assessment: r.Assessment, Cause: cause, CauseType: typ, CauseID: causeID}
}

// DisputeData is the payload of dispute.filed and dispute.withdrawn (snake_case).
type DisputeData struct {
	ID            string   `json:"id"`
	DisputeID     string   `json:"dispute_id"`
	AgentID       string   `json:"agent_id"`
	ReporterOrgID string   `json:"reporter_org_id"`
	Reason        string   `json:"reason"`
	EvidenceIDs   []string `json:"evidence_ids"`
	Status        string   `json:"status"`
	CreatedAt     string   `json:"created_at"`
}

// DisputeFiledEvent is the data of a dispute.filed event.
type DisputeFiledEvent struct{ DisputeData }

// DisputeWithdrawnEvent is the data of a dispute.withdrawn event.
type DisputeWithdrawnEvent struct{ DisputeData }

// EventType names the event type each payload is written under.
func (DisputeFiledEvent) EventType() string { return event.DisputeFiled }

// EventType names the event type each payload is written under.
func (DisputeWithdrawnEvent) EventType() string { return event.DisputeWithdrawn }

// EventType names the event type the payload is written under.
func (ScoreChangedData) EventType() string { return event.TrustScoreChanged }

// ToData converts a dispute for an event payload.
func (d *Dispute) ToData() DisputeData {
	return DisputeData{ID: d.ID, DisputeID: d.ID, AgentID: d.AgentID, ReporterOrgID: d.ReporterOrg,
		Reason: d.Reason, EvidenceIDs: d.EvidenceIDs, Status: string(d.Status), CreatedAt: event.FormatTime(d.CreatedAt)}
}
