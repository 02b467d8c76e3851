-- When each API key last authenticated a request (recorded at most once a minute).
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
