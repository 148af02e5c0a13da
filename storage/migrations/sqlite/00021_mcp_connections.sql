-- +goose Up
-- A connected MCP server (kind 'mcp'): its bearer secret sealed with the
-- operator's key (AES-GCM; NULL: none), and the tools it listed, as JSON,
-- with when they were listed (NULL: never), so a turn offers them without
-- asking the server again until they are refreshed.
ALTER TABLE connections ADD COLUMN secret BLOB;
ALTER TABLE connections ADD COLUMN tools TEXT NOT NULL DEFAULT '';
ALTER TABLE connections ADD COLUMN tools_listed_at DATETIME;

-- +goose Down
ALTER TABLE connections DROP COLUMN tools_listed_at;
ALTER TABLE connections DROP COLUMN tools;
ALTER TABLE connections DROP COLUMN secret;
