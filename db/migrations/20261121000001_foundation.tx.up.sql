CREATE TABLE orgs (
    id         text PRIMARY KEY,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
    id         text PRIMARY KEY,
    org_id     text NOT NULL REFERENCES orgs (id),
    hash       bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_org_id ON api_keys (org_id);

CREATE TABLE agents (
    seq                bigserial NOT NULL UNIQUE,
    id                 text PRIMARY KEY,
    org_id             text NOT NULL REFERENCES orgs (id),
    name               text NOT NULL,
    authorized_actions text[] NOT NULL,
    spending_limit     numeric NOT NULL CHECK (spending_limit > 0),
    daily_limit        numeric CHECK (daily_limit > 0),
    currency           text NOT NULL,
    environment        text NOT NULL CHECK (environment IN ('sandbox', 'production')),
    status             text NOT NULL CHECK (status IN ('active', 'suspended')),
    fingerprint        text NOT NULL,
    audit_seq          integer NOT NULL DEFAULT 0,
    audit_head         text NOT NULL DEFAULT '',
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL
);
-- Keyset pagination: newest first within an organization, optionally by status.
CREATE INDEX agents_org_seq ON agents (org_id, seq DESC);
CREATE INDEX agents_org_status_seq ON agents (org_id, status, seq DESC);

CREATE TABLE audit_entries (
    agent_id      text NOT NULL REFERENCES agents (id) DEFERRABLE INITIALLY DEFERRED,
    sequence      integer NOT NULL,
    action        text NOT NULL,
    at            timestamptz NOT NULL,
    actor         text NOT NULL,
    details       jsonb,
    hash          text NOT NULL,
    previous_hash text NOT NULL,
    PRIMARY KEY (agent_id, sequence)
);

-- The durable event log: append-only, ordered by seq.
CREATE TABLE events (
    seq        bigserial PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    type       text NOT NULL,
    org_ids    text[] NOT NULL,
    data       jsonb NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
-- One row per organization an event concerns, for per-organization replay.
CREATE TABLE event_orgs (
    org_id    text NOT NULL,
    event_seq bigint NOT NULL REFERENCES events (seq),
    PRIMARY KEY (org_id, event_seq)
);
