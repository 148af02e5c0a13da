-- +goose Up
-- A connected app of a space (for now a webhook Hub posts updates to). The
-- kind is checked by the domain, not here, so a new kind needs no table
-- rebuild on SQLite. Names are unique per space whatever their case: tools
-- and previews name a connection by it.
CREATE TABLE connections (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    owner_id    TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    url         TEXT NOT NULL,
    enabled     BOOLEAN NOT NULL DEFAULT 1,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX connections_space_name ON connections (space_id, lower(name));

-- +goose Down
DROP TABLE connections;
