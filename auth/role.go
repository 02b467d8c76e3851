package auth

import (
	"slices"
	"unicode/utf8"

	"github.com/agenttrust/service/failure"
)

// Role is what an API key may do in its organization.
type Role string

// The roles: an operator's key may do everything; an agent's key reads and
// acts for its own agents only; a dashboard's key only reads.
const (
	RoleAdmin    Role = "admin"
	RoleAgent    Role = "agent"
	RoleReadonly Role = "readonly"
)

// Roles lists every role.
var Roles = []Role{RoleAdmin, RoleAgent, RoleReadonly}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// MaxKeyNameLength bounds an API key's name, in characters.
const MaxKeyNameLength = 200

// MaxKeyAgents bounds how many agents one agent key may act for.
const MaxKeyAgents = 100

// KeyInput is what creating an API key takes.
type KeyInput struct {
	Name     string
	Role     Role
	AgentIDs []string
}

// Validate checks the name (at most MaxKeyNameLength characters of valid
// UTF-8), the role, and that agent ids are given exactly for an agent key,
// at most MaxKeyAgents of them, without repeats. It returns
// ValidationFailed on input.name, input.role or input.agentIds, or nil.
func (in KeyInput) Validate() error {
	var fs failure.Fields
	if utf8.RuneCountInString(in.Name) > MaxKeyNameLength || !utf8.ValidString(in.Name) {
		fs.Add("input.name", "must be at most %d characters of valid UTF-8", MaxKeyNameLength)
	}
	if !in.Role.Valid() {
		fs.Add("input.role", "must be one of admin, agent, readonly")
	}
	switch {
	case in.Role == RoleAgent && len(in.AgentIDs) == 0:
		fs.Add("input.agentIds", "an agent key needs at least one agent")
	case in.Role != RoleAgent && len(in.AgentIDs) > 0:
		fs.Add("input.agentIds", "only an agent key lists agents")
	case len(in.AgentIDs) > MaxKeyAgents:
		fs.Add("input.agentIds", "at most %d agents", MaxKeyAgents)
	case len(in.AgentIDs) != len(dedupe(in.AgentIDs)):
		fs.Add("input.agentIds", "lists an agent twice")
	}
	return fs.Err()
}

func dedupe(ids []string) []string {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// ActsFor reports whether the principal may act for agentID: an admin key
// for any agent of its organization, an agent key for its own agents only.
// A readonly key acts for none.
func (p Principal) ActsFor(agentID string) bool {
	switch p.Role {
	case RoleAdmin:
		return true
	case RoleAgent:
		return slices.Contains(p.AgentIDs, agentID)
	}
	return false
}
