-- Reason: a Telegram update claimed on a webhook (0009) names the process handling it: the key
-- of an advisory lock that process holds for as long as it lives (PostgreSQL), so another
-- process that is delivered the update again takes it over as soon as the claimer is gone (its
-- lock with its session), not only once the claim is 2 minutes old; a chat whose update was
-- with a killed process waits seconds, not minutes (issue 41). Nullable: updates kept by long
-- polling, claims written before, and SQLite's (one machine: the claim's age alone) name none.
-- The same statement in both dialects.
ALTER TABLE received_updates ADD COLUMN claimer BIGINT;
