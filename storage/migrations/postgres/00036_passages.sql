-- +goose Up
-- Retrieval. A file's index state (index_gen counts its versions: an
-- indexing run publishes only the version it was started for), and
-- passages: the searchable pieces of files, cut by the indexing workflow
-- as drafts (live false) and published in one transaction, and of tasks
-- and projects, one each, kept by the triggers below in the change's own
-- transaction. words is the lexical index (GIN); vector, when an
-- embeddings model is configured, the semantic one.
ALTER TABLE files ADD COLUMN index_status TEXT NOT NULL DEFAULT 'queued'
    CHECK (index_status IN ('queued', 'indexing', 'indexed', 'failed'));
ALTER TABLE files ADD COLUMN index_error TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN index_gen INTEGER NOT NULL DEFAULT 1;
CREATE INDEX files_index_waiting ON files (index_status) WHERE index_status IN ('queued', 'indexing');

CREATE TABLE passages (
    id            BIGSERIAL PRIMARY KEY,
    space_id      TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    source        TEXT NOT NULL CHECK (source IN ('file', 'task', 'project')),
    source_id     TEXT NOT NULL,
    file_id       TEXT REFERENCES files (id) ON DELETE CASCADE,
    gen           INTEGER NOT NULL DEFAULT 0,
    live          BOOLEAN NOT NULL DEFAULT TRUE,
    ord           INTEGER NOT NULL DEFAULT 0,
    title         TEXT NOT NULL,
    section       TEXT NOT NULL DEFAULT '',
    body          TEXT NOT NULL DEFAULT '',
    hash          TEXT NOT NULL DEFAULT '',
    vector        BYTEA,
    vector_model  TEXT NOT NULL DEFAULT '',
    words         tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') ||
        setweight(to_tsvector('english', section), 'B') ||
        to_tsvector('english', body)) STORED
);
CREATE INDEX passages_words ON passages USING GIN (words);
CREATE INDEX passages_source ON passages (source_id, live, ord);
CREATE INDEX passages_space_hash ON passages (space_id, hash);

-- +goose StatementBegin
CREATE FUNCTION task_passage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM passages WHERE source_id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO passages (space_id, source, source_id, title) VALUES (NEW.space_id, 'task', NEW.id, NEW.title);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION project_passage() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN
        DELETE FROM passages WHERE source_id = OLD.id;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO passages (space_id, source, source_id, title, body)
        VALUES (NEW.space_id, 'project', NEW.id, NEW.name, NEW.description);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER tasks_passage AFTER INSERT OR DELETE OR UPDATE OF title, space_id ON tasks
    FOR EACH ROW EXECUTE FUNCTION task_passage();
CREATE TRIGGER projects_passage AFTER INSERT OR DELETE OR UPDATE OF name, description, space_id ON projects
    FOR EACH ROW EXECUTE FUNCTION project_passage();
INSERT INTO passages (space_id, source, source_id, title) SELECT space_id, 'task', id, title FROM tasks;
INSERT INTO passages (space_id, source, source_id, title, body)
SELECT space_id, 'project', id, name, description FROM projects;

-- What each search a tool made found, for the run inspector: the query,
-- the matches in the whole index and within the person's access, the
-- passages returned with ranks and scores (JSON), and which of them the
-- reply cited (JSON, set when the turn ends).
CREATE TABLE retrievals (
    id                 BIGSERIAL PRIMARY KEY,
    call_id            TEXT REFERENCES tool_calls (id) ON DELETE CASCADE,
    space_id           TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    person_id          TEXT NOT NULL,
    tool               TEXT NOT NULL,
    query              TEXT NOT NULL,
    candidates_before  INTEGER NOT NULL,
    candidates_after   INTEGER NOT NULL,
    results            TEXT NOT NULL,
    cited              TEXT NOT NULL DEFAULT '[]',
    took_ms            INTEGER NOT NULL,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX retrievals_call ON retrievals (call_id);

-- +goose Down
DROP TABLE retrievals;
DROP TRIGGER projects_passage ON projects;
DROP TRIGGER tasks_passage ON tasks;
DROP FUNCTION project_passage();
DROP FUNCTION task_passage();
DROP TABLE passages;
DROP INDEX files_index_waiting;
ALTER TABLE files DROP COLUMN index_gen;
ALTER TABLE files DROP COLUMN index_error;
ALTER TABLE files DROP COLUMN index_status;
