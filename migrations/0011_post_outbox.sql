-- Reason: weekly posts go out through an outbox (issue 41). The scheduler only enqueues: one row
-- per club, ladder key (``claimed_as``) and scheduled time, inserted in the transaction that
-- claims the period in ``posts`` (so a database that claimed it before this table existed never
-- posts it again), due at a point spread over the post window. Every process serving the
-- platform claims due rows with a lease (``claimed``: a process that died lets go when the
-- lease ends), marks the row ``sending`` right before the platform call and ``sent`` right
-- after, so a row found in ``sending`` after a crash is known to be maybe sent (Discord sends it
-- again with the same nonce, Telegram never). ``given_up``: failed for good. Times are ISO 8601
-- text in UTC (naive), to the microsecond, so that text order is time order.
CREATE TABLE post_outbox (
    id INTEGER PRIMARY KEY,
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    claimed_as TEXT NOT NULL,
    scheduled_for TEXT NOT NULL,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    target TEXT NOT NULL,
    ladder TEXT NOT NULL,
    puzzles BOOLEAN NOT NULL,
    since TEXT,
    due_at TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT 'due'
        CHECK (state IN ('due', 'claimed', 'sending', 'sent', 'given_up')),
    attempts INTEGER NOT NULL DEFAULT 0,
    claimed_by TEXT,
    lease_until TEXT,
    enqueued_at TEXT NOT NULL,
    sending_at TEXT,
    done_at TEXT,
    UNIQUE (club_id, claimed_as, scheduled_for)
);

CREATE INDEX post_outbox_due ON post_outbox (platform, state, due_at);
