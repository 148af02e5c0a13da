-- +goose Up
CREATE TABLE conversations (
    id          TEXT PRIMARY KEY,
    space_id    TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    title       TEXT NOT NULL DEFAULT '',
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX conversations_person ON conversations (person_id, space_id, updated_at);

CREATE TABLE messages (
    id              TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    turn_id         TEXT NOT NULL DEFAULT '',
    role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
    text            TEXT NOT NULL DEFAULT '',
    status          TEXT NOT NULL,
    mentions        TEXT NOT NULL DEFAULT '[]',
    page_context    TEXT NOT NULL DEFAULT '',
    refs            TEXT NOT NULL DEFAULT '[]',
    input_tokens    INTEGER NOT NULL DEFAULT 0,
    output_tokens   INTEGER NOT NULL DEFAULT 0,
    error_code      TEXT NOT NULL DEFAULT '',
    error_message   TEXT NOT NULL DEFAULT '',
    created_at      DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at      DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX messages_conversation ON messages (conversation_id, created_at);

CREATE TABLE turns (
    id               TEXT PRIMARY KEY,
    conversation_id  TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    space_id         TEXT NOT NULL,
    person_id        TEXT NOT NULL,
    user_message_id  TEXT NOT NULL,
    reply_message_id TEXT NOT NULL,
    retry_of         TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    step             INTEGER NOT NULL DEFAULT 0,
    error_code       TEXT NOT NULL DEFAULT '',
    error_message    TEXT NOT NULL DEFAULT '',
    model            TEXT NOT NULL DEFAULT '',
    instructions     TEXT NOT NULL DEFAULT '',
    context          TEXT NOT NULL DEFAULT '',
    offered_tools    TEXT NOT NULL DEFAULT '[]',
    history_ids      TEXT NOT NULL DEFAULT '[]',
    frame_seq        INTEGER NOT NULL DEFAULT 0,
    input_tokens     INTEGER NOT NULL DEFAULT 0,
    output_tokens    INTEGER NOT NULL DEFAULT 0,
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    finished_at      DATETIME
);
CREATE INDEX turns_conversation ON turns (conversation_id, created_at);
CREATE INDEX turns_person_status ON turns (person_id, status);
-- At most one unfinished turn per conversation: a second POST …/turns while
-- one runs is a conflict, decided by the database, not by a racy read.
CREATE UNIQUE INDEX turns_one_running ON turns (conversation_id) WHERE finished_at IS NULL;

CREATE TABLE turn_steps (
    turn_id        TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    step           INTEGER NOT NULL,
    attempt        INTEGER NOT NULL DEFAULT 1,
    text           TEXT NOT NULL DEFAULT '',
    tool_calls     TEXT NOT NULL DEFAULT '[]',
    finish_reason  TEXT NOT NULL DEFAULT '',
    input_tokens   INTEGER NOT NULL DEFAULT 0,
    output_tokens  INTEGER NOT NULL DEFAULT 0,
    created_at     DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at     DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (turn_id, step)
);

CREATE TABLE tool_calls (
    id               TEXT PRIMARY KEY,
    turn_id          TEXT NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    step             INTEGER NOT NULL,
    idx              INTEGER NOT NULL,
    provider_call_id TEXT NOT NULL DEFAULT '',
    tool             TEXT NOT NULL,
    arguments        TEXT NOT NULL DEFAULT '',
    status           TEXT NOT NULL,
    result           TEXT NOT NULL DEFAULT '',
    summary          TEXT NOT NULL DEFAULT '',
    refs             TEXT NOT NULL DEFAULT '[]',
    error_code       TEXT NOT NULL DEFAULT '',
    error_message    TEXT NOT NULL DEFAULT '',
    created_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at       DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX tool_calls_position ON tool_calls (turn_id, step, idx);

CREATE TABLE turn_frames (
    turn_id     TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (turn_id, seq)
);
CREATE INDEX turn_frames_created ON turn_frames (created_at);

-- +goose Down
DROP TABLE turn_frames;
DROP TABLE tool_calls;
DROP TABLE turn_steps;
DROP TABLE turns;
DROP TABLE messages;
DROP TABLE conversations;
