-- +goose Up
-- A step whose answer went back to the model (a promise instead of the
-- work, a write announced but not made, what a verify hook found missing)
-- keeps the note it went back with, which the next request shows as the
-- person's message. Tools hub_how_to and hub_find_tools added during a turn
-- stay in its offer for the rest of it.
ALTER TABLE turn_steps ADD COLUMN nudge TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN added_tools TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE turns DROP COLUMN added_tools;
ALTER TABLE turn_steps DROP COLUMN nudge;
