-- A mandate is spend authority for one task. spent and uses are updated in
-- the execute's transaction under the row's lock; the checks are the last
-- line behind that lock: a budget or maxUses is never exceeded.
CREATE TABLE mandates (
    seq                 bigserial NOT NULL UNIQUE,
    id                  text PRIMARY KEY,
    org_id              text NOT NULL REFERENCES orgs (id),
    agent_id            text NOT NULL REFERENCES agents (id),
    description         text NOT NULL,
    actions             text[] NOT NULL,
    counterparty_agents text[],
    counterparty_orgs   text[],
    max_per_transaction numeric,
    budget              numeric NOT NULL CHECK (budget > 0),
    currency            text NOT NULL,
    max_uses            integer CHECK (max_uses >= 1),
    not_before          timestamptz,
    expires_at          timestamptz NOT NULL,
    spent               numeric NOT NULL DEFAULT 0 CHECK (spent >= 0 AND spent <= budget),
    uses                integer NOT NULL DEFAULT 0 CHECK (uses >= 0 AND (max_uses IS NULL OR uses <= max_uses)),
    created_at          timestamptz NOT NULL,
    revoked_at          timestamptz,
    revoke_reason       text
);
CREATE INDEX mandates_org ON mandates (org_id, seq);
CREATE INDEX mandates_agent ON mandates (agent_id, seq);
ALTER TABLE transactions ADD COLUMN mandate_id text REFERENCES mandates (id);
