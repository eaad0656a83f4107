-- Reason: an answer to a request is kept only while the platform may redeliver its update
-- (issue 30: a stranger's refused commands grew the table forever). Each answer gets the time
-- it was given, as ISO 8601 text to the second (naive UTC, like every time the bot writes), and
-- answers older than the redelivery window are removed (bot/service/session.py). The answers
-- kept so far have no time: they count as given now, so a redelivery just after the upgrade
-- still finds its first answer, and they go with the window. No event changes.
ALTER TABLE requests ADD COLUMN answered_at TEXT NOT NULL DEFAULT '';

UPDATE requests SET answered_at = strftime('%Y-%m-%dT%H:%M:%S', 'now');
