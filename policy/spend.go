package policy

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/money"
)

// LimitWindow is the period a SpendLimit covers.
type LimitWindow string

// Limit windows.
const (
	// WindowDay is a day: the trailing 24 hours, or the current calendar day.
	WindowDay LimitWindow = "day"
	// WindowWeek is a week: the trailing 7 days, or the current ISO week.
	WindowWeek LimitWindow = "week"
	// WindowMonth is a month: the trailing 30 days, or the current calendar month.
	WindowMonth LimitWindow = "month"
	// WindowTotal is every transaction the agent ever completed.
	WindowTotal LimitWindow = "total"
)

// WindowMode says whether a window trails now or follows the calendar.
type WindowMode string

// Window modes.
const (
	// ModeRolling is the trailing 24 h, 7 d or 30 d.
	ModeRolling WindowMode = "rolling"
	// ModeCalendar is the current day, ISO week or month in the policy's timezone.
	ModeCalendar WindowMode = "calendar"
)

// Bounds of a policy's settings.
const (
	// MaxVelocitySeconds is the longest velocity window: the longest rolling spend window.
	MaxVelocitySeconds = 30 * 24 * 60 * 60
	// MaxListLength bounds every list of a policy, so one evaluation stays cheap.
	MaxListLength = 100
	// MaxTrustScore is the highest trust score a tier or minimum may name (trust.MaxScore).
	MaxTrustScore = 1000
)

// SpendLimit caps what an agent spends within a window, optionally counting only some actions.
type SpendLimit struct {
	Amount  money.Amount `json:"amount"`
	Window  LimitWindow  `json:"window"`
	Mode    WindowMode   `json:"mode"`    // ignored for WindowTotal
	Actions []string     `json:"actions"` // nil = every action
}

// VelocityLimit allows at most MaxCount completed transactions in any trailing WindowSeconds.
type VelocityLimit struct {
	MaxCount      int      `json:"max_count"`
	WindowSeconds int      `json:"window_seconds"`
	Actions       []string `json:"actions"` // nil = every action
}

// CounterpartyRules are allow and deny lists of receivers; deny wins, and
// empty allow lists allow everyone not denied.
type CounterpartyRules struct {
	AllowAgents []string `json:"allow_agents"`
	DenyAgents  []string `json:"deny_agents"`
	AllowOrgs   []string `json:"allow_orgs"`
	DenyOrgs    []string `json:"deny_orgs"`
}

// TrustTier scales the sender's limits to LimitPercent when its score is at least MinScore.
type TrustTier struct {
	MinScore     int `json:"min_score"`
	LimitPercent int `json:"limit_percent"`
}

// SpendPolicy is an agent's spend policy beyond its per-transaction
// spendingLimit. Its zero value (version aside) restricts nothing. The JSON
// form is the snake_case one of event payloads and audit entries.
type SpendPolicy struct {
	Version              int               `json:"version"`
	Timezone             string            `json:"timezone"` // IANA name for calendar windows; "" means UTC
	SpendLimits          []SpendLimit      `json:"spend_limits"`
	VelocityLimits       []VelocityLimit   `json:"velocity_limits"`
	Counterparties       CounterpartyRules `json:"counterparties"`
	MinCounterpartyScore *int              `json:"min_counterparty_score"`
	TrustTiers           []TrustTier       `json:"trust_tiers"`
	Approval             *ApprovalRule     `json:"approval"`        // nil: nothing waits for approval
	RequireMandate       bool              `json:"require_mandate"` // every execute must name a mandate
}

// DefaultTimezone is the timezone of a policy that names none.
const DefaultTimezone = "UTC"

// Location returns the timezone of calendar windows. Validate rejects
// unknown names, so the UTC fallback only serves a zone the host's time
// zone database has since lost.
func (p SpendPolicy) Location() *time.Location {
	if p.Timezone == "" {
		return time.UTC
	}
	if loc, ok := zones.Load(p.Timezone); ok {
		return loc.(*time.Location)
	}
	loc, err := time.LoadLocation(p.Timezone)
	if err != nil {
		return time.UTC
	}
	zones.Store(p.Timezone, loc)
	return loc
}

// zones caches loaded time zones by name: time.LoadLocation reads the zone
// database on every call, and every evaluation of a calendar window needs one.
var zones sync.Map

// IsDaily reports whether l is the entry dailyLimit stands for: the
// rolling day over every action.
func (l SpendLimit) IsDaily() bool {
	return l.Window == WindowDay && l.Mode == ModeRolling && l.Actions == nil
}

// Validate checks p for an agent in currency cur and returns a
// VALIDATION_FAILED error naming every bad field under prefix (e.g. "input").
func (p SpendPolicy) Validate(prefix string, cur money.Currency) error {
	var f failure.Fields
	if p.Timezone != "" {
		if _, err := time.LoadLocation(p.Timezone); err != nil || p.Timezone == "Local" {
			f.Add(prefix+".timezone", "%q is not an IANA time zone name", p.Timezone)
		}
	}
	validateSpendLimits(&f, prefix+".spendLimits", p.SpendLimits, cur)
	validateVelocity(&f, prefix+".velocityLimits", p.VelocityLimits)
	validateCounterparties(&f, prefix+".counterparties", p.Counterparties)
	if s := p.MinCounterpartyScore; s != nil && (*s < 0 || *s > MaxTrustScore) {
		f.Add(prefix+".minCounterpartyScore", "must be between 0 and %d", MaxTrustScore)
	}
	validateTiers(&f, prefix+".trustTiers", p.TrustTiers)
	validateApproval(&f, prefix+".approval", p.Approval, cur)
	return f.Err()
}

func validateSpendLimits(f *failure.Fields, field string, limits []SpendLimit, cur money.Currency) {
	if len(limits) > MaxListLength {
		f.Add(field, "at most %d entries", MaxListLength)
	}
	seen := map[string]bool{}
	for i, l := range limits {
		at := field + "[" + strconv.Itoa(i) + "]"
		if !l.Amount.IsPositive() {
			f.Add(at+".amount", "must be greater than zero")
		} else if err := money.ValidateAmount(l.Amount, cur); err != nil {
			f.Add(at+".amount", "%s", err)
		}
		switch l.Window {
		case WindowDay, WindowWeek, WindowMonth, WindowTotal:
		default:
			f.Add(at+".window", "must be day, week, month or total")
		}
		if l.Mode != ModeRolling && l.Mode != ModeCalendar {
			f.Add(at+".mode", "must be rolling or calendar")
		}
		validateActions(f, at+".actions", l.Actions)
		key := string(l.Window) + "/" + string(l.Mode) + "/" + actionsKey(l.Actions)
		if l.Window == WindowTotal {
			key = string(l.Window) + "/" + actionsKey(l.Actions) // total ignores mode
		}
		if seen[key] {
			f.Add(at, "duplicates an earlier entry with the same window, mode and actions")
		}
		seen[key] = true
	}
}

func validateVelocity(f *failure.Fields, field string, limits []VelocityLimit) {
	if len(limits) > MaxListLength {
		f.Add(field, "at most %d entries", MaxListLength)
	}
	for i, v := range limits {
		at := field + "[" + strconv.Itoa(i) + "]"
		if v.MaxCount < 1 {
			f.Add(at+".maxCount", "must be at least 1")
		}
		if v.WindowSeconds < 1 || v.WindowSeconds > MaxVelocitySeconds {
			f.Add(at+".windowSeconds", "must be between 1 and %d", MaxVelocitySeconds)
		}
		validateActions(f, at+".actions", v.Actions)
	}
}

// validateActions rejects an empty list (which would count nothing: null means every action) and blank names.
func validateActions(f *failure.Fields, field string, actions []string) {
	if actions == nil {
		return
	}
	if len(actions) == 0 {
		f.Add(field, "must not be empty; null counts every action")
	}
	if len(actions) > MaxListLength {
		f.Add(field, "at most %d entries", MaxListLength)
	}
	for _, a := range actions {
		if strings.TrimSpace(a) == "" {
			f.Add(field, "must not contain a blank action")
			return
		}
	}
}

func validateCounterparties(f *failure.Fields, field string, c CounterpartyRules) {
	lists := []struct {
		name string
		ids  []string
	}{{"allowAgents", c.AllowAgents}, {"denyAgents", c.DenyAgents}, {"allowOrgs", c.AllowOrgs}, {"denyOrgs", c.DenyOrgs}}
	for _, l := range lists {
		if len(l.ids) > MaxListLength {
			f.Add(field+"."+l.name, "at most %d entries", MaxListLength)
		}
		if slices.Contains(l.ids, "") {
			f.Add(field+"."+l.name, "must not contain an empty id")
		}
	}
}

func validateTiers(f *failure.Fields, field string, tiers []TrustTier) {
	if len(tiers) > MaxListLength {
		f.Add(field, "at most %d entries", MaxListLength)
	}
	seen := map[int]bool{}
	for i, t := range tiers {
		at := field + "[" + strconv.Itoa(i) + "]"
		if t.MinScore < 0 || t.MinScore > MaxTrustScore {
			f.Add(at+".minScore", "must be between 0 and %d", MaxTrustScore)
		} else if seen[t.MinScore] {
			f.Add(at+".minScore", "duplicates an earlier tier's minScore %d", t.MinScore)
		}
		seen[t.MinScore] = true
		if t.LimitPercent < 1 || t.LimitPercent > 100 {
			f.Add(at+".limitPercent", "must be between 1 and 100")
		}
	}
}

// actionsKey identifies an action list regardless of order.
func actionsKey(actions []string) string {
	if actions == nil {
		return "*"
	}
	s := slices.Clone(actions)
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ",")
}
