ALTER TABLE webhook_deliveries DROP COLUMN job_id;
