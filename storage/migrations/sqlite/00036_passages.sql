-- +goose Up
-- Retrieval: see the Postgres migration. Here the lexical index is FTS5
-- over passages (external content, kept by the passages_words triggers;
-- the porter stemmer matches Postgres' 'english').
ALTER TABLE files ADD COLUMN index_status TEXT NOT NULL DEFAULT 'queued'
    CHECK (index_status IN ('queued', 'indexing', 'indexed', 'failed'));
ALTER TABLE files ADD COLUMN index_error TEXT NOT NULL DEFAULT '';
ALTER TABLE files ADD COLUMN index_gen INTEGER NOT NULL DEFAULT 1;
CREATE INDEX files_index_waiting ON files (index_status) WHERE index_status IN ('queued', 'indexing');

CREATE TABLE passages (
    id            INTEGER PRIMARY KEY,
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
    vector        BLOB,
    vector_model  TEXT NOT NULL DEFAULT ''
);
CREATE INDEX passages_source ON passages (source_id, live, ord);
CREATE INDEX passages_space_hash ON passages (space_id, hash);
CREATE VIRTUAL TABLE passage_words USING fts5(title, section, body, content='passages', content_rowid='id',
    tokenize='porter unicode61 remove_diacritics 2');

-- +goose StatementBegin
CREATE TRIGGER passages_words_insert AFTER INSERT ON passages BEGIN
    INSERT INTO passage_words (rowid, title, section, body) VALUES (new.id, new.title, new.section, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER passages_words_delete AFTER DELETE ON passages BEGIN
    INSERT INTO passage_words (passage_words, rowid, title, section, body)
    VALUES ('delete', old.id, old.title, old.section, old.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER passages_words_update AFTER UPDATE OF title, section, body ON passages BEGIN
    INSERT INTO passage_words (passage_words, rowid, title, section, body)
    VALUES ('delete', old.id, old.title, old.section, old.body);
    INSERT INTO passage_words (rowid, title, section, body) VALUES (new.id, new.title, new.section, new.body);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_passage_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO passages (space_id, source, source_id, title) VALUES (new.space_id, 'task', new.id, new.title);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_passage_update AFTER UPDATE OF title, space_id ON tasks BEGIN
    DELETE FROM passages WHERE source_id = old.id;
    INSERT INTO passages (space_id, source, source_id, title) VALUES (new.space_id, 'task', new.id, new.title);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER tasks_passage_delete AFTER DELETE ON tasks BEGIN
    DELETE FROM passages WHERE source_id = old.id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER projects_passage_insert AFTER INSERT ON projects BEGIN
    INSERT INTO passages (space_id, source, source_id, title, body)
    VALUES (new.space_id, 'project', new.id, new.name, new.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER projects_passage_update AFTER UPDATE OF name, description, space_id ON projects BEGIN
    DELETE FROM passages WHERE source_id = old.id;
    INSERT INTO passages (space_id, source, source_id, title, body)
    VALUES (new.space_id, 'project', new.id, new.name, new.description);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER projects_passage_delete AFTER DELETE ON projects BEGIN
    DELETE FROM passages WHERE source_id = old.id;
END;
-- +goose StatementEnd
INSERT INTO passages (space_id, source, source_id, title) SELECT space_id, 'task', id, title FROM tasks;
INSERT INTO passages (space_id, source, source_id, title, body)
SELECT space_id, 'project', id, name, description FROM projects;

-- What each search a tool made found, for the run inspector: the query,
-- the matches in the whole index and within the person's access, the
-- passages returned with ranks and scores (JSON), and which of them the
-- reply cited (JSON, set when the turn ends).
CREATE TABLE retrievals (
    id                 INTEGER PRIMARY KEY,
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
    created_at         DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX retrievals_call ON retrievals (call_id);

-- +goose Down
DROP TABLE retrievals;
DROP TRIGGER projects_passage_delete;
DROP TRIGGER projects_passage_update;
DROP TRIGGER projects_passage_insert;
DROP TRIGGER tasks_passage_delete;
DROP TRIGGER tasks_passage_update;
DROP TRIGGER tasks_passage_insert;
DROP TABLE passage_words;
DROP TABLE passages;
DROP INDEX files_index_waiting;
ALTER TABLE files DROP COLUMN index_gen;
ALTER TABLE files DROP COLUMN index_error;
ALTER TABLE files DROP COLUMN index_status;
