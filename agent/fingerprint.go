package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"

	"github.com/agenttrust/service/policy"
)

// identity is the canonical encoding the fingerprint covers (version 1). Field
// order is fixed by the struct; actions are sorted so their order is not identity.
type identity struct {
	V                 int      `json:"v"`
	ID                string   `json:"id"`
	OrgID             string   `json:"org_id"`
	Name              string   `json:"name"`
	AuthorizedActions []string `json:"authorized_actions"`
	SpendingLimit     string   `json:"spending_limit"`
	DailyLimit        *string  `json:"daily_limit"`
	Currency          string   `json:"currency"`
	Environment       string   `json:"environment"`
	// Policy is present once the policy has been changed (version 2 on), so
	// agents that never had one keep their fingerprints.
	Policy *policy.SpendPolicy `json:"policy,omitempty"`
}

// Fingerprint is "sha256:" + hex SHA-256 of the agent's canonical identity:
// id, org id, name, sorted actions, limits (fixed to the currency's minor
// units), currency, environment and, once changed, the spend policy with its
// version. Status and timestamps are not identity.
func Fingerprint(a Agent) string {
	places := a.Currency.MinorUnits()
	id := identity{
		V:                 1,
		ID:                a.ID,
		OrgID:             a.OrgID,
		Name:              a.Name,
		AuthorizedActions: slices.Sorted(slices.Values(a.AuthorizedActions)),
		SpendingLimit:     a.SpendingLimit.StringFixed(places),
		Currency:          string(a.Currency),
		Environment:       string(a.Environment),
	}
	if a.DailyLimit != nil {
		s := a.DailyLimit.StringFixed(places)
		id.DailyLimit = &s
	}
	if a.Policy.Version > 1 {
		id.Policy = &a.Policy
	}
	b, _ := json.Marshal(id) // marshalling strings, ints and amounts cannot fail
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}
