ALTER TABLE events ALTER COLUMN data TYPE jsonb USING data::jsonb;
