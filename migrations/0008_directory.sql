-- Reason: cross-club lookups (issue 41) come from a table kept in the same transaction as a
-- club's events, not from folding every club: which clubs a platform user belongs to, the
-- posting plans, public slugs, open link codes, live boards and when something falls due in a
-- club. Each row is derived from one club's folded log (bot/service/directory.py), so it holds
-- nothing the log does not; a club written by an earlier version has no rows yet and gets them
-- at the next start (its kind 'format' row names the derivation's version). No event changes.
CREATE TABLE directory (
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (club_id, kind, key)
);

CREATE INDEX directory_by_key ON directory (kind, key);
