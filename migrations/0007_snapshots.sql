-- Reason: a long club's log took a second or more to read and fold each time the club was read
-- again (issue 41: the clubs kept in memory are bounded now, so a club can be read many times).
-- A snapshot is the club's folded state as of one of its events (last_id), in a format the bot
-- names (format: a state written by another version is ignored, the log read instead), one per
-- club, replaced as the club grows. It is derived data, never the truth: deleting every row
-- changes nothing but the time a first read takes. No reference to clubs: a snapshot is written
-- in its own short transaction, and must never wait for a club's row lock that a command holds.
CREATE TABLE snapshots (
    club_id INTEGER PRIMARY KEY,
    last_id INTEGER NOT NULL,
    format TEXT NOT NULL,
    data BLOB NOT NULL,
    taken_at TEXT NOT NULL
);
