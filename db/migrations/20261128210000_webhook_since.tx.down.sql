ALTER TABLE webhooks DROP COLUMN since;
