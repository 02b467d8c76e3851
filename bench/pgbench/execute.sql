-- One executeTransaction as the service runs it (db/transaction.go Execute,
-- lockParties and complete, db/audit.go, db/event.go, db/trust.go
-- countCounterparties and storeTrust), steady state:
-- no idempotency key, sender without a daily limit (so no outflow read), and
-- scores that do not change (so applyTrust writes no snapshot and no
-- trust.score_changed event). Statement for statement what the service sends
-- inside its transaction (captured with log_statement = all, 2026-11-23). A
-- service replica that recalls the caller's API key checks it in the first
-- statement below and runs nothing else; one that does not (the key's first
-- request, or its first in a minute) also runs the key lookup before BEGIN.
--
-- Variables (pass with -D; bench/run-pgbench.sh sets them all):
--   per_client  1: client N sends from agent_s(N+1) to one of its own four
--                  receivers agent_r(4N+1..4N+4) (as BenchmarkExecuteTransaction);
--               0: sender random among agent_s1..agent_s<senders>, receiver
--                  random among agent_r1..agent_r<receivers>.
--   senders, receivers  pool sizes for per_client = 0.
--   notify      1: SELECT pg_notify as the service does; 0: leave it out
--                  (diagnostic: NOTIFY serializes commits cluster-wide).
\if :per_client
\set from :client_id + 1
\set to :client_id * 4 + random(1, 4)
\else
\set from random(1, :senders)
\set to random(1, :receivers)
\endif
\set amount random(1, 100)
BEGIN;
-- The sender's ownership and the API key, which the service confirms in this
-- first statement (its key lookup before BEGIN is skipped for a key it recalls).
SELECT EXISTS (SELECT 1 FROM agents WHERE id = 'agent_s' || :from AND org_id = 'org_bench_a'),
 EXISTS (SELECT 1 FROM api_keys WHERE id = 'key_ouqxqwriro3xfkd6rqj2nxv5ke' AND revoked_at IS NULL);
SELECT agent_row.*, tc.evidence_at AS tc_evidence_at, tc.completed AS tc_completed, tc.failures AS tc_failures, tc.limit_refusals AS tc_limit_refusals, tc.reversals AS tc_reversals, tc.disputing_orgs AS tc_disputing_orgs, tc.open_disputes AS tc_open_disputes, tc.counterparty_orgs AS tc_counterparty_orgs, tc.first_external_at AS tc_first_external_at, tc.score AS tc_score, tc.assessment AS tc_assessment, tc.updated_at AS tc_updated_at FROM "agents" AS "agent_row" JOIN trust_counters AS tc ON tc.agent_id = agent_row.id WHERE (agent_row.id IN ('agent_r' || :to, 'agent_s' || :from)) ORDER BY "agent_row"."id" FOR UPDATE OF agent_row, tc;
INSERT INTO "transactions" ("id", "from_agent", "to_agent", "from_org", "to_org", "action", "amount", "currency", "memo", "status", "reversal_of", "reversed_by", "reason", "created_at") VALUES ('tx_' || replace(gen_random_uuid()::text, '-', ''), 'agent_s' || :from, 'agent_r' || :to, 'org_bench_a', 'org_bench_b', 'purchase', :amount, 'USD', DEFAULT, 'completed', DEFAULT, DEFAULT, DEFAULT, now()) RETURNING "memo", "reversal_of", "reversed_by", "reason";
-- The service computes sequence, hash and head MAC in Go from the locked row;
-- here the next sequence comes from the (already locked) row and the hash and
-- MAC are literals.
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'key_ouqxqwriro3xfkd6rqj2nxv5ke', '{"action":"purchase","amount":"1","counterparty":"agent_zz7folv4jkdftvu5jplaegpvqa","currency":"USD","direction":"outgoing","transaction_id":"tx_j5jndcrpicuz7wgufmdr6rdqnq"}', '8ba7cb67b1adef77415c82ff0cb99b36ca7fb66c1981ddf16fe1a1896fe50534', audit_head FROM agents WHERE id = 'agent_s' || :from;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = '8ba7cb67b1adef77415c82ff0cb99b36ca7fb66c1981ddf16fe1a1896fe50534', "audit_head_mac" = '3f0a7f4860cda295302c3ccb4d9272e49f01776db94daf115619480651bb2acf' WHERE ("agent_row"."id" = 'agent_s' || :from);
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'external', '{"action":"purchase","amount":"1","counterparty":"agent_22gox6loj3u47ov4ahjjx5vhsm","currency":"USD","direction":"incoming","transaction_id":"tx_j5jndcrpicuz7wgufmdr6rdqnq"}', '2b560da809af7f51269f64a73544e0958244f0e84052f3d6d2d6ffa8c030e600', audit_head FROM agents WHERE id = 'agent_r' || :to;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = '2b560da809af7f51269f64a73544e0958244f0e84052f3d6d2d6ffa8c030e600', "audit_head_mac" = '43accb012497572651ea02cf66c0c3dd02e051c65045255e5bd6dd91a480faf2' WHERE ("agent_row"."id" = 'agent_r' || :to);
INSERT INTO "events" ("seq", "id", "type", "org_ids", "data", "created_at") VALUES (DEFAULT, 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'transaction.completed', '{"org_bench_a","org_bench_b"}', '{"id":"tx_j5jndcrpicuz7wgufmdr6rdqnq","from_agent":"agent_22gox6loj3u47ov4ahjjx5vhsm","to_agent":"agent_zz7folv4jkdftvu5jplaegpvqa","action":"purchase","amount":1,"currency":"USD","memo":null,"status":"completed","reversal_of":null,"reversed_by":null,"reason":null,"created_at":"2026-11-23T02:26:04.606Z"}', now()) RETURNING seq \gset
INSERT INTO "event_orgs" ("org_id", "event_seq") VALUES ('org_bench_a', :seq), ('org_bench_b', :seq);
\if :notify
SELECT pg_notify('att_events', :seq::text);
\endif
INSERT INTO trust_counterparties (agent_id, org_id, transactions) VALUES ('agent_s' || :from, 'org_bench_b', 1::bigint), ('agent_r' || :to, 'org_bench_a', 1::bigint) ON CONFLICT (agent_id, org_id) DO UPDATE SET transactions = trust_counterparties.transactions + EXCLUDED.transactions RETURNING agent_id, transactions;
-- The service decays the counters in Go and writes them all back.
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_s' || :from);
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_r' || :to);
COMMIT;
