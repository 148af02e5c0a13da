-- +goose Up
-- A workflow step keeps the records it changed, as a held call's receipt
-- does: an applied hub_run_workflow's receipt, its call and its reply name
-- every step's records, and the next turn's history says what each step did.
ALTER TABLE workflow_steps ADD COLUMN refs TEXT NOT NULL DEFAULT '[]';

-- +goose Down
ALTER TABLE workflow_steps DROP COLUMN refs;
