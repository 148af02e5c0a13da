-- +goose Up
-- Every committed change to a task or project, written in the change's own
-- transaction: who changed what, through what, and its title after (before,
-- for a deletion). A turn reads it to tell the model which records of its
-- conversation someone else changed since the person's last message; a
-- table, not the in-process subscribers, so the note survives a restart and
-- sees changes made through any process. Swept after 30 days.
CREATE TABLE record_changes (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    record_id   TEXT NOT NULL,
    op          TEXT NOT NULL,
    actor_id    TEXT NOT NULL,
    via         TEXT NOT NULL DEFAULT '',
    title       TEXT NOT NULL DEFAULT '',
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX record_changes_record ON record_changes (space_id, record_id, created_at);
CREATE INDEX record_changes_created ON record_changes (created_at);

-- The records an applied call changed, as its receipt names them (JSON).
ALTER TABLE receipts ADD COLUMN refs TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE receipts DROP COLUMN refs;
DROP TABLE record_changes;
