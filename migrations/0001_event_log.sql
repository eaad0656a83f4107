-- Reason: the club's truth is an append-only event log; ratings are derived from it by replay.
-- Clubs are keyed by platform and chat id; answers of handled requests make every use case
-- idempotent under the platform's update or interaction ids.
CREATE TABLE clubs (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (platform, chat_id)
);

CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    club_id INTEGER NOT NULL REFERENCES clubs (id),
    kind TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL
);

CREATE INDEX events_by_club ON events (club_id, id);

CREATE TRIGGER events_are_never_updated BEFORE UPDATE ON events
BEGIN
    SELECT RAISE (ABORT, 'the event log is append-only');
END;

CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
BEGIN
    SELECT RAISE (ABORT, 'the event log is append-only');
END;

CREATE TABLE requests (
    club_id INTEGER NOT NULL REFERENCES clubs (id),
    request_id TEXT NOT NULL,
    response TEXT NOT NULL,
    PRIMARY KEY (club_id, request_id)
);
