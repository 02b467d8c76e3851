DROP TABLE agent_outflow_hours;
DROP TABLE agent_outflow_totals;
CREATE INDEX transactions_outflow ON transactions (from_agent, created_at) INCLUDE (amount) WHERE status = 'completed';
DROP INDEX transactions_spend;
ALTER TABLE agents DROP COLUMN policy;
