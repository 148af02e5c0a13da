-- +goose Up
-- What another screen sent with a message as its reference context: given
-- to the model in the turn's <context>, never shown in the transcript nor
-- saved as the person's words. Kept on the turn so a retry sends it again.
ALTER TABLE turns ADD COLUMN reference_context TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE turns DROP COLUMN reference_context;
