-- The same executeTransaction as execute.sql, under the other concurrency
-- strategy: no row lock (plain SELECT instead of SELECT ... FOR UPDATE), the
-- whole transaction SERIALIZABLE, and a serialization failure retried by the
-- client (run with pgbench --max-tries=N; pgbench retries serialization and
-- deadlock failures from the start of the script).
--
-- One difference in order: each side's chain head (UPDATE agents) is advanced
-- before its audit entry is inserted. In the service's order two transactions
-- racing on one chain both compute the same next sequence and the loser fails
-- on audit_entries' primary key (23505 unique_violation, which is not a
-- serialization failure, so no client retries it: pgbench aborts). Updating the
-- row first makes the loser fail with 40001 ("could not serialize access due to
-- concurrent update"), which is retried. A service adopting this strategy would
-- have to do the same (or retry 23505 too). Otherwise kept in step with
-- execute.sql by hand.
--
-- Variables: as execute.sql (per_client, senders, receivers, notify).
\if :per_client
\set from :client_id + 1
\set to :client_id * 4 + random(1, 4)
\else
\set from random(1, :senders)
\set to random(1, :receivers)
\endif
\set amount random(1, 100)
BEGIN;
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;
SELECT agent_row.*, tc.assessment FROM "agents" AS "agent_row" JOIN trust_counters AS tc ON tc.agent_id = agent_row.id WHERE (agent_row.id IN ('agent_s' || :from, 'agent_r' || :to)) ORDER BY "agent_row"."id";
INSERT INTO "transactions" ("id", "from_agent", "to_agent", "from_org", "to_org", "action", "amount", "currency", "memo", "status", "reversal_of", "reversed_by", "reason", "created_at") VALUES ('tx_' || replace(gen_random_uuid()::text, '-', ''), 'agent_s' || :from, 'agent_r' || :to, 'org_bench_a', 'org_bench_b', 'purchase', :amount, 'USD', DEFAULT, 'completed', DEFAULT, DEFAULT, DEFAULT, now()) RETURNING "memo", "reversal_of", "reversed_by", "reason";
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = 'a843b2f7395586a87b915421bfb9f22c1bbe36b846a93f46c374aa8db893e463' WHERE ("agent_row"."id" = 'agent_s' || :from);
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq, 'transaction.completed', now(), 'key_ptuavggsz24xanby3gqkfe27xu', '{"action":"purchase","amount":"42","counterparty":"agent_4iisbeibsv6atm4ppsonxophzq","currency":"USD","direction":"outgoing","transaction_id":"tx_64qrlsyv7btt3dxw36vr72tl4e"}', 'a843b2f7395586a87b915421bfb9f22c1bbe36b846a93f46c374aa8db893e463', '48b574a384b3939ef7f439afda16dbf332668f999259bd57c1aa2150e38d5a29' FROM agents WHERE id = 'agent_s' || :from;
UPDATE "agents" AS "agent_row" SET "audit_seq" = audit_seq + 1, "audit_head" = '8cdad17159859caa4148c4007e2e70a6dde6bf87f8c486f6de4f3edb7942453a' WHERE ("agent_row"."id" = 'agent_r' || :to);
INSERT INTO "audit_entries" ("agent_id", "sequence", "action", "at", "actor", "details", "hash", "previous_hash") SELECT id, audit_seq, 'transaction.completed', now(), 'key_ptuavggsz24xanby3gqkfe27xu', '{"action":"purchase","amount":"42","counterparty":"agent_bkermieldkiiekf4ltnl24e7ge","currency":"USD","direction":"incoming","transaction_id":"tx_64qrlsyv7btt3dxw36vr72tl4e"}', '8cdad17159859caa4148c4007e2e70a6dde6bf87f8c486f6de4f3edb7942453a', '48b574a384b3939ef7f439afda16dbf332668f999259bd57c1aa2150e38d5a29' FROM agents WHERE id = 'agent_r' || :to;
INSERT INTO "events" ("seq", "id", "type", "org_ids", "data", "created_at") VALUES (DEFAULT, 'evt_' || replace(gen_random_uuid()::text, '-', ''), 'transaction.completed', '{"org_bench_a","org_bench_b"}', '{"id":"tx_64qrlsyv7btt3dxw36vr72tl4e","from_agent":"agent_bkermieldkiiekf4ltnl24e7ge","to_agent":"agent_4iisbeibsv6atm4ppsonxophzq","action":"purchase","amount":42,"currency":"USD","memo":null,"status":"completed","reversal_of":null,"reversed_by":null,"reason":null,"created_at":"2026-11-21T21:17:43.132Z"}', now()) RETURNING seq \gset
INSERT INTO "event_orgs" ("org_id", "event_seq") VALUES ('org_bench_a', :seq), ('org_bench_b', :seq);
\if :notify
SELECT pg_notify('att_events', :seq::text);
\endif
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_s' || :from);
UPDATE "trust_counters" SET evidence_at = now(), completed = completed + 1, failures = 0, limit_refusals = 0, reversals = 0, disputing_orgs = 0, open_disputes = 0, counterparty_orgs = 6, first_external_at = '2026-08-25 02:26:03.658696+00:00', score = 848, assessment = 'Verified', updated_at = now() WHERE (agent_id = 'agent_r' || :to);
COMMIT;
