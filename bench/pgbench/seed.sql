-- The agents of the pgbench runs (bench/run-pgbench.sh, bench/load, bench/read), in a
-- migrated database: two organizations, :agents senders (agent_s1..) and
-- :agents receivers (agent_r1..), established (10^4 completed transactions
-- with five other organizations, the first 90 days ago) so that a few more
-- transactions leave their counters' score where it is.
INSERT INTO orgs (id, name) VALUES ('org_bench_a', 'bench senders'), ('org_bench_b', 'bench receivers');
INSERT INTO agents (id, org_id, name, authorized_actions, spending_limit, currency, environment, status, fingerprint, created_at, updated_at)
SELECT p.prefix || g, p.org, p.prefix || g, '{purchase,refund}', 1000000, 'USD', 'sandbox', 'active',
       'sha256:' || encode(sha256(convert_to(p.prefix || g, 'UTF8')), 'hex'), now(), now()
FROM (VALUES ('agent_s', 'org_bench_a'), ('agent_r', 'org_bench_b')) AS p(prefix, org),
     generate_series(1, :agents) AS g;
INSERT INTO trust_counters (agent_id, score, assessment, updated_at, evidence_at, completed, counterparty_orgs, first_external_at)
SELECT id, 700, 'Verified', now(), now(), 10000, 5, now() - interval '90 days' FROM agents WHERE org_id IN ('org_bench_a', 'org_bench_b');
