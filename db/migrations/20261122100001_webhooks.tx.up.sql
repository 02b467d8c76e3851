-- Webhook endpoints. The secret is sealed with ENCRYPTION_KEY (keyring.Seal,
-- bound to the endpoint id); after a rotation the previous secret also signs
-- until previous_secret_until.
CREATE TABLE webhooks (
    id                    text PRIMARY KEY,
    org_id                text NOT NULL REFERENCES orgs (id),
    url                   text NOT NULL,
    events                text[] NOT NULL,
    active                boolean NOT NULL DEFAULT true,
    consecutive_failures  integer NOT NULL DEFAULT 0,
    secret_sealed         text NOT NULL,
    previous_secret_sealed text,
    previous_secret_until timestamptz,
    disabled_at           timestamptz,
    created_at            timestamptz NOT NULL,
    updated_at            timestamptz NOT NULL
);
CREATE INDEX webhooks_org ON webhooks (org_id, created_at);

-- Every delivery attempt, newest first per endpoint; pruned after WEBHOOK_RETENTION.
CREATE TABLE webhook_deliveries (
    id            text PRIMARY KEY,
    webhook_id    text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id      text NOT NULL,
    event_type    text NOT NULL,
    attempt       integer NOT NULL,
    success       boolean NOT NULL,
    status_code   integer,
    latency_ms    integer NOT NULL,
    error         text,
    response_body text,
    created_at    timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_page ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id);
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (created_at);

-- The dispatcher's durable place in the event log: jobs for the events up to
-- it are queued. One row; whoever holds its lock dispatches.
CREATE TABLE webhook_dispatch_cursor (
    id  integer PRIMARY KEY CHECK (id = 1),
    xid xid8 NOT NULL,
    seq bigint NOT NULL
);
INSERT INTO webhook_dispatch_cursor (id, xid, seq) VALUES (1, '0', 0);
