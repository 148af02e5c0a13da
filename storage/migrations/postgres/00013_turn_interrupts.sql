-- +goose Up
-- How many times the api signalled Stop or Pause to the turn: a model call
-- compares it with the count its workflow had heard when it scheduled the
-- call, so a call the workflow is about to cancel never reaches the model.
ALTER TABLE turns ADD COLUMN interrupts INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE turns DROP COLUMN interrupts;
