CREATE INDEX webhook_deliveries_event ON webhook_deliveries (webhook_id, event_id);
DROP INDEX webhook_deliveries_event_seq;
ALTER TABLE webhook_deliveries DROP COLUMN event_seq;
