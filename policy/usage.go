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

// UsageAt returns how much of each limit of the sender's policy is used at
// in.Now, from in.Outflow and the sender's score, with the figures Evaluate
// uses: spend limits in ListedLimits' order, velocity limits in the policy's.
// FreesUpAt is exact when in.Outflow dates each sum at its oldest
// transaction. Amount, Action and Receiver are not looked at.
func UsageAt(in Input) Usage {
	s := in.Sender
	pct, _ := tierFor(s.Policy.TrustTiers, s.Score)
	places := max(s.Currency.MinorUnits(), 0)
	loc := s.Policy.Location()
	u := Usage{SpendLimits: []LimitUsage{}, VelocityLimits: []VelocityUsage{}}
	for _, l := range s.ListedLimits() {
		limit := l.Amount.Percent(int64(pct), places)
		span, live, used := windowUse(in, l, loc)
		lu := LimitUsage{Window: l.Window, Mode: l.Mode, Actions: l.Actions, Limit: limit, Used: used, Remaining: limit.Sub(used)}
		if lu.Remaining.IsNegative() {
			lu.Remaining = money.Amount{}
		}
		switch {
		case span.Rolling > 0 && len(live) > 0:
			oldest := live[0].At
			for _, o := range live[1:] {
				if o.At.Before(oldest) {
					oldest = o.At
				}
			}
			t := oldest.Add(span.Rolling)
			lu.FreesUpAt = &t
		case !span.Until.IsZero():
			t := span.Until
			lu.ResetsAt = &t
		}
		u.SpendLimits = append(u.SpendLimits, lu)
	}
	for _, v := range s.Policy.VelocityLimits {
		_, count := velocityUse(in, v)
		u.VelocityLimits = append(u.VelocityLimits, VelocityUsage{WindowSeconds: v.WindowSeconds, Actions: v.Actions, MaxCount: v.MaxCount, Count: count})
	}
	return u
}
