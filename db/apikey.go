package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
)

// newKeyRow is the row of a new key holding key, for orgID.
func newKeyRow(orgID, key string, in auth.KeyInput, at time.Time) apiKeyRow {
	agents := slices.Clone(in.AgentIDs)
	if agents == nil {
		agents = []string{} // the column is NOT NULL
	}
	return apiKeyRow{ID: id.New(id.Key), OrgID: orgID, Name: in.Name, Role: in.Role, AgentIDs: agents,
		Hash: auth.Hash(key), CreatedAt: at}
}

func (r apiKeyRow) info() auth.KeyInfo {
	agents := r.AgentIDs
	if agents == nil {
		agents = []string{}
	}
	return auth.KeyInfo{ID: r.ID, Name: r.Name, Role: r.Role, AgentIDs: agents,
		CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt, RevokedAt: r.RevokedAt}
}

// keyColumns are what describing a key reads.
var keyColumns = []string{"id", "name", "role", "agent_ids", "created_at", "last_used_at", "revoked_at"}

// ListKeys describes an organization's keys, newest first; NotFound if there
// is no such organization.
func (s *OrgService) ListKeys(ctx context.Context, p auth.Principal) ([]auth.KeyInfo, error) {
	if err := s.orgExists(ctx, p.OrgID); err != nil {
		return nil, err
	}
	var rows []apiKeyRow
	if err := s.db.bun.NewSelect().Model(&rows).Column(keyColumns...).
		Where("org_id = ?", p.OrgID).Order("created_at DESC", "id DESC").Scan(ctx); err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	keys := make([]auth.KeyInfo, len(rows))
	for i, r := range rows {
		keys[i] = r.info()
	}
	return keys, nil
}

// Key describes one of an organization's keys; NotFound if it has none of
// that id.
func (s *OrgService) Key(ctx context.Context, p auth.Principal, keyID string) (auth.KeyInfo, error) {
	var row apiKeyRow
	err := s.db.bun.NewSelect().Model(&row).Column(keyColumns...).
		Where("id = ? AND org_id = ?", keyID, p.OrgID).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return auth.KeyInfo{}, failure.Errorf(failure.NotFound, "API key %q not found", keyID)
	}
	if err != nil {
		return auth.KeyInfo{}, fmt.Errorf("read api key: %w", err)
	}
	return row.info(), nil
}

func (s *OrgService) orgExists(ctx context.Context, orgID string) error {
	exists, err := s.db.bun.NewSelect().Model((*orgRow)(nil)).Where("id = ?", orgID).Exists(ctx)
	if err != nil {
		return fmt.Errorf("look up org: %w", err)
	}
	if !exists {
		return failure.Errorf(failure.NotFound, "organization %q not found", orgID)
	}
	return nil
}

// CreateKey adds a new, unnamed admin key to an organization (IssueKey).
func (s *OrgService) CreateKey(ctx context.Context, orgID string) (keyID, key string, err error) {
	k, key, err := s.IssueKey(ctx, auth.Principal{OrgID: orgID, Role: auth.RoleAdmin}, auth.KeyInput{Role: auth.RoleAdmin})
	return k.ID, key, err
}

// IssueKey adds a new API key with in's name, role and agents to an
// organization and returns it with its plaintext; the transaction announces
// it (announceKey). The agents must be the organization's
// (ValidationFailed on input.agentIds otherwise), and the organization must
// hold fewer unrevoked keys than its bound (Conflict otherwise).
func (s *OrgService) IssueKey(ctx context.Context, p auth.Principal, in auth.KeyInput) (auth.KeyInfo, string, error) {
	if err := in.Validate(); err != nil {
		return auth.KeyInfo{}, "", err
	}
	if err := s.orgExists(ctx, p.OrgID); err != nil {
		return auth.KeyInfo{}, "", err
	}
	key := auth.NewKey()
	k := newKeyRow(p.OrgID, key, in, s.db.Now())
	err := s.db.inTx(ctx, func(tx *txn) error {
		if err := checkKeyRoom(ctx, tx, p.OrgID, s.db.maxKeysPerOrg); err != nil {
			return err
		}
		if err := checkOwnAgents(ctx, tx, p.OrgID, k.AgentIDs); err != nil {
			return err
		}
		if _, err := tx.NewInsert().Model(&k).Exec(ctx); err != nil {
			return fmt.Errorf("insert api key: %w", err)
		}
		return announceKey(ctx, tx, k.Hash)
	})
	if err != nil {
		return auth.KeyInfo{}, "", err
	}
	s.db.keyCache.created(k.Hash)
	return k.info(), key, nil
}

// checkKeyRoom refuses a new key to an organization that holds max
// unrevoked keys already (Conflict, naming the bound). It locks the
// organization's row first, so concurrent creations count one another.
func checkKeyRoom(ctx context.Context, tx *txn, orgID string, max int) error {
	if _, err := tx.NewSelect().Model((*orgRow)(nil)).Column("id").Where("id = ?", orgID).For("UPDATE").Exec(ctx); err != nil {
		return fmt.Errorf("lock organization: %w", err)
	}
	n, err := tx.NewSelect().Model((*apiKeyRow)(nil)).Where("org_id = ? AND revoked_at IS NULL", orgID).Count(ctx)
	if err != nil {
		return fmt.Errorf("count api keys: %w", err)
	}
	if n >= max {
		return failure.Errorf(failure.Conflict,
			"the organization holds %d unrevoked API keys, the most MAX_API_KEYS_PER_ORG (%d) allows: revoke one first", n, max)
	}
	return nil
}

// checkOwnAgents refuses agent ids that are not agents of orgID, locking
// those that are so none is deleted meanwhile.
func checkOwnAgents(ctx context.Context, tx *txn, orgID string, agentIDs []string) error {
	if len(agentIDs) == 0 {
		return nil
	}
	var found []string
	if err := tx.NewSelect().Table("agents").Column("id").Where("id IN (?) AND org_id = ?", bun.In(agentIDs), orgID).
		For("KEY SHARE").Scan(ctx, &found); err != nil {
		return fmt.Errorf("look up key's agents: %w", err)
	}
	for _, a := range agentIDs {
		if !slices.Contains(found, a) {
			return failure.Invalid("input.agentIds", "%q is not an agent of this organization", a)
		}
	}
	return nil
}

// RevokeKey marks a key revoked; revoking twice is harmless. The revoking
// transaction notifies KeyChannel, so every replica's key cache forgets its
// keys when it commits (this process's at once), and every replica's
// OnKeyRevoked hooks (the edge, which closes the key's open streams) hear of
// it.
func (s *OrgService) RevokeKey(ctx context.Context, keyID string) error {
	_, err := s.revoke(ctx, "", keyID)
	return err
}

// RevokeOrgKey revokes one of an organization's keys, as RevokeKey, and
// describes it; NotFound if the organization has no such key.
func (s *OrgService) RevokeOrgKey(ctx context.Context, p auth.Principal, keyID string) (auth.KeyInfo, error) {
	return s.revoke(ctx, p.OrgID, keyID)
}

// revoke revokes keyID, of orgID unless that is empty.
func (s *OrgService) revoke(ctx context.Context, orgID, keyID string) (auth.KeyInfo, error) {
	var row apiKeyRow
	err := s.db.inTx(ctx, func(tx *txn) error {
		q := tx.NewUpdate().Model(&row).Set("revoked_at = coalesce(revoked_at, ?)", s.db.Now()).Where("id = ?", keyID)
		if orgID != "" {
			q = q.Where("org_id = ?", orgID)
		}
		res, err := q.Returning(strings.Join(keyColumns, ", ")).Exec(ctx)
		if err != nil {
			return fmt.Errorf("revoke api key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return failure.Errorf(failure.NotFound, "API key %q not found", keyID)
		}
		if _, err := tx.ExecContext(ctx, "SELECT pg_notify(?, ?)", KeyChannel, keyID); err != nil {
			return fmt.Errorf("announce revoked api key: %w", err)
		}
		return nil
	})
	if err == nil {
		s.db.keyCache.revoked()
		s.db.revocations.tell(keyID)
	}
	return row.info(), err
}

var _ auth.KeyChecker = (*OrgService)(nil)

// RevokedKeys returns the ids among keyIDs that are revoked or no longer
// exist, in one statement whatever the number of keys.
func (s *OrgService) RevokedKeys(ctx context.Context, keyIDs []string) ([]string, error) {
	var live []string
	err := s.db.bun.NewSelect().Model((*apiKeyRow)(nil)).Column("id").
		Where("id IN (?)", bun.In(keyIDs)).Where("revoked_at IS NULL").Scan(ctx, &live)
	if err != nil {
		return nil, fmt.Errorf("check api keys: %w", err)
	}
	alive := make(map[string]bool, len(live))
	for _, id := range live {
		alive[id] = true
	}
	var revoked []string
	for _, id := range keyIDs {
		if !alive[id] {
			revoked = append(revoked, id)
		}
	}
	return revoked, nil
}

// Revoked reports whether the key keyID is revoked or gone, for an
// operation on a connection authenticated earlier: from the key cache while
// its listener is trusted and no key has been revoked since the key was
// found live, else from the database. So, like Authenticate, it answers
// true on every replica within auth.RevocationBound of the revocation.
func (s *OrgService) Revoked(ctx context.Context, keyID string) (bool, error) {
	cache := &s.db.keyCache
	if cache.liveID(keyID) {
		return false, nil
	}
	epoch := cache.currentEpoch()
	var live bool
	err := s.db.bun.NewSelect().Model((*apiKeyRow)(nil)).ColumnExpr("revoked_at IS NULL").Where("id = ?", keyID).Scan(ctx, &live)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("check api key: %w", err)
	}
	if live {
		cache.putID(keyID, epoch)
	}
	return !live, nil
}

// OnRevoke calls f with the id of every key revoked from now on, on any
// replica (DB.OnKeyRevoked).
func (s *OrgService) OnRevoke(f func(keyID string)) (stop func()) { return s.db.OnKeyRevoked(f) }
