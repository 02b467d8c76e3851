DROP TABLE webhook_dispatch_cursor;
DROP TABLE webhook_deliveries;
DROP TABLE webhooks;
