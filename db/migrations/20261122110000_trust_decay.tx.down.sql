-- Not reversible without recomputing the old counters: restore from a backup.
SELECT 1;
