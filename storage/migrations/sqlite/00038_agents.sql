-- +goose Up
-- A person's agents: a persona (charter) that replaces the owner's in the
-- agent's turns, the model and effort it runs on, the app tools it may add
-- and the Hub tools it goes without, the spaces it acts in (a subset of
-- the owner's, checked again with the owner's roles at every call) and
-- the purpose its usage is counted under. Names are unique per owner
-- whatever their case; the version guards every change.
CREATE TABLE agents (
    id            TEXT PRIMARY KEY,
    owner_id      TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    persona       TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    effort        TEXT NOT NULL DEFAULT '',
    tools         TEXT NOT NULL DEFAULT '[]',
    without_tools TEXT NOT NULL DEFAULT '[]',
    spaces        TEXT NOT NULL DEFAULT '[]',
    purpose       TEXT NOT NULL DEFAULT 'agent',
    enabled       BOOLEAN NOT NULL DEFAULT 1,
    version       INTEGER NOT NULL DEFAULT 1,
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL
);
CREATE UNIQUE INDEX agents_owner_name ON agents (owner_id, lower(name));

-- An agent's conversations and their turns name it ('' is the person's
-- own). No foreign key: a deleted agent's conversations stay its owner's.
ALTER TABLE conversations ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN agent_id TEXT NOT NULL DEFAULT '';

-- The usage bucket a turn's model calls are counted under: its agent's
-- purpose when it started, 'chat' for the person's own.
ALTER TABLE turns ADD COLUMN purpose TEXT NOT NULL DEFAULT 'chat';
ALTER TABLE model_calls ADD COLUMN purpose TEXT NOT NULL DEFAULT 'chat';

-- +goose Down
ALTER TABLE model_calls DROP COLUMN purpose;
ALTER TABLE turns DROP COLUMN purpose;
ALTER TABLE turns DROP COLUMN agent_id;
ALTER TABLE conversations DROP COLUMN agent_id;
DROP TABLE agents;
