package db

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/id"
)

type orgRow struct {
	bun.BaseModel `bun:"table:orgs"`
	ID            string    `bun:"id,pk"`
	Name          string    `bun:"name"`
	CreatedAt     time.Time `bun:"created_at"`
}

type apiKeyRow struct {
	bun.BaseModel `bun:"table:api_keys"`
	ID            string     `bun:"id,pk"`
	OrgID         string     `bun:"org_id"`
	Name          string     `bun:"name"`
	Role          auth.Role  `bun:"role"`
	AgentIDs      []string   `bun:"agent_ids,array"`
	Hash          []byte     `bun:"hash"`
	CreatedAt     time.Time  `bun:"created_at"`
	RevokedAt     *time.Time `bun:"revoked_at"`
	LastUsedAt    *time.Time `bun:"last_used_at"`
}

// OrgService implements auth.OrgService on Postgres.
type OrgService struct{ db *DB }

// NewOrgService returns the organization and API key service.
func NewOrgService(d *DB) *OrgService { return &OrgService{db: d} }

var _ auth.OrgService = (*OrgService)(nil)

// Authenticate finds the live key whose hash matches key, and records its use
// when the recorded one is older than auth.LastUseResolution. A key it found
// live recently is answered from the process's key cache (keyCache), which
// forgets every key when any is revoked on any replica; a key it found
// unknown within the last minute is refused from that cache too, until any
// key is created.
func (s *OrgService) Authenticate(ctx context.Context, key string) (auth.Principal, error) {
	h := auth.Hash(key)
	cache := &s.db.keyCache
	now := s.db.Now()
	if p, ok := cache.get(h, now); ok {
		return p, nil
	}
	if cache.isUnknown(h, now) {
		return auth.Principal{}, errUnknownKey()
	}
	epoch := cache.currentEpoch()
	var row apiKeyRow
	err := s.db.bun.NewSelect().Model(&row).Column("id", "org_id", "role", "agent_ids", "hash", "last_used_at").
		Where("hash = ?", h).Where("revoked_at IS NULL").Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !auth.Equal(row.Hash, h)) {
		cache.putUnknown(h, now, epoch)
		return auth.Principal{}, errUnknownKey()
	}
	if err != nil {
		return auth.Principal{}, fmt.Errorf("look up api key: %w", err)
	}
	p := auth.Principal{OrgID: row.OrgID, KeyID: row.ID, Role: row.Role, AgentIDs: row.AgentIDs}
	cache.sawLive(h)
	if now := s.db.Now(); row.LastUsedAt == nil || now.Sub(*row.LastUsedAt) >= auth.LastUseResolution {
		// Best effort: a failed write must not refuse a valid key, and the
		// guard keeps concurrent requests and replicas from writing twice.
		_, err := s.db.bun.NewUpdate().Model((*apiKeyRow)(nil)).Set("last_used_at = ?", now).
			Where("id = ?", row.ID).Where("last_used_at IS NULL OR last_used_at <= ?", now.Add(-auth.LastUseResolution)).Exec(ctx)
		if err == nil {
			cache.put(h, p, now, epoch)
		}
	} else {
		cache.put(h, p, *row.LastUsedAt, epoch)
	}
	return p, nil
}

func errUnknownKey() error {
	return failure.Errorf(failure.Unauthenticated, "unknown or revoked API key")
}

// WasLive reports whether key is among the keys the process's listener
// loaded as live, heard created since, or a lookup found live: the edge lets
// a client address over its budget of failed attempts reach the database
// only with such a key.
func (s *OrgService) WasLive(key string) bool { return s.db.keyCache.wasLive(auth.Hash(key)) }

// announceKey notifies KeyChannel, in the transaction creating the key of
// hash, that it was created: every replica's key cache then forgets the
// keys it found unknown, and notes this one as live.
func announceKey(ctx context.Context, tx *txn, hash []byte) error {
	if _, err := tx.ExecContext(ctx, "SELECT pg_notify(?, ?)", KeyChannel, keyCreatedPrefix+hex.EncodeToString(hash)); err != nil {
		return fmt.Errorf("announce created api key: %w", err)
	}
	return nil
}

// AnyOrg reports whether at least one organization exists.
func (s *OrgService) AnyOrg(ctx context.Context) (bool, error) {
	found, err := s.db.bun.NewSelect().Model((*orgRow)(nil)).Exists(ctx)
	if err != nil {
		return false, fmt.Errorf("look for organizations: %w", err)
	}
	return found, nil
}

// CreateOrg creates an organization and its first API key in one transaction,
// which announces the key (announceKey).
func (s *OrgService) CreateOrg(ctx context.Context, name string) (orgID, keyID, key string, err error) {
	if err := (auth.OrgInput{Name: name}).Validate(); err != nil {
		return "", "", "", err
	}
	org := orgRow{ID: id.New(id.Org), Name: name, CreatedAt: s.db.Now()}
	key = auth.NewKey()
	k := newKeyRow(org.ID, key, auth.KeyInput{Role: auth.RoleAdmin}, org.CreatedAt)
	err = s.db.inTx(ctx, func(tx *txn) error {
		if _, err := tx.NewInsert().Model(&org).Exec(ctx); err != nil {
			return fmt.Errorf("insert org: %w", err)
		}
		if _, err := tx.NewInsert().Model(&k).Exec(ctx); err != nil {
			return fmt.Errorf("insert api key: %w", err)
		}
		return announceKey(ctx, tx, k.Hash)
	})
	if err != nil {
		return "", "", "", err
	}
	s.db.keyCache.created(k.Hash)
	return org.ID, k.ID, key, nil
}

// EnsureKey makes an organization holding key exist. Concurrent replicas race
// safely: the key hash is unique, and the loser reads the winner's row.
func (s *OrgService) EnsureKey(ctx context.Context, key, orgName string) (string, error) {
	if p, err := s.Authenticate(ctx, key); err == nil {
		return p.OrgID, nil
	}
	var revoked bool
	if err := s.db.bun.NewSelect().Model((*apiKeyRow)(nil)).ColumnExpr("revoked_at IS NOT NULL").
		Where("hash = ?", auth.Hash(key)).Scan(ctx, &revoked); err == nil && revoked {
		return "", failure.Errorf(failure.Conflict, "the bootstrap API key was revoked; choose another")
	}
	org := orgRow{ID: id.New(id.Org), Name: orgName, CreatedAt: s.db.Now()}
	k := newKeyRow(org.ID, key, auth.KeyInput{Role: auth.RoleAdmin}, org.CreatedAt)
	err := s.db.inTx(ctx, func(tx *txn) error {
		if _, err := tx.NewInsert().Model(&org).Exec(ctx); err != nil {
			return fmt.Errorf("insert org: %w", err)
		}
		res, err := tx.NewInsert().Model(&k).On("CONFLICT (hash) DO NOTHING").Exec(ctx)
		if err != nil {
			return fmt.Errorf("insert api key: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return errLostRace
		}
		return announceKey(ctx, tx, k.Hash)
	})
	if err == nil || errors.Is(err, errLostRace) {
		s.db.keyCache.created(k.Hash) // the key exists now, made here or by the winner
	}
	if errors.Is(err, errLostRace) {
		p, err := s.Authenticate(ctx, key)
		return p.OrgID, err
	}
	return org.ID, err
}

var errLostRace = errors.New("lost race")

var _ auth.KeyChecker = (*OrgService)(nil)
