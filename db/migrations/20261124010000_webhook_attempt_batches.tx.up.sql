-- Attempt records are stored a batch to a row: the attempts a delivery job
-- hands its recorder at once (a hundred or so while a backlog drains, one
-- when events trickle in), as parallel arrays in the order they ended. A row
-- per attempt cost Postgres 12-14.5 us of CPU per delivery (a heap tuple and
-- two index entries each), the largest part of a delivery's database cost;
-- a batch pays for its tuple and index entries once.
--
-- Reading goes by batch: an endpoint's page of attempts, newest first, walks
-- the primary key's newest batches (first_at and n, in the key, say how far
-- it must go: batches overlap in time when jobs run side by side) and
-- unnests only those; numbering an attempt counts the endpoint's earlier
-- attempts at its event in the batches whose event range (lo_seq..hi_seq)
-- overlaps its batch's; a retried job's delivered events are found by its
-- job_id. A batch never spans more than 10 minutes (RecordAttempts splits a
-- longer one), which bounds where a page after a cursor starts its walk.
CREATE TABLE webhook_attempt_batches (
    webhook_id   text          NOT NULL,
    last_at      timestamptz   NOT NULL, -- its newest attempt's time
    id           text          NOT NULL, -- its first attempt's id
    first_at     timestamptz   NOT NULL, -- its oldest attempt's time
    n            integer       NOT NULL, -- how many attempts it holds
    lo_seq       bigint        NOT NULL, -- its lowest event_seq
    hi_seq       bigint        NOT NULL, -- its highest event_seq
    job_id       bigint,
    run          integer,                -- the job's attempt (River's count) that made them
    ids          text[]        NOT NULL,
    event_ids    text[]        NOT NULL,
    event_seqs   bigint[]      NOT NULL,
    event_types  text[]        NOT NULL,
    attempts     integer[]     NOT NULL,
    success      boolean[]     NOT NULL,
    status_codes integer[]     NOT NULL, -- NULL where no HTTP answer came
    latencies_ms integer[]     NOT NULL,
    errors       text[]        NOT NULL, -- NULL where none
    bodies       text[]        NOT NULL, -- NULL where no HTTP answer came
    created_ats  timestamptz[] NOT NULL,
    PRIMARY KEY (webhook_id, last_at, id) INCLUDE (first_at, n)
);
CREATE INDEX webhook_attempt_batches_events ON webhook_attempt_batches (webhook_id, hi_seq) INCLUDE (lo_seq, job_id, run);
-- A batch's arrays (a hundred attempts' ids, times, bodies: several KB) are
-- compressed out of line: with lz4, where the server has it (Debian's and
-- the PGDG packages do), a 100-attempt batch cost Postgres 1.3 us of CPU
-- per attempt to write against 3.4 with the default pglz (2,000 batches in
-- one loop, two runs each).
DO $$
BEGIN
    ALTER TABLE webhook_attempt_batches ALTER ids SET COMPRESSION lz4, ALTER event_ids SET COMPRESSION lz4,
        ALTER event_seqs SET COMPRESSION lz4, ALTER event_types SET COMPRESSION lz4,
        ALTER attempts SET COMPRESSION lz4, ALTER success SET COMPRESSION lz4,
        ALTER status_codes SET COMPRESSION lz4, ALTER latencies_ms SET COMPRESSION lz4,
        ALTER errors SET COMPRESSION lz4, ALTER bodies SET COMPRESSION lz4, ALTER created_ats SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'this server has no lz4: attempt records are compressed with pglz';
END $$;
CREATE INDEX webhook_attempt_batches_job ON webhook_attempt_batches (job_id);

INSERT INTO webhook_attempt_batches (webhook_id, last_at, id, first_at, n, lo_seq, hi_seq, job_id, ids, event_ids,
        event_seqs, event_types, attempts, success, status_codes, latencies_ms, errors, bodies, created_ats)
    SELECT webhook_id, created_at, id, created_at, 1, event_seq, event_seq, job_id, ARRAY[id], ARRAY[event_id],
        ARRAY[event_seq], ARRAY[event_type], ARRAY[attempt], ARRAY[success], ARRAY[status_code], ARRAY[latency_ms],
        ARRAY[error], ARRAY[response_body], ARRAY[created_at]
    FROM webhook_deliveries;
DROP TABLE webhook_deliveries;
