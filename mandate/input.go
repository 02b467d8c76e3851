package mandate

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/plaintext"
)

// Bounds of a mandate's input.
const (
	// MaxLifetime is the longest a mandate may run: expiresAt at most this long after creation.
	MaxLifetime = 90 * 24 * time.Hour
	// MaxDescriptionLength bounds the description, in characters.
	MaxDescriptionLength = 1000
	// MaxListLength bounds the actions and each counterparty list.
	MaxListLength = 100
	// MaxReasonLength bounds a revocation's reason, in characters.
	MaxReasonLength = 1000
)

// CreateInput grants a mandate to one of the caller's agents.
type CreateInput struct {
	AgentID            string
	Description        string
	Actions            []string
	CounterpartyAgents []string
	CounterpartyOrgs   []string
	MaxPerTransaction  *money.Amount
	Budget             money.Amount
	MaxUses            *int
	NotBefore          *time.Time
	ExpiresAt          time.Time
}

// Grantee is what the input rules need of the agent a mandate is for.
type Grantee struct {
	AuthorizedActions []string
	Currency          money.Currency
}

// ValidateAgentID is ValidationFailed on input.agentId unless s is an agent id.
func ValidateAgentID(s string) error {
	if !id.Has(s, id.Agent) {
		return failure.Invalid("input.agentId", "must be an agent id (agent_…)")
	}
	return nil
}

// Validate checks in for agent g at now, the moment of creation, and
// returns ValidationFailed naming every bad input.* field: actions a
// non-empty subset of g's authorized actions, expiresAt after now and at
// most MaxLifetime after it, notBefore before expiresAt, budget and
// maxPerTransaction positive amounts in g's currency, maxUses at least 1,
// counterparties agent and organization ids.
func (in CreateInput) Validate(now time.Time, g Grantee) error {
	var f failure.Fields
	if n := utf8.RuneCountInString(in.Description); strings.TrimSpace(in.Description) == "" || n > MaxDescriptionLength {
		f.Add("input.description", "must be 1 to %d characters and not blank", MaxDescriptionLength)
	} else if !plaintext.Text(in.Description) {
		f.Add("input.description", "must be valid UTF-8 without control characters other than tab and line breaks")
	}
	validateActions(&f, in.Actions, g.AuthorizedActions)
	validateIDs(&f, "input.counterpartyAgents", in.CounterpartyAgents, id.Agent, "an agent id (agent_…)")
	validateIDs(&f, "input.counterpartyOrgs", in.CounterpartyOrgs, id.Org, "an organization id (org_…)")
	validateAmount(&f, "input.budget", &in.Budget, g.Currency)
	validateAmount(&f, "input.maxPerTransaction", in.MaxPerTransaction, g.Currency)
	if in.MaxUses != nil && *in.MaxUses < 1 {
		f.Add("input.maxUses", "must be at least 1")
	}
	switch {
	case !in.ExpiresAt.After(now):
		f.Add("input.expiresAt", "must be in the future")
	case in.ExpiresAt.After(now.Add(MaxLifetime)):
		f.Add("input.expiresAt", "must be at most 90 days after creation (at most %s)", now.Add(MaxLifetime).UTC().Format(time.RFC3339))
	}
	if in.NotBefore != nil && !in.NotBefore.Before(in.ExpiresAt) {
		f.Add("input.notBefore", "must be before expiresAt")
	}
	return f.Err()
}

func validateActions(f *failure.Fields, actions, authorized []string) {
	const field = "input.actions"
	switch {
	case len(actions) == 0:
		f.Add(field, "must list at least one of the agent's authorized actions")
		return
	case len(actions) > MaxListLength:
		f.Add(field, "must list at most %d actions", MaxListLength)
		return
	}
	for i, a := range actions {
		at := field + "[" + strconv.Itoa(i) + "]"
		switch {
		case !slices.Contains(authorized, a):
			f.Add(at, "%q is not among the agent's authorized actions (%s)", a, strings.Join(authorized, ", "))
		case slices.Index(actions, a) < i:
			f.Add(at, "%q is listed twice", a)
		}
	}
}

func validateIDs(f *failure.Fields, field string, ids []string, prefix, kind string) {
	if ids == nil {
		return
	}
	switch {
	case len(ids) == 0:
		f.Add(field, "must not be empty; null allows any")
		return
	case len(ids) > MaxListLength:
		f.Add(field, "must list at most %d ids", MaxListLength)
		return
	}
	for i, s := range ids {
		if !id.Has(s, prefix) {
			f.Add(field+"["+strconv.Itoa(i)+"]", "must be %s", kind)
		}
	}
}

func validateAmount(f *failure.Fields, field string, a *money.Amount, cur money.Currency) {
	switch {
	case a == nil:
	case !a.IsPositive():
		f.Add(field, "must be greater than zero")
	default:
		if err := money.ValidateAmount(*a, cur); err != nil {
			f.Add(field, "%s", err)
		}
	}
}

// ValidateReason checks a revocation's optional reason (ValidationFailed on reason).
func ValidateReason(reason *string) error {
	if reason == nil {
		return nil
	}
	if n := utf8.RuneCountInString(*reason); n > MaxReasonLength || !plaintext.Text(*reason) {
		return failure.Invalid("reason", "must be valid UTF-8 of at most %d characters, without control characters other than tab and line breaks", MaxReasonLength)
	}
	return nil
}

// Filter selects a page of the mandates of the caller's organization, newest first.
type Filter struct {
	AgentID       *string
	Status        *Status
	paging.Window // the page (see paging.Window), newest first either way
}

// Validate checks the filter's bounds (ValidationFailed naming the argument).
func (f Filter) Validate() error {
	if err := paging.Check(f.Limit); err != nil {
		return err
	}
	if f.Status != nil && !slices.Contains([]Status{Active, Revoked, Expired, Exhausted}, *f.Status) {
		return failure.Invalid("status", "must be active, revoked, expired or exhausted")
	}
	return nil
}

// Page is one page of mandates.
type Page struct {
	Mandates    []*Mandate
	EndCursor   string
	HasNextPage bool
	// Cursors.At(i) is Mandates[i]'s cursor; HasPreviousPage says rows come before.
	Cursors         paging.RowCursors
	HasPreviousPage bool
}
