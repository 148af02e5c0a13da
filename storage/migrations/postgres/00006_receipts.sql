-- +goose Up
-- One receipt per held call the person applied: what became of it. A Hub
-- write's receipt is written in the same transaction as the write, so a
-- retried Apply finds it and does not write twice. An outside write is
-- marked "sending" before it goes out, so a crash after sending leaves
-- "sending", which the next Apply reports as "unknown" instead of resending.
CREATE TABLE receipts (
    call_id       TEXT PRIMARY KEY REFERENCES tool_calls (id) ON DELETE CASCADE,
    message_id    TEXT NOT NULL,
    space_id      TEXT NOT NULL,
    status        TEXT NOT NULL,
    summary       TEXT NOT NULL DEFAULT '',
    error_code    TEXT NOT NULL DEFAULT '',
    error_message TEXT NOT NULL DEFAULT '',
    undo_group_id TEXT NOT NULL DEFAULT '',
    attempts      INTEGER NOT NULL DEFAULT 0,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX receipts_message ON receipts (message_id);

-- +goose Down
DROP TABLE receipts;
