-- +goose Up
-- An audit event of no space (space_id NULL) is one of Hub as a whole: a
-- subject of the identity provider that signed in for the first time.
ALTER TABLE audit_events ALTER COLUMN space_id DROP NOT NULL;

-- +goose Down
DELETE FROM audit_events WHERE space_id IS NULL;
ALTER TABLE audit_events ALTER COLUMN space_id SET NOT NULL;
