-- The bound on transactions waiting for approval counts one sender's
-- pending transactions on every execute that would wait.
CREATE INDEX transactions_pending_sender ON transactions (from_agent) WHERE status = 'pending_approval';
