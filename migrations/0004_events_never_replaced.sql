-- Reason: INSERT OR REPLACE (or REPLACE) of an event that exists would rewrite the append-only
-- log: SQLite deletes the old row for it without firing the delete trigger (unless
-- recursive_triggers is on), so an insert that names an id already taken is refused outright.
-- New events never name their id (the log numbers them), so only a rewrite is stopped.
CREATE TRIGGER events_are_never_replaced BEFORE INSERT ON events
WHEN EXISTS (SELECT 1 FROM events WHERE id = NEW.id)
BEGIN
    SELECT RAISE (ABORT, 'the event log is append-only');
END;
