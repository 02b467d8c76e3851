-- The snapshot an endpoint's registration took once no event could commit
-- before it without being seen (see WebhookService.Register): the endpoint
-- receives the events of every transaction that snapshot does not see, which
-- all commit after the registration, and none of those it sees.
ALTER TABLE webhooks ADD COLUMN since pg_snapshot;
-- Endpoints registered before this column existed see no event as earlier
-- than themselves: they keep every event the dispatcher has not passed yet.
UPDATE webhooks SET since = '1:1:';
-- A row inserted without it (seeding, tests) starts at its own statement's
-- snapshot; Register sets it under the events lock.
ALTER TABLE webhooks ALTER COLUMN since SET NOT NULL,
                     ALTER COLUMN since SET DEFAULT pg_current_snapshot();
