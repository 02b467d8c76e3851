-- Every agent has a spend policy (version 1 until first changed); its
-- rolling day entry stays in daily_limit.
ALTER TABLE agents ADD COLUMN policy jsonb NOT NULL DEFAULT '{"version": 1}';
-- Windows and velocity count every completed outflow, reversed later or
-- not (a reversal gives no capacity back): the original rows, never the
-- reversal records. Rows are read by index range scans on (from_agent,
-- created_at): the hours in which windows begin, and a refusal's window.
CREATE INDEX transactions_spend ON transactions (from_agent, created_at) INCLUDE (amount, action)
    WHERE reversal_of IS NULL AND status IN ('completed', 'reversed');
DROP INDEX transactions_outflow;
-- A total limit counts an agent's whole history: kept as a running sum per
-- action, updated in the execute's transaction, so it is never scanned.
CREATE TABLE agent_outflow_totals (
    agent_id text NOT NULL REFERENCES agents (id),
    action text NOT NULL,
    total numeric NOT NULL,
    PRIMARY KEY (agent_id, action)
);
INSERT INTO agent_outflow_totals (agent_id, action, total)
SELECT from_agent, action, sum(amount) FROM transactions
 WHERE reversal_of IS NULL AND status IN ('completed', 'reversed')
 GROUP BY from_agent, action;
-- Window sums and velocity counts read per-hour buckets (hours in UTC),
-- updated in the execute's transaction; only the hours in which a window
-- begins are read as rows.
CREATE TABLE agent_outflow_hours (
    agent_id text NOT NULL REFERENCES agents (id),
    hour timestamptz NOT NULL,
    action text NOT NULL,
    amount numeric NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (agent_id, hour, action)
);
INSERT INTO agent_outflow_hours (agent_id, hour, action, amount, count)
SELECT from_agent, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', action, sum(amount), count(*)
  FROM transactions
 WHERE reversal_of IS NULL AND status IN ('completed', 'reversed')
 GROUP BY 1, 2, 3;
