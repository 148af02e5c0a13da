-- +goose Up
CREATE TABLE spaces (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX spaces_name ON spaces (name);

CREATE TABLE people (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE memberships (
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    role        TEXT NOT NULL CHECK (role IN ('owner', 'editor', 'viewer', 'guest')),
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (space_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);

CREATE TABLE api_tokens (
    id          TEXT PRIMARY KEY,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    hash        TEXT NOT NULL,
    scope       TEXT NOT NULL DEFAULT '',
    expires_at  DATETIME,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX api_tokens_hash ON api_tokens (hash);

CREATE TABLE settings (
    person_id    TEXT PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
    write_policy TEXT NOT NULL DEFAULT 'immediate',
    updated_at   DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE projects (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'active',
    description TEXT NOT NULL DEFAULT '',
    revision    INTEGER NOT NULL DEFAULT 1,
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX projects_space ON projects (space_id, created_at);

CREATE TABLE tasks (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    project_id  TEXT REFERENCES projects (id) ON DELETE SET NULL,
    title       TEXT NOT NULL,
    status      TEXT NOT NULL DEFAULT 'todo',
    due_date    TEXT,
    priority    TEXT NOT NULL DEFAULT 'none',
    assignee_id TEXT REFERENCES people (id) ON DELETE SET NULL,
    revision    INTEGER NOT NULL DEFAULT 1,
    created_by  TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX tasks_space ON tasks (space_id, created_at);

-- +goose Down
DROP TABLE tasks;
DROP TABLE projects;
DROP TABLE settings;
DROP TABLE api_tokens;
DROP TABLE memberships;
DROP TABLE people;
DROP TABLE spaces;
