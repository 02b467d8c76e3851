DROP TABLE audit_checkpoints;
ALTER TABLE agents DROP COLUMN audit_head_mac;
