-- +goose Up
-- The person: one sentence about their work (the instructions' persona
-- line) and the first name the assistant calls them by ('' = the first
-- word of their name).
ALTER TABLE people ADD COLUMN persona TEXT NOT NULL DEFAULT '';
ALTER TABLE people ADD COLUMN first_name TEXT NOT NULL DEFAULT '';

-- A person's own saved instructions. Only their owner reads them; the
-- version guards every change, so a stale edit fails instead of
-- overwriting newer work. Names are unique per person whatever their case:
-- the instructions list skills by name. A skill with a purpose belongs to
-- runs of that purpose and is never listed in a chat's instructions.
CREATE TABLE skills (
    id            TEXT PRIMARY KEY,
    person_id     TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    description   TEXT NOT NULL,
    instructions  TEXT NOT NULL,
    enabled       BOOLEAN NOT NULL DEFAULT 1,
    purpose       TEXT NOT NULL DEFAULT '',
    version       INTEGER NOT NULL DEFAULT 1,
    created_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at    DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX skills_person_name ON skills (person_id, lower(name));

-- Why Hub's last post to a connected app failed ('' when it worked or
-- none failed yet), so the instructions can name the apps to reconnect.
ALTER TABLE connections ADD COLUMN failure TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE connections DROP COLUMN failure;
DROP TABLE skills;
ALTER TABLE people DROP COLUMN first_name;
ALTER TABLE people DROP COLUMN persona;
