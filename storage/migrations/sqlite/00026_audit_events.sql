-- +goose Up
-- The space's audit log (GET /api/spaces/:spaceId/audit, owners): who
-- connected, removed or changed a connected app, changed the space's
-- settings or who is in it, and when. What changed is JSON without any
-- secret (a secret is only "set" or "removed").
CREATE TABLE audit_events (
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
CREATE INDEX audit_events_space ON audit_events (space_id, created_at DESC, id DESC);

-- +goose Down
DROP TABLE audit_events;
