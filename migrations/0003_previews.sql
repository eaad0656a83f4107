-- Reason: a correction a moderator previews is applied (or cancelled) later, often with a button
-- pressed after the bot restarted or in another bot process on the same database; so the
-- preview is kept here, one per moderator and club (a new preview replaces the earlier one), and
-- taken away, in one statement, by whoever applies or cancels it. The correction is JSON text;
-- times are ISO 8601 text in UTC, as in the event log.
CREATE TABLE previews (
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    user_id TEXT NOT NULL,
    game BIGINT NOT NULL,
    correction TEXT NOT NULL,
    previewed_at TEXT NOT NULL,
    PRIMARY KEY (club_id, user_id)
);
