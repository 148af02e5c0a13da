-- +goose Up
-- One row per request Hub sends to a model: who it was for (turn,
-- conversation, space, person), which model, the tokens the provider
-- reported and what they cost, in micro-dollars (millionths of a US
-- dollar). The id is the request's identity — turn, workflow run, activity,
-- attempt and try — so writing it again (a retried save) changes nothing,
-- and a retried activity's own request is a row of its own. The row is
-- written as a reservation before the request (status reserved,
-- reserved_micros the estimate) and settled after it with the real usage;
-- a reservation that never settled (a killed worker) is released. day is
-- the UTC date of created_at ('2026-12-01'): usage grouped by day, and the
-- budget month the call counts in (its first seven characters).
-- No foreign keys: usage is what the space was billed, and stays when the
-- conversation is deleted.
CREATE TABLE model_calls (
    id                  TEXT PRIMARY KEY,
    turn_id             TEXT NOT NULL,
    step                INTEGER NOT NULL,
    conversation_id     TEXT NOT NULL,
    space_id            TEXT NOT NULL,
    person_id           TEXT NOT NULL,
    model               TEXT NOT NULL,
    status              TEXT NOT NULL,
    day                 TEXT NOT NULL,
    input_tokens        BIGINT NOT NULL DEFAULT 0,
    cached_input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens       BIGINT NOT NULL DEFAULT 0,
    reserved_micros     BIGINT NOT NULL DEFAULT 0,
    cost_micros         BIGINT NOT NULL DEFAULT 0,
    error_kind          TEXT NOT NULL DEFAULT '',
    created_at          DATETIME NOT NULL,
    settled_at          DATETIME
);
-- GET /api/usage reads a time range of one space (an owner) or of one
-- person (everyone else). (On Postgres the indexes also cover the summed
-- columns.)
CREATE INDEX model_calls_space_time ON model_calls (space_id, created_at);
CREATE INDEX model_calls_person_time ON model_calls (person_id, created_at);
-- The sweeper's open reservations, and a turn's own (released when its
-- next call starts).
CREATE INDEX model_calls_reserved ON model_calls (created_at) WHERE status = 'reserved';
CREATE INDEX model_calls_turn ON model_calls (turn_id) WHERE status = 'reserved';

-- What a space spent and holds reserved in one month (UTC, '2026-12'): the
-- pre-spend check reads and changes this one row, so it costs the same
-- with a million calls behind it, and two turns that race for the last of
-- a budget are ordered by its row lock.
CREATE TABLE space_spend (
    space_id        TEXT NOT NULL,
    month           TEXT NOT NULL,
    spent_micros    BIGINT NOT NULL DEFAULT 0,
    reserved_micros BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (space_id, month)
);

-- The owner's monthly budget for the space's model calls, in micro-dollars
-- (NULL: no budget).
ALTER TABLE spaces ADD COLUMN monthly_budget_micros BIGINT;

-- +goose Down
ALTER TABLE spaces DROP COLUMN monthly_budget_micros;
DROP TABLE space_spend;
DROP TABLE model_calls;
