-- +goose Up
-- When the Apply of a turn's reply started running (cleared when it
-- answers), so the top bar shows a running Apply as working, not waiting.
ALTER TABLE turns ADD COLUMN applying_since DATETIME;

-- +goose Down
ALTER TABLE turns DROP COLUMN applying_since;
