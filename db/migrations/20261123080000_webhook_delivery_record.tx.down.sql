CREATE INDEX webhook_deliveries_age ON webhook_deliveries (created_at);
DELETE FROM webhook_deliveries d WHERE NOT EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id);
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_webhook_id_fkey
    FOREIGN KEY (webhook_id) REFERENCES webhooks (id) ON DELETE CASCADE;
