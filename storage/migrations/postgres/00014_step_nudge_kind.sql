-- +goose Up
-- What a step's nudge is: "answer" (the answer check sent the answer back
-- once) or "verify" (a verify hook's round, of which a turn has a few), so
-- the next model call counts them by this column and not by the note's
-- words. Notes written before it are sorted by their opening words, once.
ALTER TABLE turn_steps ADD COLUMN nudge_kind TEXT NOT NULL DEFAULT '';
UPDATE turn_steps SET nudge_kind = CASE
    WHEN nudge LIKE 'Before you answer, this is still missing from the request:%' THEN 'verify'
    ELSE 'answer' END
  WHERE nudge <> '';

-- +goose Down
ALTER TABLE turn_steps DROP COLUMN nudge_kind;
