-- +goose Up
-- How far a step's model call went down the attached files' fallback
-- (0: every part as sent; each refusal by the provider moves one level to
-- fewer parts). The next step of the turn starts where the last one ended,
-- so a refused request is not sent again at every step.
ALTER TABLE turn_steps ADD COLUMN parts_level INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE turn_steps DROP COLUMN parts_level;
