-- +goose Up
-- A person's record in a space (their membership, with the name and role
-- it shows) carries a revision like tasks and projects: PATCH
-- /api/spaces/:spaceId/people/:id and hub_update_person check it, so a
-- stale change fails instead of overwriting newer work, and Undo brings a
-- removed person back after the revision they had.
ALTER TABLE memberships ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;

-- Undo groups keep people's records too (kind 'person': an added, changed
-- or removed membership). SQLite cannot change a CHECK constraint, so the
-- table is built again with it (nothing references undo_entries).
CREATE TABLE undo_entries_new (
    group_id    TEXT NOT NULL REFERENCES undo_groups (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('task', 'project', 'person')),
    record_id   TEXT NOT NULL,
    before      TEXT,
    after       TEXT,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (group_id, seq)
);
INSERT INTO undo_entries_new (group_id, seq, kind, record_id, before, after, created_at)
    SELECT group_id, seq, kind, record_id, before, after, created_at FROM undo_entries;
DROP TABLE undo_entries;
ALTER TABLE undo_entries_new RENAME TO undo_entries;

-- +goose Down
CREATE TABLE undo_entries_old (
    group_id    TEXT NOT NULL REFERENCES undo_groups (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('task', 'project')),
    record_id   TEXT NOT NULL,
    before      TEXT,
    after       TEXT,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (group_id, seq)
);
INSERT INTO undo_entries_old (group_id, seq, kind, record_id, before, after, created_at)
    SELECT group_id, seq, kind, record_id, before, after, created_at FROM undo_entries WHERE kind <> 'person';
DROP TABLE undo_entries;
ALTER TABLE undo_entries_old RENAME TO undo_entries;
ALTER TABLE memberships DROP COLUMN revision;
