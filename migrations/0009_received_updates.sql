-- Reason: a Telegram update is confirmed to Telegram (long polling's offset moves past it) only
-- once it is kept here, and it stays here until it was handled (its answer sent, its writes
-- committed): a bot killed in between handles what it kept at its next start, and an update
-- Telegram delivers again - or another process receives too - is found here and handled once
-- (issue 41). The source is the receiving bot's own id (e.g. "telegram:123456", never the
-- token), so two bots on one database never clash. The body is the update as Telegram sent it
-- (JSON text), dropped once handled; the row stays for as long as a platform may deliver it
-- again: until long polling confirmed it (asked for the updates after it), else 48 hours, like
-- the answers of 0006. Times are ISO 8601 text in UTC.
CREATE TABLE received_updates (
    source TEXT NOT NULL,
    update_id BIGINT NOT NULL,
    body TEXT,
    received_at TEXT NOT NULL,
    PRIMARY KEY (source, update_id)
);

CREATE INDEX received_updates_by_time ON received_updates (received_at);
