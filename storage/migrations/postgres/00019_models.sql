-- +goose Up
-- A person's default model (a catalog id; '' the catalog's default) and
-- reasoning effort ('' none) for turns that name none, and the effort a
-- turn was started with (its model is already in turns.model).
ALTER TABLE settings ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE settings ADD COLUMN effort TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN effort TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE turns DROP COLUMN effort;
ALTER TABLE settings DROP COLUMN effort;
ALTER TABLE settings DROP COLUMN model;
