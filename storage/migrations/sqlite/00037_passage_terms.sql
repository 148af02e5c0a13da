-- +goose Up
-- Postgres keeps search's word statistics in passage_terms. SQLite has
-- nothing to add: FTS5 counts a word's passages from its own index fast
-- enough (retrieval/search.go), so this migration only keeps the two
-- engines' migrations numbered alike.
SELECT 1;

-- +goose Down
SELECT 1;
