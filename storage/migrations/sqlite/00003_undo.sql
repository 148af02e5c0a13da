-- +goose Up
-- An Undo group is what one Undo button takes back: the writes of one tool
-- call, or of one Apply in one space. Only the person who made it may undo
-- it. state is "done" (as written), "undone" or "redone"; entry_count
-- numbers the entries, and bumping it locks the group row, so two
-- transactions writing into one group take turns instead of clashing on seq.
CREATE TABLE undo_groups (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    via         TEXT NOT NULL DEFAULT '',
    label       TEXT NOT NULL DEFAULT '',
    state       TEXT NOT NULL DEFAULT 'done' CHECK (state IN ('done', 'undone', 'redone')),
    entry_count INTEGER NOT NULL DEFAULT 0,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    undone_at   DATETIME,
    redone_at   DATETIME
);
CREATE INDEX undo_groups_person ON undo_groups (person_id, created_at);

-- One record changed in a group, in order: the row before (NULL: it did not
-- exist) and after (NULL: it was deleted), as JSON text so both engines
-- read it alike.
CREATE TABLE undo_entries (
    group_id    TEXT NOT NULL REFERENCES undo_groups (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('task', 'project')),
    record_id   TEXT NOT NULL,
    before      TEXT,
    after       TEXT,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (group_id, seq)
);

-- Which areas the assistant may write in (a JSON list; empty: all) and
-- whether it may propose writes in connected apps.
ALTER TABLE settings ADD COLUMN allowed_write_areas TEXT NOT NULL DEFAULT '[]';
ALTER TABLE settings ADD COLUMN connected_app_writes BOOLEAN NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE settings DROP COLUMN connected_app_writes;
ALTER TABLE settings DROP COLUMN allowed_write_areas;
DROP TABLE undo_entries;
DROP TABLE undo_groups;
