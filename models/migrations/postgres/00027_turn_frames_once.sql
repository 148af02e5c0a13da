-- +goose Up
-- A frame a turn's attempt sends once (refs, proposal, turn_error, error,
-- done: stream.Bus.PublishOnce) carries the attempt it belongs to, the
-- turn's attempt_seq when it was stored, and a unique index keeps a second
-- one of its type out of that attempt: two publishers racing for one
-- attempt (a retried FinishTurn whose first attempt still runs) cannot both
-- store a done frame. Other frames keep attempt 0; the index leaves them out.
ALTER TABLE turn_frames ADD COLUMN attempt BIGINT NOT NULL DEFAULT 0;

-- Frames stored before this: a once-per-attempt frame of an earlier
-- attempt (at or before the turn's attempt_seq), and any but the first of
-- its type in the current attempt (stored by a race before this index),
-- gets a number of its own, -seq: none is ever published again, and each
-- stays readable as it was.
UPDATE turn_frames SET attempt = -seq
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done')
  AND (seq <= COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0)
    OR EXISTS (SELECT 1 FROM turn_frames e WHERE e.turn_id = turn_frames.turn_id AND e.type = turn_frames.type
      AND e.seq < turn_frames.seq
      AND e.seq > COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0)));
-- The first of each type in the current attempt belongs to that attempt.
UPDATE turn_frames SET attempt = COALESCE((SELECT attempt_seq FROM turns WHERE turns.id = turn_frames.turn_id), 0)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done') AND attempt = 0;

CREATE UNIQUE INDEX turn_frames_once ON turn_frames (turn_id, type, attempt)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done');

-- +goose Down
DROP INDEX turn_frames_once;
ALTER TABLE turn_frames DROP COLUMN attempt;
