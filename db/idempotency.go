package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/agenttrust/service/failure"
	"github.com/agenttrust/service/transaction"
)

// idempotencyRow is an idempotency key an organization used and the
// transaction it made.
type idempotencyRow struct {
	bun.BaseModel `bun:"table:idempotency_keys"`
	OrgID         string    `bun:"org_id,pk"`
	Key           string    `bun:"key,pk"`
	RequestHash   string    `bun:"request_hash"`
	TransactionID string    `bun:"transaction_id"`
	CreatedAt     time.Time `bun:"created_at"`
}

// IdempotencyTTL is how long an idempotency key is honoured at least.
const IdempotencyTTL = 24 * time.Hour

// insertIdempotencyKey stores the transaction an idempotency key made.
const insertIdempotencyKey = `INSERT INTO idempotency_keys (org_id, key, request_hash, transaction_id, created_at)
 VALUES ($1, $2, $3, $4, $5)`

// claimKey serializes requests with one idempotency key: the second waits on
// the advisory lock until the first commits, then finds its transaction.
func (s *TransactionService) claimKey(ctx context.Context, tx *txn, orgID, key, hash string) (*transaction.Transaction, error) {
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 7))", orgID+"\x00"+key); err != nil {
		return nil, fmt.Errorf("lock idempotency key: %w", err)
	}
	var k idempotencyRow
	err := tx.NewSelect().Model(&k).Where("org_id = ? AND key = ?", orgID, key).
		Where("created_at > ?", s.db.Now().Add(-IdempotencyTTL)).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.NewDelete().Model((*idempotencyRow)(nil)).Where("org_id = ? AND key = ?", orgID, key).Exec(ctx)
		return nil, err // an expired key is free again
	}
	if err != nil {
		return nil, fmt.Errorf("look up idempotency key: %w", err)
	}
	if k.RequestHash != hash {
		return nil, failure.Errorf(failure.Conflict, "idempotency key %q was already used with different parameters", key)
	}
	var row transactionRow
	if err := tx.NewSelect().Model(&row).Where("id = ?", k.TransactionID).Scan(ctx); err != nil {
		return nil, fmt.Errorf("load idempotent transaction: %w", err)
	}
	return row.transaction(), nil
}

// agentsFor selects the given agents in id order with their trust counters,
