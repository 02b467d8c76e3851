DROP INDEX transactions_pending_expiry;
DELETE FROM idempotency_keys WHERE transaction_id IN
    (SELECT id FROM transactions WHERE status IN ('pending_approval', 'declined', 'expired'));
DELETE FROM transactions WHERE status IN ('pending_approval', 'declined', 'expired');
ALTER TABLE transactions DROP COLUMN decided_by;
ALTER TABLE transactions DROP COLUMN decided_at;
ALTER TABLE transactions DROP COLUMN expires_at;
ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_status_check CHECK (status IN ('completed', 'reversed'));
