ALTER TABLE transactions DROP COLUMN mandate_id;
DROP TABLE mandates;
