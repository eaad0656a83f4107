-- Reason: PostgreSQL spelling of 0008_directory.sql: keys compare byte by byte (COLLATE "C"),
-- as SQLite compares text, so that keys that are times (ISO 8601) sort as the times do and a
-- range of them is read from the index whatever the database's locale.
CREATE TABLE directory (
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    kind TEXT NOT NULL,
    key TEXT COLLATE "C" NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (club_id, kind, key)
);

CREATE INDEX directory_by_key ON directory (kind, key);
