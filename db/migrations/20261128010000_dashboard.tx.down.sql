DROP TABLE agent_outflow_days;
DROP INDEX disputes_open_agent_org;
DROP INDEX disputes_open_reporter;
DROP INDEX transactions_pending_org;
ALTER TABLE agent_outflow_hours DROP COLUMN first_at;
