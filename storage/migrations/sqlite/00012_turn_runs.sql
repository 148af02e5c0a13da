-- +goose Up
-- The Temporal run that owns a turn ('' until its first activity), so a
-- run started by an operator's reset can tell that an earlier run ended
-- the turn and reopen it; and the number of the frame that opened the
-- turn's current attempt of frames (0: the first attempt), so frames sent
-- once per turn (refs, error, proposal, done) are sent once per attempt.
ALTER TABLE turns ADD COLUMN run_id TEXT NOT NULL DEFAULT '';
ALTER TABLE turns ADD COLUMN attempt_seq INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE turns DROP COLUMN attempt_seq;
ALTER TABLE turns DROP COLUMN run_id;
