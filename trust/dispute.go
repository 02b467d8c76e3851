package trust

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/plaintext"
)

// DisputeStatus is a dispute's place in its lifecycle.
type DisputeStatus string

// Dispute statuses.
const (
	// StatusOpen: filed, counting against the agent.
	StatusOpen DisputeStatus = "open"
	// StatusWithdrawn: withdrawn by its reporter; it no longer counts.
	StatusWithdrawn DisputeStatus = "withdrawn"
)

// Dispute is a report against an agent, backed by transactions as evidence.
type Dispute struct {
	ID          string
	AgentID     string
	ReporterOrg string
	Reason      string
	EvidenceIDs []string
	Status      DisputeStatus
	CreatedAt   time.Time
	// AgentOrg is the reported agent's organization (not shown; it decides visibility).
	AgentOrg string
}

// ReportInput files a dispute against an agent.
type ReportInput struct {
	AgentID     string
	Reason      string
	EvidenceIDs []string
}

// Limits on a report.
const (
	MaxReasonLength = 2000
	MaxEvidence     = 100
)

// Validate checks a report's shape; errors are ValidationFailed with one
// entry per bad field (evidence ids by index).
func (in ReportInput) Validate() error {
	var f failure.Fields
	if !id.Has(in.AgentID, id.Agent) {
		f.Add("input.agentId", "must be an agent id (agent_…)")
	}
	n := utf8.RuneCountInString(in.Reason)
	if strings.TrimSpace(in.Reason) == "" || n > MaxReasonLength || !utf8.ValidString(in.Reason) {
		f.Add("input.reason", "must be 1 to %d characters and not blank (got %d)", MaxReasonLength, n)
	} else if !plaintext.Text(in.Reason) {
		f.Add("input.reason", "must not contain control characters other than tab and line breaks")
	}
	switch {
	case len(in.EvidenceIDs) == 0:
		f.Add("input.evidenceIds", "must list at least one transaction of the reported agent")
	case len(in.EvidenceIDs) > MaxEvidence:
		f.Add("input.evidenceIds", "must list at most %d transactions", MaxEvidence)
	}
	seen := map[string]bool{}
	for i, e := range in.EvidenceIDs {
		if seen[e] {
			f.Add("input.evidenceIds["+strconv.Itoa(i)+"]", "%q is listed twice", e)
		}
		seen[e] = true
	}
	return f.Err()
}

// DisputeFilter selects a page of the disputes filed by or against the
// caller's organization, newest first.
type DisputeFilter struct {
	AgentID       *string
	Status        *DisputeStatus
	paging.Window // the page (see paging.Window), newest first either way
	// Fields are the dispute's fields the page fills, by the API's names
	// (agentId, reason, evidenceIds, ...; unknown names are ignored); the
	// others stay zero, ID always filled. Nil fills them all.
	Fields []string
}

// Validate checks the filter's bounds (ValidationFailed naming the argument).
func (f DisputeFilter) Validate() error {
	if err := paging.Check(f.Limit); err != nil {
		return err
	}
	if f.Status != nil && *f.Status != StatusOpen && *f.Status != StatusWithdrawn {
		return failure.Invalid("status", "must be open or withdrawn")
	}
	return nil
}

// DisputePage is one page of disputes.
type DisputePage struct {
	Disputes    []*Dispute
	EndCursor   string
	HasNextPage bool
	// Cursors.At(i) is Disputes[i]'s cursor; HasPreviousPage says rows come before.
	Cursors         paging.RowCursors
	HasPreviousPage bool
}
