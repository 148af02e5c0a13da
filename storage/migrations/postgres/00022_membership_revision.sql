-- +goose Up
-- A person's record in a space (their membership, with the name and role
-- it shows) carries a revision like tasks and projects: PATCH
-- /api/spaces/:spaceId/people/:id and hub_update_person check it, so a
-- stale change fails instead of overwriting newer work, and Undo brings a
-- removed person back after the revision they had.
ALTER TABLE memberships ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;

-- Undo groups keep people's records too (kind 'person': an added, changed
-- or removed membership).
ALTER TABLE undo_entries DROP CONSTRAINT undo_entries_kind_check;
ALTER TABLE undo_entries ADD CONSTRAINT undo_entries_kind_check CHECK (kind IN ('task', 'project', 'person'));

-- +goose Down
DELETE FROM undo_entries WHERE kind = 'person';
ALTER TABLE undo_entries DROP CONSTRAINT undo_entries_kind_check;
ALTER TABLE undo_entries ADD CONSTRAINT undo_entries_kind_check CHECK (kind IN ('task', 'project'));
ALTER TABLE memberships DROP COLUMN revision;
