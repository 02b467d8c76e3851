// Package agent holds the agent domain: the Agent type, input validation, the
// identity fingerprint and the hash-linked audit chain. It has no database code.
package agent

import (
	"context"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
	"github.com/agenttrust/service/paging"
	"github.com/agenttrust/service/plaintext"
	"github.com/agenttrust/service/policy"
)

// Environment separates test agents from live ones; agents only transact within one.
type Environment string

// The environments of the contract.
const (
	Sandbox    Environment = "sandbox"
	Production Environment = "production"
)

// Status is an agent's lifecycle state.
type Status string

// The agent statuses of the contract.
const (
	Active    Status = "active"
	Suspended Status = "suspended"
)

// Agent is an autonomous actor registered by an organization.
type Agent struct {
	ID                string
	OrgID             string
	Name              string
	AuthorizedActions []string
	SpendingLimit     money.Amount
	DailyLimit        *money.Amount
	// Policy is the spend policy without its rolling day entry, which
	// DailyLimit holds (SpendPolicy joins them).
	Policy      policy.SpendPolicy
	Currency    money.Currency
	Environment Environment
	Status      Status
	Fingerprint string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Limits on agent input.
const (
	MaxNameLength   = 200
	MaxActions      = 100
	MaxReasonLength = 2000 // of a suspension or reinstatement
)

var actionPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_.:-]{0,63}$`)

// RegisterInput is what an organization supplies to register an agent.
type RegisterInput struct {
	Name              string
	AuthorizedActions []string
	SpendingLimit     money.Amount
	DailyLimit        *money.Amount
	Currency          string
	Environment       Environment
}

// Validate checks every field and returns a ValidationFailed error naming each
// bad one by its input path (input.name, input.authorizedActions[2], ...).
func (in RegisterInput) Validate() (money.Currency, error) {
	var f failure.Fields
	validateName(&f, in.Name)
	validateActions(&f, in.AuthorizedActions)
	cur, err := money.ParseCurrency(in.Currency)
	if err != nil {
		f.Add("input.currency", "%s", err.Error())
	}
	validateLimit(&f, "input.spendingLimit", in.SpendingLimit, cur)
	if in.DailyLimit != nil {
		validateLimit(&f, "input.dailyLimit", *in.DailyLimit, cur)
	}
	if in.Environment != Sandbox && in.Environment != Production {
		f.Add("input.environment", "must be sandbox or production")
	}
	return cur, f.Err()
}

// UpdateInput changes an agent's mutable identity fields; nil means unchanged.
type UpdateInput struct {
	Name          *string
	SpendingLimit *money.Amount
	// DailyLimit sets the daily cap; ClearDailyLimit (an explicit null) removes it.
	DailyLimit      *money.Amount
	ClearDailyLimit bool
}

// Validate checks the fields present against the agent's currency.
func (in UpdateInput) Validate(cur money.Currency) error {
	var f failure.Fields
	if in.Name != nil {
		validateName(&f, *in.Name)
	}
	if in.SpendingLimit != nil {
		validateLimit(&f, "input.spendingLimit", *in.SpendingLimit, cur)
	}
	if in.DailyLimit != nil {
		validateLimit(&f, "input.dailyLimit", *in.DailyLimit, cur)
	}
	return f.Err()
}

// Apply returns a copy of a with the update applied and the names of the
// identity fields whose values actually changed.
func (in UpdateInput) Apply(a Agent) (Agent, []string) {
	var changed []string
	if in.Name != nil && *in.Name != a.Name {
		a.Name = *in.Name
		changed = append(changed, "name")
	}
	if in.SpendingLimit != nil && in.SpendingLimit.Cmp(a.SpendingLimit) != 0 {
		a.SpendingLimit = *in.SpendingLimit
		changed = append(changed, "spending_limit")
	}
	switch {
	case in.DailyLimit != nil && (a.DailyLimit == nil || in.DailyLimit.Cmp(*a.DailyLimit) != 0):
		d := *in.DailyLimit
		a.DailyLimit = &d
		changed = append(changed, "daily_limit")
	case in.DailyLimit == nil && in.ClearDailyLimit && a.DailyLimit != nil:
		a.DailyLimit = nil
		changed = append(changed, "daily_limit")
	}
	if slices.Contains(changed, "daily_limit") {
		a.Policy.Version++ // dailyLimit is the policy's rolling day entry
	}
	a.Fingerprint = Fingerprint(a)
	return a, changed
}

func validateName(f *failure.Fields, name string) {
	n := utf8.RuneCountInString(name)
	switch {
	case !utf8.ValidString(name):
		f.Add("input.name", "must be valid UTF-8")
	case strings.TrimSpace(name) == "":
		f.Add("input.name", "must not be blank")
	case n > MaxNameLength:
		f.Add("input.name", "must be at most %d characters (got %d)", MaxNameLength, n)
	case !plaintext.Line(name):
		f.Add("input.name", "must not contain control characters")
	}
}

func validateActions(f *failure.Fields, actions []string) {
	if len(actions) == 0 {
		f.Add("input.authorizedActions", "must list at least one action")
		return
	}
	if len(actions) > MaxActions {
		f.Add("input.authorizedActions", "must list at most %d actions (got %d)", MaxActions, len(actions))
		return
	}
	seen := make(map[string]bool, len(actions))
	for i, a := range actions {
		field := "input.authorizedActions[" + strconv.Itoa(i) + "]"
		switch {
		case !actionPattern.MatchString(a):
			f.Add(field, "%q is not an identifier: start with a letter, then up to 63 letters, digits, '_', '.', ':' or '-'", a)
		case seen[a]:
			f.Add(field, "%q is listed twice", a)
		}
		seen[a] = true
	}
}

// validateLimit checks a limit in cur, or only its sign and size when cur
// is not a currency (the currency's own error names that).
func validateLimit(f *failure.Fields, field string, a money.Amount, cur money.Currency) {
	var err error
	if cur.IsActive() {
		err = money.ValidateAmount(a, cur)
	} else {
		err = money.ValidatePositive(a)
	}
	if err != nil {
		f.Add(field, "%s", err.Error())
	}
}

// ValidateReason checks the optional reason of a suspension or reinstatement:
// at most MaxReasonLength characters of valid UTF-8, without control
// characters other than tab and line breaks (NUL above all: the driver drops
// it and jsonb refuses it). It returns a ValidationFailed error on field
// "reason", or nil.
func ValidateReason(reason *string) error {
	if reason == nil {
		return nil
	}
	if !utf8.ValidString(*reason) || utf8.RuneCountInString(*reason) > MaxReasonLength {
		return failure.Invalid("reason", "must be valid UTF-8 of at most %d characters", MaxReasonLength)
	}
	if !plaintext.Text(*reason) {
		return failure.Invalid("reason", "must not contain control characters other than tab and line breaks")
	}
	return nil
}

// ListFilter selects a page of an organization's agents, newest first.
type ListFilter struct {
	Status        *Status
	paging.Window // the page (see paging.Window), newest first either way
	// Fields are the agent's fields the page fills, by the API's names
	// (the schema's name, spendingLimit, policy, ...; those of its trust as
	// trust.score, trust.updatedAt, ...; unknown names are ignored); the
	// others stay zero, ID always filled. Nil fills them all.
	Fields []string
}

// Page is one page of agents.
type Page struct {
	Agents      []*Agent
	EndCursor   string
	HasNextPage bool
	// Cursors.At(i) is Agents[i]'s cursor; HasPreviousPage says rows come before.
	Cursors         paging.RowCursors
	HasPreviousPage bool
}

// ChainPage selects the audit entries with Sequence > After, at most Limit of them.
type ChainPage struct{ After, Limit int }

// MaxChainPage is the largest page of an audit chain; DefaultChainPage the default.
const (
	MaxChainPage     = 1000
	DefaultChainPage = 500
)

// Validate checks the page bounds: After ≥ 0, Limit 1..MaxChainPage.
func (p ChainPage) Validate() error {
	var f failure.Fields
	if p.After < 0 {
		f.Add("after", "must be 0 or more (got %d)", p.After)
	}
	if p.Limit < 1 || p.Limit > MaxChainPage {
		f.Add("limit", "must be between 1 and %d (got %d)", MaxChainPage, p.Limit)
	}
	return f.Err()
}

// Verification is the outcome of re-checking an agent's stored identity.
type Verification struct {
	Verified        bool
	Fingerprint     string
	AuditChainValid bool
}

// Service manages agents. Every method acts for the principal p and sees
// only p's organization's agents: another organization's agent is NotFound, exactly as
// an unknown id. Errors a caller may see are *failure.Error values; any other
// error is an outage or a bug, shown only as Internal.
type Service interface {
	// Register stores a new active agent. ValidationFailed names each bad
	// input.* field (RegisterInput.Validate).
	Register(ctx context.Context, p auth.Principal, in RegisterInput) (*Agent, error)
	// Update changes identity fields and the fingerprint. NotFound;
	// ValidationFailed (UpdateInput.Validate). Changing nothing writes nothing.
	Update(ctx context.Context, p auth.Principal, id string, in UpdateInput) (*Agent, error)
	// Suspend moves an active agent to suspended. NotFound; ValidationFailed
	// for a reason over MaxReasonLength; Conflict if already suspended.
	Suspend(ctx context.Context, p auth.Principal, id string, reason *string) (*Agent, error)
	// Reinstate moves a suspended agent back to active. NotFound;
	// ValidationFailed for a reason over MaxReasonLength; Conflict if active.
	Reinstate(ctx context.Context, p auth.Principal, id string, reason *string) (*Agent, error)
	// SetPolicy changes the agent's spend policy (see PolicyInput), bumps
	// its version and fingerprint, and records agent.policy_changed on the
	// chain and in the event log. NotFound; ValidationFailed
	// (PolicyInput.Validate); Conflict when expectedVersion is set and is
	// not the current version. Changing nothing writes nothing.
	SetPolicy(ctx context.Context, p auth.Principal, id string, in PolicyInput, expectedVersion *int) (*Agent, error)
	// Get returns one agent. NotFound.
	Get(ctx context.Context, p auth.Principal, id string) (*Agent, error)
	// GetMany returns the organization's agents among ids, in one read;
	// the others are absent.
	GetMany(ctx context.Context, p auth.Principal, ids []string) ([]*Agent, error)
	// List returns a page, newest first. ValidationFailed for a limit outside
	// 1..paging.Max or an after cursor this list did not return.
	List(ctx context.Context, p auth.Principal, f ListFilter) (*Page, error)
	// Count counts the organization's agents, optionally of one status.
	Count(ctx context.Context, p auth.Principal, status *Status) (int, error)
	// Verify re-checks the stored fingerprint and the chain in one snapshot.
	// NotFound.
	Verify(ctx context.Context, p auth.Principal, id string) (*Verification, error)
	// AuditChains returns a page of the chains of the given own-organization
	// agents in chain order (see ChainPage); ValidationFailed for a bad page.
	AuditChains(ctx context.Context, p auth.Principal, ids []string, page ChainPage) (map[string][]AuditEntry, error)
	// AuditChain returns a page of one own-organization agent's chain
	// (NotFound otherwise, ValidationFailed for a bad page).
	AuditChain(ctx context.Context, p auth.Principal, id string, page ChainPage) ([]AuditEntry, error)
}
