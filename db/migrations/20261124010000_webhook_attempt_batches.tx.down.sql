CREATE TABLE webhook_deliveries (
    id            text        NOT NULL,
    webhook_id    text        NOT NULL,
    event_id      text        NOT NULL,
    event_type    text        NOT NULL,
    attempt       integer     NOT NULL,
    success       boolean     NOT NULL,
    status_code   integer,
    latency_ms    integer     NOT NULL,
    error         text,
    response_body text,
    created_at    timestamptz NOT NULL,
    job_id        bigint,
    event_seq     bigint      NOT NULL,
    PRIMARY KEY (webhook_id, created_at, id)
);
CREATE INDEX webhook_deliveries_event_seq ON webhook_deliveries (webhook_id, event_seq);
INSERT INTO webhook_deliveries (id, webhook_id, event_id, event_type, attempt, success, status_code, latency_ms,
        error, response_body, created_at, job_id, event_seq)
    SELECT r.id, b.webhook_id, r.event_id, r.event_type, r.attempt, r.success, r.status_code, r.latency_ms,
        r.error, r.response_body, r.created_at, b.job_id, r.event_seq
    FROM webhook_attempt_batches b,
        unnest(b.ids, b.event_ids, b.event_types, b.attempts, b.success, b.status_codes, b.latencies_ms, b.errors,
            b.bodies, b.created_ats, b.event_seqs)
        AS r(id, event_id, event_type, attempt, success, status_code, latency_ms, error, response_body, created_at, event_seq);
DROP TABLE webhook_attempt_batches;
