BEGIN TRANSACTION;
CREATE TABLE clubs (
    id INTEGER PRIMARY KEY,
    platform TEXT NOT NULL,
    chat_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    UNIQUE (platform, chat_id)
);
INSERT INTO "clubs" VALUES(1,'console','local','2026-11-23T21:50:55.211606');
CREATE TABLE events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    club_id INTEGER NOT NULL REFERENCES clubs (id),
    kind TEXT NOT NULL,
    actor TEXT NOT NULL,
    at TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    data TEXT NOT NULL
);
INSERT INTO "events" VALUES(1,1,'ladder_created','system','2026-11-23T21:50:55.212472','','{"ladder":"main","system":"club","params":{}}');
INSERT INTO "events" VALUES(2,1,'member_registered','bob','2026-11-23T21:50:55.212472','','{"user":"bob","name":"bob","ladder":"main","birth_date":null,"handle":null}');
INSERT INTO "events" VALUES(3,1,'member_registered','alice','2026-11-23T21:50:55.214720','','{"user":"alice","name":"alice","ladder":"main","birth_date":null,"handle":null}');
INSERT INTO "events" VALUES(4,1,'member_registered','carol','2026-11-23T21:50:55.215738','','{"user":"carol","name":"carol_k","ladder":"main","birth_date":"2015-01-01","handle":"carol"}');
INSERT INTO "events" VALUES(5,1,'game_reported','mod','2026-11-23T21:50:55.216710','','{"ladder":"main","player_a":"alice","player_b":"bob","score_a":1.0,"handicap":0.0,"colour":null,"event":null,"played_at":"2026-11-23T21:50:55.216710","reported_by":null,"direct":true}');
INSERT INTO "events" VALUES(6,1,'game_reported','mod','2026-11-23T21:50:55.218345','','{"ladder":"main","player_a":"alice","player_b":"carol","score_a":0.5,"handicap":50.0,"colour":null,"event":null,"played_at":"2026-11-23T21:50:55.218345","reported_by":null,"direct":true}');
INSERT INTO "events" VALUES(7,1,'ladder_created','mod','2026-11-23T21:50:55.219460','','{"ladder":"blitz","system":"elo","params":{"k":"40"}}');
INSERT INTO "events" VALUES(8,1,'game_reported','mod','2026-11-23T21:50:55.221115','','{"ladder":"blitz","player_a":"bob","player_b":"carol","score_a":1.0,"handicap":0.0,"colour":null,"event":null,"played_at":"2026-11-23T21:50:55.221115","reported_by":null,"direct":true}');
INSERT INTO "events" VALUES(9,1,'settings_changed','mod','2026-11-23T21:50:55.223282','','{"ladder":"main","settings":{"system":"club","params":{"k":"24"}}}');
INSERT INTO "events" VALUES(10,1,'settings_changed','mod','2026-11-23T21:50:55.224420','','{"ladder":"main","settings":{"announce":true}}');
CREATE TABLE posts (
    club_id BIGINT NOT NULL REFERENCES clubs (id),
    ladder TEXT NOT NULL,
    scheduled_for TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    UNIQUE (club_id, ladder, scheduled_for)
);
CREATE TABLE requests (
    club_id INTEGER NOT NULL REFERENCES clubs (id),
    request_id TEXT NOT NULL,
    response TEXT NOT NULL,
    PRIMARY KEY (club_id, request_id)
);
CREATE TABLE schema_migrations ( version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL);
INSERT INTO "schema_migrations" VALUES(1,'event_log','2026-11-23T21:50:55.209022+00:00');
INSERT INTO "schema_migrations" VALUES(2,'posts','2026-11-23T21:50:55.210276+00:00');
CREATE INDEX events_by_club ON events (club_id, id);
CREATE TRIGGER events_are_never_updated BEFORE UPDATE ON events
BEGIN
    SELECT RAISE (ABORT, 'the event log is append-only');
END;
CREATE TRIGGER events_are_never_deleted BEFORE DELETE ON events
BEGIN
    SELECT RAISE (ABORT, 'the event log is append-only');
END;
DELETE FROM "sqlite_sequence";
INSERT INTO "sqlite_sequence" VALUES('events',10);
COMMIT;
