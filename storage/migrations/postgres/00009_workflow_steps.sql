-- +goose Up
-- The steps of an applied hub_run_workflow call, each its own durable unit:
-- its state (pending, running, succeeded, failed, interrupted), its input
-- with every $ref resolved, its output (for later steps' refs) and its
-- receipt. A step found "running" when an Apply starts was interrupted and
-- is never run again on its own.
CREATE TABLE workflow_steps (
    call_id         TEXT NOT NULL REFERENCES tool_calls (id) ON DELETE CASCADE,
    step_id         TEXT NOT NULL,
    idx             INTEGER NOT NULL,
    space_id        TEXT NOT NULL,
    actor_id        TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    tool            TEXT NOT NULL,
    status          TEXT NOT NULL,
    resolved_input  TEXT NOT NULL DEFAULT '',
    output          TEXT NOT NULL DEFAULT '',
    summary         TEXT NOT NULL DEFAULT '',
    error_code      TEXT NOT NULL DEFAULT '',
    error_message   TEXT NOT NULL DEFAULT '',
    undo_group_id   TEXT NOT NULL DEFAULT '',
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (call_id, step_id)
);

-- +goose Down
DROP TABLE workflow_steps;
