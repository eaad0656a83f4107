-- Reason: games and challenges are numbered from #1 within each club (issue 15), no longer by
-- the ids of their events, which every kind of event shares. The numbers themselves are not
-- stored: they are the order of the club's reports (and of its challenges) in its log, which the
-- log already holds, so no event changes and no rating moves. A correction a moderator keeps
-- previewing names its game, so it is filed under the game's number from now on, and a kept
-- undo under minus the id of the action it takes back (games are numbered from 1, so the two
-- never meet). A kept correction of a game the log does not hold is dropped.
UPDATE previews SET game = -game WHERE correction LIKE '{"undo":%';

UPDATE previews SET game = COALESCE((
    SELECT numbered.game_number FROM (
        SELECT club_id, id, ROW_NUMBER() OVER (PARTITION BY club_id ORDER BY id) AS game_number
        FROM events WHERE kind = 'game_reported'
    ) AS numbered
    WHERE numbered.club_id = previews.club_id AND numbered.id = previews.game
), 0) WHERE game > 0;

DELETE FROM previews WHERE game = 0;
