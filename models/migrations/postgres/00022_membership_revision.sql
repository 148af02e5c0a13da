-- +goose Up
-- A person's record in a space (their membership, with the name and role
-- it shows) carries a revision like tasks and projects: PATCH
-- /api/spaces/:spaceId/people/:id and hub_update_person check it, so a
-- stale change fails instead of overwriting newer work, and Undo brings a
-- removed person back after the revision they had.
ALTER TABLE memberships ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;

-- +goose Down
ALTER TABLE memberships DROP COLUMN revision;
