-- Per-agent trust counters, updated in the same transaction as the event
-- that changes them, and the score they last produced.
CREATE TABLE trust_counters (
    agent_id     text PRIMARY KEY REFERENCES agents (id) DEFERRABLE INITIALLY DEFERRED,
    attempts     bigint NOT NULL DEFAULT 0,
    completed    bigint NOT NULL DEFAULT 0,
    refused      bigint NOT NULL DEFAULT 0,
    reversed     bigint NOT NULL DEFAULT 0,
    disputes     bigint NOT NULL DEFAULT 0,
    transactions bigint NOT NULL DEFAULT 0,
    score        integer NOT NULL,
    assessment   text NOT NULL,
    updated_at   timestamptz NOT NULL
);

-- Every score change, newest first per agent.
CREATE TABLE trust_snapshots (
    seq        bigserial PRIMARY KEY,
    agent_id   text NOT NULL REFERENCES agents (id) DEFERRABLE INITIALLY DEFERRED,
    at         timestamptz NOT NULL,
    score      integer NOT NULL,
    assessment text NOT NULL,
    cause      text
);
CREATE INDEX trust_snapshots_agent ON trust_snapshots (agent_id, at DESC, seq DESC);

CREATE TABLE disputes (
    id           text PRIMARY KEY,
    agent_id     text NOT NULL REFERENCES agents (id),
    reporter_org text NOT NULL,
    reason       text NOT NULL,
    evidence_ids text[] NOT NULL,
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
    created_at   timestamptz NOT NULL
);
CREATE INDEX disputes_agent ON disputes (agent_id);
-- At most one open dispute per reporter organization and transaction.
CREATE TABLE dispute_evidence (
    reporter_org   text NOT NULL,
    transaction_id text NOT NULL REFERENCES transactions (id),
    dispute_id     text NOT NULL REFERENCES disputes (id),
    PRIMARY KEY (reporter_org, transaction_id)
);
