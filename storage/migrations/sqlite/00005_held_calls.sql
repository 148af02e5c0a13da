-- +goose Up
-- A held call keeps the prepared input Apply will run (exactly what was
-- previewed) and where it waits: the chat ("apply") or the Needs me list.
-- An immediate write keeps the Undo group it recorded.
ALTER TABLE tool_calls ADD COLUMN input TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN held_for TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_calls ADD COLUMN undo_group_id TEXT NOT NULL DEFAULT '';
CREATE INDEX tool_calls_held ON tool_calls (held_for, status);

-- +goose Down
DROP INDEX tool_calls_held;
ALTER TABLE tool_calls DROP COLUMN undo_group_id;
ALTER TABLE tool_calls DROP COLUMN held_for;
ALTER TABLE tool_calls DROP COLUMN input;
