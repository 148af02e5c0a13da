-- +goose Up
-- Direct completions (POST /api/completions): one model call for a fixed
-- task that needs no tools — a file's summary, a catalog model's check, a
-- skill tried on a sample input. Each runs as workflow completion:<id>,
-- shows in its person's top bar (kind completion) while ended_at is NULL,
-- and is counted under its purpose. input is the kind's JSON (the file and
-- its version, the skill and the sample); result the answer's JSON
-- (text, and a summary's keywords). turn_id names the turn a completion
-- started inside ('' for none): its usage is then the turn's.
CREATE TABLE completions (
    id            TEXT PRIMARY KEY,
    person_id     TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    space_id      TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'queued',
    title         TEXT NOT NULL DEFAULT '',
    model         TEXT NOT NULL DEFAULT '',
    effort        TEXT NOT NULL DEFAULT '',
    purpose       TEXT NOT NULL,
    turn_id       TEXT NOT NULL DEFAULT '',
    input         TEXT NOT NULL DEFAULT '{}',
    result        TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    created_at    DATETIME NOT NULL,
    updated_at    DATETIME NOT NULL,
    ended_at      DATETIME
);
-- The top bar reads a person's running completions.
CREATE INDEX completions_running ON completions (person_id, created_at) WHERE ended_at IS NULL;

-- A file's summary and keywords, written by a summarize_file completion
-- (keywords: a JSON array of strings).
ALTER TABLE files ADD COLUMN summary TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN keywords TEXT NOT NULL DEFAULT '[]';

-- A completion's model calls name it, so a retried attempt releases the
-- reservation its dead attempt left open (as a turn's calls name the turn).
ALTER TABLE model_calls ADD COLUMN completion_id TEXT NOT NULL DEFAULT '';
CREATE INDEX model_calls_completion ON model_calls (completion_id) WHERE status = 'reserved';

-- +goose Down
DROP INDEX model_calls_completion;
ALTER TABLE model_calls DROP COLUMN completion_id;
ALTER TABLE files DROP COLUMN keywords;
ALTER TABLE files DROP COLUMN summary;
DROP TABLE completions;
