DROP TABLE IF EXISTS event_orgs, events, audit_entries, agents, api_keys, orgs;
