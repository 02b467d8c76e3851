-- Every API key has a role; keys made before roles existed are admin keys.
-- An agent key lists the agents it may act for (non-empty exactly then).
ALTER TABLE api_keys ADD COLUMN role text NOT NULL DEFAULT 'admin'
    CHECK (role IN ('admin', 'agent', 'readonly'));
ALTER TABLE api_keys ALTER COLUMN role DROP DEFAULT;
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN agent_ids text[] NOT NULL DEFAULT '{}';
ALTER TABLE api_keys ADD CONSTRAINT api_keys_agent_ids_check
    CHECK ((role = 'agent') = (cardinality(agent_ids) > 0));
-- The key that filed a dispute: an agent key may withdraw only its own.
ALTER TABLE disputes ADD COLUMN filed_by_key text;
