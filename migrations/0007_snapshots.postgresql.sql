-- Reason: PostgreSQL spelling of 0007_snapshots.sql (BIGINT ids, the data as BYTEA).
CREATE TABLE snapshots (
    club_id BIGINT PRIMARY KEY,
    last_id BIGINT NOT NULL,
    format TEXT NOT NULL,
    data BYTEA NOT NULL,
    taken_at TEXT NOT NULL
);
