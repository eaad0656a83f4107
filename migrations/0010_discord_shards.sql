-- Reason: several bot processes share one Discord application (issue 41). Its slash commands
-- are written to Discord only when their definitions changed since the last sync, so the hash of
-- what was last synced is kept here, per application and scope ('global', or 'guild:ID' with
-- DISCORD_GUILD_ID); and every process takes its turn to IDENTIFY through this table (Discord
-- allows one IDENTIFY per 5 seconds per bucket, shard id modulo max_concurrency): a row per
-- bucket holds the time, in seconds since 1970 by the database's clock, of the latest IDENTIFY
-- given a turn. Nothing here is a club's: an older database gains two empty tables.
CREATE TABLE command_trees (
    application_id TEXT NOT NULL,
    scope TEXT NOT NULL,
    hash TEXT NOT NULL,
    synced_at TEXT NOT NULL,
    PRIMARY KEY (application_id, scope)
);

CREATE TABLE identify_turns (
    application_id TEXT NOT NULL,
    bucket INTEGER NOT NULL,
    turn_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (application_id, bucket)
);
