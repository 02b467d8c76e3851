-- The River job that made each attempt: a delivery job carries a batch of
-- events, and when it is retried it sends only those it has not yet
-- delivered (the ones with no successful attempt under its id).
ALTER TABLE webhook_deliveries ADD COLUMN job_id bigint;
