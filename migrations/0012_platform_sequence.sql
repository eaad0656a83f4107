-- Reason: each event keeps the platform's own sequence number of the update that caused it
-- (Telegram's update_id, a Discord interaction's snowflake), so that a club's writes can be
-- checked against the order the platform gave them when several processes serve one club
-- (issue 41). Nullable: the events written before, and those no update caused (a game
-- confirmed by time, an import, the console), have none; nothing reads it back into a club's
-- state, so ratings, exports and replays are as before. The same statement in both dialects.
-- A Telegram update delivered to a webhook is claimed in received_updates (0009) by its
-- receipt time, which a process taking over an update whose handler died writes anew: no
-- column is added there.
ALTER TABLE events ADD COLUMN platform_sequence BIGINT;
