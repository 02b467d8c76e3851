DROP TABLE IF EXISTS dispute_evidence, disputes, trust_snapshots, trust_counters;
