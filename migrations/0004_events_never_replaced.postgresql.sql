-- Reason: SQLite's INSERT OR REPLACE would rewrite the append-only log without firing its
-- delete trigger (0004_events_never_replaced.sql). PostgreSQL has no REPLACE, and its upsert
-- (INSERT ... ON CONFLICT DO UPDATE) fires the update trigger of 0001, which refuses it: nothing
-- to add here; the number is kept so that both dialects count their migrations alike.
SELECT 1;
