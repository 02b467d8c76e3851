package policy

import (
	"time"

	"github.com/agenttrust/service/money"
)

// LimitUsage is what one spend limit has used at a moment, as the policy
// check counts it.
type LimitUsage struct {
	Window  LimitWindow
	Mode    WindowMode
	Actions []string
	// Limit is the limit after the trust tier that applies at the moment.
	Limit     money.Amount
	Used      money.Amount
	Remaining money.Amount // Limit − Used, never below zero
	// ResetsAt is when a calendar window ends; nil for rolling and total windows.
	ResetsAt *time.Time
	// FreesUpAt is when a rolling window's oldest counted outflow leaves
	// it; nil when it counts nothing, and for calendar and total windows.
	FreesUpAt *time.Time
}

// VelocityUsage is what one velocity limit has counted at a moment.
type VelocityUsage struct {
	WindowSeconds int
	Actions       []string
	MaxCount      int
	Count         int
}

// Usage is how much of each limit of a policy is used at a moment.
type Usage struct {
	SpendLimits    []LimitUsage
	VelocityLimits []VelocityUsage
}
