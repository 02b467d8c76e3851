-- Each hour's outflow bucket keeps when its earliest transaction completed,
-- so a sum over hours is dated at its oldest transaction: policyUsage's
-- freesUpAt is exact without reading the rows.
ALTER TABLE agent_outflow_hours ADD COLUMN first_at timestamptz;
UPDATE agent_outflow_hours h SET first_at = t.first_at
  FROM (SELECT from_agent, date_trunc('hour', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, action,
               min(created_at) AS first_at
          FROM transactions
         WHERE reversal_of IS NULL AND status IN ('completed', 'reversed')
         GROUP BY 1, 2, 3) t
 WHERE h.agent_id = t.from_agent AND h.hour = t.hour AND h.action = t.action;
UPDATE agent_outflow_hours SET first_at = hour WHERE first_at IS NULL;
ALTER TABLE agent_outflow_hours ALTER COLUMN first_at SET NOT NULL;
-- The overview counts pending approvals and open disputes from indexes of
-- the open items alone, so its cost does not grow with the history.
CREATE INDEX transactions_pending_org ON transactions (from_org) WHERE status = 'pending_approval';
CREATE INDEX disputes_open_reporter ON disputes (reporter_org) WHERE status = 'open';
CREATE INDEX disputes_open_agent_org ON disputes (agent_org) WHERE status = 'open';
-- Daily outflow per agent and action (UTC days), kept by every execute
-- beside the hourly buckets, so a series of days reads a row per agent-day,
-- not one per agent-hour.
CREATE TABLE agent_outflow_days (
    agent_id text NOT NULL REFERENCES agents (id),
    day timestamptz NOT NULL,
    action text NOT NULL,
    amount numeric NOT NULL,
    count integer NOT NULL,
    PRIMARY KEY (agent_id, day, action)
);
INSERT INTO agent_outflow_days (agent_id, day, action, amount, count)
SELECT agent_id, date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', action, sum(amount), sum(count)
  FROM agent_outflow_hours GROUP BY 1, 2, 3;
