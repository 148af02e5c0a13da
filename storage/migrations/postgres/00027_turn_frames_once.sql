-- +goose Up
-- A frame a turn's attempt sends once (refs, proposal, turn_error, error,
-- done: stream.Bus.PublishOnce) carries the attempt it belongs to, the
-- turn's attempt_seq when it was stored, and a unique index keeps a second
-- one of its type out of that attempt: two publishers racing for one
-- attempt (a retried FinishTurn whose first attempt still runs) cannot both
-- store a done frame. NULL: a frame placed in no attempt (another type, or
-- stored by a binary older than this); unique indexes let NULLs repeat, so
-- an older worker still running during an upgrade is never refused.
ALTER TABLE turn_frames ADD COLUMN attempt BIGINT;

-- Frames stored before this: the first of each once-per-attempt type in
-- the turn's current attempt (after its attempt_seq) belongs to that
-- attempt. Earlier attempts' frames are never published into again, and a
-- second one a past race stored stays as it was: both keep NULL.
UPDATE turn_frames SET attempt = COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done')
  AND seq > COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0)
  AND NOT EXISTS (SELECT 1 FROM turn_frames e WHERE e.turn_id = turn_frames.turn_id AND e.type = turn_frames.type
    AND e.seq < turn_frames.seq
    AND e.seq > COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0));

CREATE UNIQUE INDEX turn_frames_once ON turn_frames (turn_id, type, attempt)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done');

-- +goose Down
DROP INDEX turn_frames_once;
ALTER TABLE turn_frames DROP COLUMN attempt;
