CREATE TABLE transactions (
    id              text PRIMARY KEY,
    from_agent      text NOT NULL REFERENCES agents (id),
    to_agent        text NOT NULL REFERENCES agents (id),
    from_org        text NOT NULL,
    to_org          text NOT NULL,
    action          text NOT NULL,
    amount          numeric NOT NULL CHECK (amount > 0),
    currency        text NOT NULL,
    memo            text,
    status          text NOT NULL CHECK (status IN ('completed', 'reversed')),
    reversal_of     text UNIQUE REFERENCES transactions (id),
    reversed_by     text,
    reason          text,
    created_at      timestamptz NOT NULL
);
-- Keyset pages, newest first, for each side of visibility and each party:
-- a page reads at most limit+1 index entries per branch, however long the history.
CREATE INDEX transactions_from_org ON transactions (from_org, created_at DESC, id DESC);
CREATE INDEX transactions_to_org ON transactions (to_org, created_at DESC, id DESC);
CREATE INDEX transactions_from_agent ON transactions (from_agent, created_at DESC, id DESC);
CREATE INDEX transactions_to_agent ON transactions (to_agent, created_at DESC, id DESC);

-- Idempotency keys, scoped per organization, bound to the request's parameters.
CREATE TABLE idempotency_keys (
    org_id         text NOT NULL,
    key            text NOT NULL,
    request_hash   text NOT NULL,
    transaction_id text NOT NULL REFERENCES transactions (id),
    created_at     timestamptz NOT NULL,
    PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
