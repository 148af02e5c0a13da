-- +goose Up
-- One table of frames for every log: a turn's stream (log: the turn's id,
-- numbered by turns.frame_seq) and a person's work frames (log:
-- 'work:<person id>', numbered by its frame_heads row, which outlives the
-- frames so numbers never go back). attempt and frames_once are
-- turn_frames' (migration 00027).
CREATE TABLE frames (
    log         TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    attempt     BIGINT,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (log, seq)
);
CREATE INDEX frames_created ON frames (created_at);
CREATE UNIQUE INDEX frames_once ON frames (log, type, attempt)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done');
CREATE TABLE frame_heads (
    log  TEXT PRIMARY KEY,
    seq  BIGINT NOT NULL
);
INSERT INTO frames (log, seq, type, data, attempt, created_at)
SELECT turn_id, seq, type, data, attempt, created_at FROM turn_frames;
INSERT INTO frames (log, seq, type, data, created_at)
SELECT 'work:' || person_id, seq, 'work', data, created_at FROM activity_frames;
INSERT INTO frame_heads (log, seq) SELECT 'work:' || person_id, seq FROM activity_heads;
DROP TABLE turn_frames;
DROP TABLE activity_frames;
DROP TABLE activity_heads;

-- +goose Down
CREATE TABLE turn_frames (
    turn_id     TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    type        TEXT NOT NULL,
    data        TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    attempt     BIGINT,
    PRIMARY KEY (turn_id, seq)
);
CREATE INDEX turn_frames_created ON turn_frames (created_at);
CREATE UNIQUE INDEX turn_frames_once ON turn_frames (turn_id, type, attempt)
WHERE type IN ('refs', 'proposal', 'turn_error', 'error', 'done');
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
INSERT INTO turn_frames (turn_id, seq, type, data, created_at, attempt)
SELECT log, seq, type, data, created_at, attempt FROM frames WHERE log NOT LIKE 'work:%';
INSERT INTO activity_heads (person_id, seq)
SELECT substr(log, 6), seq FROM frame_heads WHERE log LIKE 'work:%' AND substr(log, 6) IN (SELECT id FROM people);
INSERT INTO activity_frames (person_id, seq, data, created_at)
SELECT substr(log, 6), seq, data, created_at FROM frames WHERE log LIKE 'work:%' AND substr(log, 6) IN (SELECT id FROM people);
DROP TABLE frame_heads;
DROP TABLE frames;
