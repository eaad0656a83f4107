-- Reason: PostgreSQL spelling of 0006_answers_expire.sql (the time of the answers kept so far:
-- now, in UTC, written as the bot writes an answer's time).
ALTER TABLE requests ADD COLUMN answered_at TEXT NOT NULL DEFAULT '';

UPDATE requests SET answered_at = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS');
