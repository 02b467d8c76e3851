-- The daily-limit check sums a sender's completed outflow of the last 24
-- hours; this covering index lets Postgres do it from the index alone.
CREATE INDEX transactions_outflow ON transactions (from_agent, created_at) INCLUDE (amount) WHERE status = 'completed';
