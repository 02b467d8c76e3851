-- One executeTransaction as the service runs it (db/transaction.go Execute,
-- lockParties and complete, db/audit.go, db/event.go, db/trust.go
-- countCounterparties and storeTrust), steady state:
-- no idempotency key, sender without a daily limit (so no outflow read), and
-- scores that do not change (so applyTrust writes no snapshot and no
-- trust.score_changed event). Statement for statement what the service sends
-- inside its transaction, in the same round trips: the writes whose results
-- it does not read go out together in one pgx batch (db/write.go), here
-- joined with \; so that pgbench sends them in one round trip too (BEGIN,
-- two reads, the counterparty upsert, eight writes together, COMMIT). The
-- service authenticates the caller's key before BEGIN, from its key cache;
-- a key it has not cached costs one lookup more.
--
-- Variables (pass with -D; bench/run-pgbench.sh sets them all):
--   per_client  1: client N sends from agent_s(N+1) to one of its own four
--                  receivers agent_r(4N+1..4N+4) (as BenchmarkExecuteTransaction);
--               0: sender random among agent_s1..agent_s<senders>, receiver
--                  random among agent_r1..agent_r<receivers>.
--   senders, receivers  pool sizes for per_client = 0.
--   notify      1: NOTIFY as the service does; 0: leave it out
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
-- The sender's ownership.
SELECT EXISTS (SELECT 1 FROM agents WHERE id = 'agent_s' || :from AND org_id = 'org_bench_a');
SELECT agent_row.*, tc.evidence_at AS tc_evidence_at, tc.completed AS tc_completed, tc.failures AS tc_failures,
 tc.limit_refusals AS tc_limit_refusals, tc.reversals AS tc_reversals, tc.disputing_orgs AS tc_disputing_orgs,
 tc.open_disputes AS tc_open_disputes, tc.counterparty_orgs AS tc_counterparty_orgs,
 tc.first_external_at AS tc_first_external_at, tc.score AS tc_score, tc.assessment AS tc_assessment,
 tc.updated_at AS tc_updated_at FROM "agents" AS "agent_row" JOIN trust_counters AS tc ON tc.agent_id = agent_row.id WHERE (agent_row.id IN ('agent_r' || :to, 'agent_s' || :from)) ORDER BY "agent_row"."id" FOR UPDATE OF agent_row, tc;
INSERT INTO trust_counterparties (agent_id, org_id, transactions) VALUES ('agent_s' || :from, 'org_bench_b', 1::bigint), ('agent_r' || :to, 'org_bench_a', 1::bigint)
 ON CONFLICT (agent_id, org_id) DO UPDATE SET transactions = trust_counterparties.transactions + EXCLUDED.transactions
 RETURNING agent_id, transactions;
-- The writes, one message. The service computes sequence, hash and head MAC
-- in Go from the locked row, and decays the counters in Go; here the next
-- sequence comes from the (already locked) row and the hash, MAC and
-- counters are literals.
\if :notify
INSERT INTO "transactions" ("id", "from_agent", "to_agent", "from_org", "to_org", "action", "amount", "currency", "memo", "status", "reversal_of", "reversed_by", "reason", "created_at") VALUES ('tx_' || replace(gen_random_uuid()::text, '-', ''), 'agent_s' || :from, 'agent_r' || :to, 'org_bench_a', 'org_bench_b', 'purchase', :amount, 'USD', DEFAULT, 'completed', DEFAULT, DEFAULT, DEFAULT, now()) \;
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'key_ouqxqwriro3xfkd6rqj2nxv5ke', '{"action":"purchase","amount":"1","counterparty":"agent_m2m3h4aol7dswak42k7fibugfa","currency":"USD","direction":"outgoing","transaction_id":"tx_tyq6spkkoggjsni6dpcnihcif4"}', '935ce35ce4a4d15b0afc0f0d9b93d147425ac2c9445be2e84eb00e09a30ee480', audit_head FROM agents WHERE id = 'agent_s' || :from \;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = '935ce35ce4a4d15b0afc0f0d9b93d147425ac2c9445be2e84eb00e09a30ee480', "audit_head_mac" = '667a493d7afeee115d8072fe02e2a3b61527d76bb13cd88956a6e1d788c8bd7b' WHERE ("agent_row"."id" = 'agent_s' || :from) \;
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'external', '{"action":"purchase","amount":"1","counterparty":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","currency":"USD","direction":"incoming","transaction_id":"tx_tyq6spkkoggjsni6dpcnihcif4"}', 'aa0d8caec30cf0e05cd32ba3fe21555d5779b8217ec1b5945aea807f4f130023', audit_head FROM agents WHERE id = 'agent_r' || :to \;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = 'aa0d8caec30cf0e05cd32ba3fe21555d5779b8217ec1b5945aea807f4f130023', "audit_head_mac" = '0de6d2da5fd06f850ddef28b1e2dc6e2f413f93114356cbdc40021900f49f3b8' WHERE ("agent_row"."id" = 'agent_r' || :to) \;
WITH e AS (INSERT INTO events (id, type, org_ids, data, created_at) VALUES ('evt_' || replace(gen_random_uuid()::text, '-', ''), 'transaction.completed', '{"org_bench_a","org_bench_b"}', '{"id":"tx_tyq6spkkoggjsni6dpcnihcif4","from_agent":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","to_agent":"agent_m2m3h4aol7dswak42k7fibugfa","action":"purchase","amount":1,"currency":"USD","memo":null,"status":"completed","reversal_of":null,"reversed_by":null,"reason":null,"created_at":"2026-11-23T05:27:00.778Z"}', now()) RETURNING seq),
 o AS (INSERT INTO event_orgs (org_id, event_seq) SELECT unnest('{"org_bench_a","org_bench_b"}'::text[]), seq FROM e)
 SELECT seq, pg_notify('att_events', seq::text) FROM e \;
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_s' || :from) \;
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_r' || :to);
\else
INSERT INTO "transactions" ("id", "from_agent", "to_agent", "from_org", "to_org", "action", "amount", "currency", "memo", "status", "reversal_of", "reversed_by", "reason", "created_at") VALUES ('tx_' || replace(gen_random_uuid()::text, '-', ''), 'agent_s' || :from, 'agent_r' || :to, 'org_bench_a', 'org_bench_b', 'purchase', :amount, 'USD', DEFAULT, 'completed', DEFAULT, DEFAULT, DEFAULT, now()) \;
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'key_ouqxqwriro3xfkd6rqj2nxv5ke', '{"action":"purchase","amount":"1","counterparty":"agent_m2m3h4aol7dswak42k7fibugfa","currency":"USD","direction":"outgoing","transaction_id":"tx_tyq6spkkoggjsni6dpcnihcif4"}', '935ce35ce4a4d15b0afc0f0d9b93d147425ac2c9445be2e84eb00e09a30ee480', audit_head FROM agents WHERE id = 'agent_s' || :from \;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = '935ce35ce4a4d15b0afc0f0d9b93d147425ac2c9445be2e84eb00e09a30ee480', "audit_head_mac" = '667a493d7afeee115d8072fe02e2a3b61527d76bb13cd88956a6e1d788c8bd7b' WHERE ("agent_row"."id" = 'agent_s' || :from) \;
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq + 1, 'transaction.completed', now(), 'external', '{"action":"purchase","amount":"1","counterparty":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","currency":"USD","direction":"incoming","transaction_id":"tx_tyq6spkkoggjsni6dpcnihcif4"}', 'aa0d8caec30cf0e05cd32ba3fe21555d5779b8217ec1b5945aea807f4f130023', audit_head FROM agents WHERE id = 'agent_r' || :to \;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = 'aa0d8caec30cf0e05cd32ba3fe21555d5779b8217ec1b5945aea807f4f130023', "audit_head_mac" = '0de6d2da5fd06f850ddef28b1e2dc6e2f413f93114356cbdc40021900f49f3b8' WHERE ("agent_row"."id" = 'agent_r' || :to) \;
WITH e AS (INSERT INTO "events" ("seq", "id", "type", "org_ids", "data", "created_at") VALUES (DEFAULT, 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'transaction.completed', '{"org_bench_a","org_bench_b"}', '{"id":"tx_tyq6spkkoggjsni6dpcnihcif4","from_agent":"agent_2rhupb5n2lxyxykkcg7qiwi5oy","to_agent":"agent_m2m3h4aol7dswak42k7fibugfa","action":"purchase","amount":1,"currency":"USD","memo":null,"status":"completed","reversal_of":null,"reversed_by":null,"reason":null,"created_at":"2026-11-23T05:27:00.778Z"}', now()) RETURNING seq) INSERT INTO event_orgs (org_id, event_seq) SELECT o, e.seq FROM e CROSS JOIN unnest('{"org_bench_a","org_bench_b"}'::text[]) AS o \;
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_s' || :from) \;
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_r' || :to);
\endif
COMMIT;
