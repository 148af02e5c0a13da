-- +goose Up
-- A turn may act in other spaces of the person besides its conversation's
-- (the ids it was started with, as JSON); each of its tool calls records
-- the space it acted in ('' for the conversation's own), so Apply runs a
-- held call in the space it was proposed for.
ALTER TABLE turns ADD COLUMN spaces TEXT NOT NULL DEFAULT '[]';
ALTER TABLE tool_calls ADD COLUMN space_id TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE tool_calls DROP COLUMN space_id;
ALTER TABLE turns DROP COLUMN spaces;
