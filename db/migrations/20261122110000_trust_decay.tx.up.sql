-- Trust model rework: the plain counters become decayed counters (a value
-- valid at evidence_at), recomputed here from the raw records (transactions,
-- refusals on the audit chains, disputes), which stay untouched; so do the
-- score snapshots. What each record counts for is the model of trust/action.go:
-- only transactions with other organizations count, trust_too_low and
-- suspension refusals never count, reversals count against their sender only,
-- disputes weigh per reporting organization and never from the agent's own.

-- Disputes get a lifecycle: open -> withdrawn.
UPDATE disputes SET status = 'withdrawn' WHERE status = 'resolved';
ALTER TABLE disputes DROP CONSTRAINT disputes_status_check;
ALTER TABLE disputes ADD CONSTRAINT disputes_status_check CHECK (status IN ('open', 'withdrawn'));
ALTER TABLE disputes ADD COLUMN withdrawn_at timestamptz;
ALTER TABLE disputes ADD COLUMN agent_org text;
UPDATE disputes d SET agent_org = a.org_id FROM agents a WHERE a.id = d.agent_id;
ALTER TABLE disputes ALTER COLUMN agent_org SET NOT NULL;
ALTER TABLE disputes ADD COLUMN seq bigserial NOT NULL UNIQUE;
-- Keyset pages of the disputes filed by, or against, an organization.
CREATE INDEX disputes_reporter_seq ON disputes (reporter_org, seq DESC);
CREATE INDEX disputes_agent_org_seq ON disputes (agent_org, seq DESC);
-- A reporter organization's open disputes against one agent.
CREATE INDEX disputes_open_by_reporter ON disputes (agent_id, reporter_org, created_at) WHERE status = 'open';
-- Withdrawn disputes no longer hold their evidence.
DELETE FROM dispute_evidence de USING disputes d WHERE d.id = de.dispute_id AND d.status <> 'open';

-- Completed, not reversed transactions per agent and other organization:
-- how many counterparty organizations an agent has, kept in O(1) per write.
CREATE TABLE trust_counterparties (
    agent_id     text NOT NULL REFERENCES agents (id) DEFERRABLE INITIALLY DEFERRED,
    org_id       text NOT NULL,
    transactions bigint NOT NULL CHECK (transactions >= 0),
    PRIMARY KEY (agent_id, org_id)
);
INSERT INTO trust_counterparties (agent_id, org_id, transactions)
SELECT agent_id, org_id, count(*) FROM (
    SELECT from_agent AS agent_id, to_org AS org_id FROM transactions
     WHERE reversal_of IS NULL AND status = 'completed' AND from_org <> to_org
    UNION ALL
    SELECT to_agent, from_org FROM transactions
     WHERE reversal_of IS NULL AND status = 'completed' AND from_org <> to_org) p
GROUP BY agent_id, org_id;

ALTER TABLE trust_counters
    DROP COLUMN attempts, DROP COLUMN completed, DROP COLUMN refused, DROP COLUMN reversed,
    DROP COLUMN disputes, DROP COLUMN transactions,
    ADD COLUMN evidence_at       timestamptz,
    ADD COLUMN completed         float8 NOT NULL DEFAULT 0,
    ADD COLUMN failures          float8 NOT NULL DEFAULT 0,
    ADD COLUMN limit_refusals    float8 NOT NULL DEFAULT 0,
    ADD COLUMN reversals         float8 NOT NULL DEFAULT 0,
    ADD COLUMN disputing_orgs    float8 NOT NULL DEFAULT 0,
    ADD COLUMN open_disputes     bigint NOT NULL DEFAULT 0,
    ADD COLUMN counterparty_orgs bigint NOT NULL DEFAULT 0,
    ADD COLUMN first_external_at timestamptz;

-- weight(at, half-life in days) = 2^(−age/half-life) at the migration's now().
CREATE FUNCTION pg_temp.weight(at timestamptz, half_days float8) RETURNS float8
    LANGUAGE sql STABLE AS $$ SELECT power(2::float8, -greatest(extract(epoch FROM now() - at), 0) / (half_days * 86400)) $$;

UPDATE trust_counters tc SET
    evidence_at = now(),
    completed = coalesce((SELECT sum(pg_temp.weight(t.created_at, 30)) FROM transactions t
        WHERE (t.from_agent = tc.agent_id OR t.to_agent = tc.agent_id) AND t.reversal_of IS NULL
          AND t.status = 'completed' AND t.from_org <> t.to_org), 0),
    failures = coalesce((SELECT sum(pg_temp.weight(e.at, 30)) FROM audit_entries e
        WHERE e.agent_id = tc.agent_id AND e.action = 'transaction.refused'
          AND e.details->>'reason_code' IN ('action_not_authorized', 'currency_mismatch', 'environment_mismatch', 'invalid_amount')), 0),
    limit_refusals = coalesce((SELECT sum(pg_temp.weight(e.at, 1)) FROM audit_entries e
        WHERE e.agent_id = tc.agent_id AND e.action = 'transaction.refused'
          AND e.details->>'reason_code' IN ('amount_exceeds_limit', 'daily_limit_exceeded')), 0),
    reversals = coalesce((SELECT sum(pg_temp.weight(r.created_at, 90)) FROM transactions t
        JOIN transactions r ON r.id = t.reversed_by
        WHERE t.from_agent = tc.agent_id AND t.reversal_of IS NULL AND t.from_org <> t.to_org), 0),
    disputing_orgs = coalesce((SELECT sum(pg_temp.weight(f.first_at, 90)) FROM (
        SELECT min(d.created_at) AS first_at FROM disputes d
        WHERE d.agent_id = tc.agent_id AND d.status = 'open' AND d.reporter_org <> d.agent_org
        GROUP BY d.reporter_org) f), 0),
    open_disputes = (SELECT count(*) FROM disputes d
        WHERE d.agent_id = tc.agent_id AND d.status = 'open' AND d.reporter_org <> d.agent_org),
    counterparty_orgs = (SELECT count(*) FROM trust_counterparties p WHERE p.agent_id = tc.agent_id AND p.transactions > 0),
    first_external_at = (SELECT min(t.created_at) FROM transactions t
        WHERE (t.from_agent = tc.agent_id OR t.to_agent = tc.agent_id) AND t.reversal_of IS NULL AND t.from_org <> t.to_org);
ALTER TABLE trust_counters ALTER COLUMN evidence_at SET NOT NULL;
