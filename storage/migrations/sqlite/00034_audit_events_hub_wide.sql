-- +goose Up
-- An audit event of no space (space_id NULL) is one of Hub as a whole: a
-- subject of the identity provider that signed in for the first time.
-- SQLite drops a NOT NULL only by making the table again.
CREATE TABLE audit_events_next (
    id          TEXT PRIMARY KEY,
    space_id    TEXT REFERENCES spaces (id) ON DELETE CASCADE,
    actor_id    TEXT NOT NULL,
    via         TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_id   TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    changes     TEXT NOT NULL DEFAULT '{}',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO audit_events_next SELECT id, space_id, actor_id, via, kind, action, target_id, summary, changes, created_at FROM audit_events;
DROP TABLE audit_events;
ALTER TABLE audit_events_next RENAME TO audit_events;
CREATE INDEX audit_events_space ON audit_events (space_id, created_at DESC, id DESC);

-- +goose Down
DELETE FROM audit_events WHERE space_id IS NULL;
CREATE TABLE audit_events_prev (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    actor_id    TEXT NOT NULL,
    via         TEXT NOT NULL DEFAULT '',
    kind        TEXT NOT NULL,
    action      TEXT NOT NULL,
    target_id   TEXT NOT NULL DEFAULT '',
    summary     TEXT NOT NULL DEFAULT '',
    changes     TEXT NOT NULL DEFAULT '{}',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
INSERT INTO audit_events_prev SELECT id, space_id, actor_id, via, kind, action, target_id, summary, changes, created_at FROM audit_events;
DROP TABLE audit_events;
ALTER TABLE audit_events_prev RENAME TO audit_events;
CREATE INDEX audit_events_space ON audit_events (space_id, created_at DESC, id DESC);
