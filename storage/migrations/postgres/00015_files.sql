-- +goose Up
-- Attached files of a space. The bytes are in the blob store (a local
-- directory or an S3 bucket) under blob_key; this row is what lists, access
-- checks and turns read.
CREATE TABLE files (
    id            TEXT PRIMARY KEY,
    space_id      TEXT NOT NULL REFERENCES spaces (id) ON DELETE CASCADE,
    uploader_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    size          BIGINT NOT NULL,
    blob_key      TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX files_space_created ON files (space_id, created_at DESC);

-- +goose Down
DROP TABLE files;
