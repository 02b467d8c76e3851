ALTER TABLE disputes DROP COLUMN filed_by_key;
ALTER TABLE api_keys DROP CONSTRAINT api_keys_agent_ids_check;
ALTER TABLE api_keys DROP COLUMN agent_ids;
ALTER TABLE api_keys DROP COLUMN name;
ALTER TABLE api_keys DROP COLUMN role;
