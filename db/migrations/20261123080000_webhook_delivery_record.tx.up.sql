-- Attempt records are written by the hundred per delivery job: each index and
-- each foreign-key check is paid on every row. The endpoint's deletion
-- deletes its records in its own transaction (RecordAttempts holds a
-- key-share lock on the endpoint's row while it writes, so none is missed),
-- and pruning walks each endpoint's newest-first index instead of an index of
-- its own.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_webhook_id_fkey;
DROP INDEX webhook_deliveries_age;
