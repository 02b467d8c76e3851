-- An execute over the policy's approval threshold waits as pending_approval
-- until an admin approves (completed) or declines it, or it expires.
ALTER TABLE transactions DROP CONSTRAINT transactions_status_check;
ALTER TABLE transactions ADD CONSTRAINT transactions_status_check
    CHECK (status IN ('completed', 'reversed', 'pending_approval', 'declined', 'expired'));
ALTER TABLE transactions ADD COLUMN expires_at timestamptz;
ALTER TABLE transactions ADD COLUMN decided_at timestamptz;
ALTER TABLE transactions ADD COLUMN decided_by text;
-- The expiry sweep reads only the pending transactions that are due.
CREATE INDEX transactions_pending_expiry ON transactions (expires_at) WHERE status = 'pending_approval';
