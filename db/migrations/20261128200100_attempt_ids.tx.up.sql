-- node and nodes find a webhook delivery attempt by its id with an index
-- lookup whatever the endpoint's history: an attempt's id is its batch's id
-- (the batch's first attempt's) with its place in the batch instead of the
-- trailing 0, so the batch is found by its own id (webhook_attempt_batches_id)
-- and only it is unnested. The ids recorded so far are renamed so.
UPDATE webhook_attempt_batches SET id = id || '_0',
    ids = ARRAY(SELECT webhook_attempt_batches.id || '_' || (o - 1) FROM generate_series(1, cardinality(ids)) AS o ORDER BY o);
CREATE INDEX webhook_attempt_batches_id ON webhook_attempt_batches (id);
