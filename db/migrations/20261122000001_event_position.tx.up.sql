-- Each event records the id of the transaction that wrote it. Readers order
-- the log by (xid, seq) and read only events whose transaction is older than
-- every transaction still running (pg_snapshot_xmin), so an event that commits
-- late can never land behind a reader's position: see db/eventlog.go.
ALTER TABLE events ADD COLUMN xid xid8;
-- Events written before this migration are all committed; '1' orders them
-- before every real transaction id, among themselves by seq.
UPDATE events SET xid = '1'::xid8;
ALTER TABLE events ALTER COLUMN xid SET DEFAULT pg_current_xact_id(),
                   ALTER COLUMN xid SET NOT NULL;
CREATE INDEX events_position ON events (xid, seq);
