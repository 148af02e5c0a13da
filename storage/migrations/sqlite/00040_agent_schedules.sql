-- +goose Up
-- An agent's schedules: the work (text) a Temporal Schedule starts as a
-- turn of the agent in the schedule's conversation. Temporal keeps when
-- it fires and whether it is paused; this row keeps what only Hub knows.
-- writes is 'apply' (writes wait on the Needs me list) or 'immediate'.
-- held_by_agent marks a schedule paused because its agent was switched
-- off, so switching it on again unpauses only those.
CREATE TABLE agent_schedules (
    id              TEXT PRIMARY KEY,
    agent_id        TEXT NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    owner_id        TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    conversation_id TEXT NOT NULL,
    text            TEXT NOT NULL,
    spec            TEXT NOT NULL,
    time_zone       TEXT NOT NULL,
    overlap         TEXT NOT NULL,
    writes          TEXT NOT NULL,
    held_by_agent   BOOLEAN NOT NULL DEFAULT 0,
    created_at      DATETIME NOT NULL
);
CREATE INDEX agent_schedules_agent ON agent_schedules (agent_id, created_at);

-- A turn a schedule started names the schedule and the firing (the
-- firing workflow's id), so a firing retried after a crash finds its turn
-- instead of starting a second one. write_policy overrides the person's
-- write policy for the turn ('' none).
ALTER TABLE turns ADD COLUMN schedule_id TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN schedule_run TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN write_policy TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX turns_schedule_run ON turns (schedule_run) WHERE schedule_run <> '';

-- +goose Down
DROP INDEX turns_schedule_run;
ALTER TABLE turns DROP COLUMN write_policy;
ALTER TABLE turns DROP COLUMN schedule_run;
ALTER TABLE turns DROP COLUMN schedule_id;
DROP TABLE agent_schedules;
