-- Reason: scheduled leaderboard posts go out exactly once: a post is claimed (one row per club,
-- ladder and scheduled time) before it is sent, and only the writer whose insert succeeded
-- sends it, so a restart or a second bot process never posts twice. Times are ISO 8601 text
-- in UTC, as in the event log.
CREATE TABLE posts (
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    ladder TEXT NOT NULL,
    scheduled_for TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    UNIQUE (club_id, ladder, scheduled_for)
);
