-- +goose Up
-- A model call settled without the provider's usage (stopped, paused, past
-- its limit, cut off, or an endpoint that reports none) is settled at an
-- estimate of what was sent and streamed; estimated marks it, so the run
-- inspector says so.
ALTER TABLE model_calls ADD COLUMN estimated BOOLEAN NOT NULL DEFAULT FALSE;

-- +goose Down
ALTER TABLE model_calls DROP COLUMN estimated;
