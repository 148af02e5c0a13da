-- +goose Up
-- A person's activity stream (GET /api/agent/stream): every change of the
-- person's running work (a turn queued, working, paused, stopping, ended; a
-- reply's writes waiting for Apply, applied) is a frame numbered per
-- person, written in the transaction of the change, so a client that
-- reconnects with Last-Event-ID gets exactly what it missed from any api
-- process. activity_heads holds each person's last number (taking its row
-- lock is what orders a person's frames) and outlives the frames, which
-- are removed after a while: numbers never go back.
CREATE TABLE activity_heads (
    person_id  TEXT PRIMARY KEY REFERENCES people (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL
);
CREATE TABLE activity_frames (
    person_id  TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    data       TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (person_id, seq)
);

-- +goose Down
DROP TABLE activity_frames;
DROP TABLE activity_heads;
