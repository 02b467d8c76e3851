// Package auth holds API keys and the principal a request acts for.
package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
)

// Principal is the authenticated caller: an organization acting through one
// API key, with that key's role and, for an agent key, the agents it may act
// for.
type Principal struct {
	OrgID    string
	KeyID    string
	Role     Role
	AgentIDs []string
}

type ctxKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal in ctx, or an Unauthenticated error.
func FromContext(ctx context.Context) (Principal, error) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	if !ok || p.OrgID == "" {
		return Principal{}, failure.Errorf(failure.Unauthenticated, "missing API key: send Authorization: Bearer <API_KEY>")
	}
	return p, nil
}

// KeyPrefix starts every generated API key so leaked keys are easy to scan for.
const KeyPrefix = "att_sk_"

// NewKey returns a fresh random API key (256 bits) to be shown once.
func NewKey() string { return KeyPrefix + id.Random(32) }

// Hash is the stored form of a key: SHA-256. Keys have 256 bits of entropy, so
// a fast hash is safe; the plaintext is never stored.
func Hash(key string) []byte {
	s := sha256.Sum256([]byte(key))
	return s[:]
}

// Equal compares two key hashes in constant time.
func Equal(a, b []byte) bool { return subtle.ConstantTimeCompare(a, b) == 1 }

// ParseBearer extracts the key from an Authorization header value, or returns an Unauthenticated error.
func ParseBearer(header string) (string, error) {
	scheme, key, ok := strings.Cut(strings.TrimSpace(header), " ")
	if header == "" {
		return "", failure.Errorf(failure.Unauthenticated, "missing API key: send Authorization: Bearer <API_KEY>")
	}
	key = strings.TrimSpace(key)
	if !ok || !strings.EqualFold(scheme, "Bearer") || CheckKey(key) != nil {
		return "", failure.Errorf(failure.Unauthenticated, "malformed Authorization header: expected Bearer <API_KEY>")
	}
	return key, nil
}

// Key syntax: every key the service accepts, generated or bootstrap, is
// MinKeyLen..MaxKeyLen characters of letters, digits and "-._~+/=", so a
// malformed key is refused without a database lookup.
const (
	MinKeyLen = 16
	MaxKeyLen = 256
)

// CheckKey reports why key cannot be an API key, or nil.
func CheckKey(key string) error {
	if len(key) < MinKeyLen || len(key) > MaxKeyLen {
		return fmt.Errorf("an API key is %d to %d characters long (got %d)", MinKeyLen, MaxKeyLen, len(key))
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~+/=", c) >= 0) {
			return fmt.Errorf("an API key holds only letters, digits and -._~+/= (found %q at %d)", c, i)
		}
	}
	return nil
}

// Authenticator resolves an API key to its principal; unknown or revoked keys
// are Unauthenticated. The edge calls it once per request, before anything
// else runs for it.
type Authenticator interface {
	// Authenticate returns the principal of a live key: Unauthenticated for
	// an unknown or revoked one; any other error means the key could not be
	// checked (the store is down) and is answered 503. An implementation may
	// remember keys it found live, but must refuse a key revoked on any
	// replica within RevocationBound.
	Authenticate(ctx context.Context, key string) (Principal, error)
	// WasLive reports, from memory alone, whether key is among the keys this
	// process knows to have been live (at start-up, created since, or found
	// by a lookup). It is a hint, not an answer: the edge lets a client
	// address over its budget of failed attempts reach the store only with
	// such a key, so guesses beyond the budget cost the store nothing.
	WasLive(key string) bool
}

// RevocationBound is the longest a revoked key may still be accepted, by
// any replica, after the revocation commits.
const RevocationBound = time.Second

// MaxOrgNameLength bounds an organization's name, in characters.
const MaxOrgNameLength = 200

// OrgInput is what creating an organization takes.
type OrgInput struct {
	Name string
}

// Validate checks the name: 1 to MaxOrgNameLength characters of valid
// UTF-8. It returns a ValidationFailed error on field "name", or nil.
func (in OrgInput) Validate() error {
	if n := utf8.RuneCountInString(in.Name); n == 0 || n > MaxOrgNameLength || !utf8.ValidString(in.Name) {
		return failure.Invalid("name", "must be 1 to %d characters of valid UTF-8", MaxOrgNameLength)
	}
	return nil
}

// KeyService manages the API keys of p's organization (the GraphQL key
// operations and the command line, which acts as the organization's admin,
// use it).
type KeyService interface {
	// ListKeys describes an organization's keys, newest first (NotFound if no such organization).
	ListKeys(ctx context.Context, p Principal) ([]KeyInfo, error)
	// KeysByID describes the organization's keys among ids, in no order.
	KeysByID(ctx context.Context, p Principal, ids []string) ([]KeyInfo, error)
	// IssueKey adds a key with in's name, role and agents to an existing
	// organization and returns it with its plaintext, shown once: NotFound
	// if there is no such organization; ValidationFailed for a bad input
	// (KeyInput.Validate) or agent ids that are not the organization's
	// agents (on input.agentIds); Conflict when the organization already
	// holds its bound of unrevoked keys (MAX_API_KEYS_PER_ORG).
	IssueKey(ctx context.Context, p Principal, in KeyInput) (KeyInfo, string, error)
	// Key describes one key of an organization (NotFound if it has none of that id).
	Key(ctx context.Context, p Principal, keyID string) (KeyInfo, error)
	// RevokeOrgKey revokes one of an organization's keys and describes it;
	// revoking twice is harmless; NotFound if the organization has no such key.
	RevokeOrgKey(ctx context.Context, p Principal, keyID string) (KeyInfo, error)
}

// OrgService manages organizations and their API keys (the command line uses it).
type OrgService interface {
	Authenticator
	KeyService
	// CreateOrg creates an organization with a first key; it returns the
	// plaintext key once. A bad name is ValidationFailed (OrgInput.Validate).
	CreateOrg(ctx context.Context, name string) (orgID, keyID, key string, err error)
	// CreateKey adds an unnamed admin key to an existing organization (NotFound if none).
	CreateKey(ctx context.Context, orgID string) (keyID, key string, err error)
	// RevokeKey revokes a key (NotFound if none); it is refused from the next request on.
	RevokeKey(ctx context.Context, keyID string) error
	// EnsureKey makes sure an organization holding key exists (idempotent); it returns its id.
	EnsureKey(ctx context.Context, key, orgName string) (orgID string, err error)
	// AnyOrg reports whether at least one organization exists.
	AnyOrg(ctx context.Context) (bool, error)
}

// KeyInfo describes an API key without revealing it.
type KeyInfo struct {
	ID        string
	Name      string
	Role      Role
	AgentIDs  []string
	CreatedAt time.Time
	// LastUsedAt is the last authenticated request, recorded at most once per
	// LastUseResolution; nil if never used since tracking began.
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// DefaultMaxKeysPerOrg is MAX_API_KEYS_PER_ORG's default: the most unrevoked
// API keys one organization holds. Every key is a rate-limit bucket and a
// cache entry on every replica, so the number is bounded.
const DefaultMaxKeysPerOrg = 100

// LastUseResolution is how stale a key's LastUsedAt may be: recording every
// use would add a write to every request.
const LastUseResolution = time.Minute

// KeyChecker re-checks keys already authenticated, for connections that
// outlive a request (websockets, SSE).
type KeyChecker interface {
	// RevokedKeys returns the ids among keyIDs that are revoked (or gone).
	RevokedKeys(ctx context.Context, keyIDs []string) ([]string, error)
	// Revoked reports whether one key is revoked (or gone), for each
	// operation of a connection: true on every replica within
	// RevocationBound of the revocation, like Authenticator.Authenticate;
	// an error means the key could not be checked.
	Revoked(ctx context.Context, keyID string) (bool, error)
	// OnRevoke calls f with the id of every key revoked from now on, on any
	// replica, as soon as the process hears of it; f must not block. stop
	// ends the calls.
	OnRevoke(f func(keyID string)) (stop func())
}
