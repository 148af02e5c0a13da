-- +goose Up
-- A token's lifecycle (hub token create --name --ttl, list, revoke; GET and
-- DELETE /api/me/tokens): its name, the first characters of the token (to
-- tell tokens apart; the token itself is only hashed), when it was last
-- used (updated at most once a minute), and the token it was derived from
-- (a stream token or a session: revoking that token deletes them too).
ALTER TABLE api_tokens ADD COLUMN name TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN prefix TEXT NOT NULL DEFAULT '';
ALTER TABLE api_tokens ADD COLUMN last_used_at TIMESTAMPTZ;
ALTER TABLE api_tokens ADD COLUMN parent_id TEXT NOT NULL DEFAULT '';
CREATE INDEX api_tokens_person ON api_tokens (person_id);
CREATE INDEX api_tokens_parent ON api_tokens (parent_id) WHERE parent_id <> '';

-- +goose Down
DROP INDEX api_tokens_parent;
DROP INDEX api_tokens_person;
ALTER TABLE api_tokens DROP COLUMN parent_id;
ALTER TABLE api_tokens DROP COLUMN last_used_at;
ALTER TABLE api_tokens DROP COLUMN prefix;
ALTER TABLE api_tokens DROP COLUMN name;
