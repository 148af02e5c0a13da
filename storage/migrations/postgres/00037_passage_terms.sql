-- +goose Up
-- Search's word statistics. A search weighs each word of a query by how
-- many of the space's passages have it (retrieval/search.go): counting
-- that per search took longer than the search itself at 50,000 passages
-- (docs/benchmarks.md, "Search"), so passage_terms keeps it, per space
-- and lexeme ('' counts the space's live passages), changed by one
-- statement-level trigger in the transaction that changes passages.
-- Rows that fall to 0 stay: they read as the absent word does. No foreign
-- key: a space's deletion cascades to passages, whose trigger then
-- subtracts what the space had.
CREATE TABLE passage_terms (
    space_id  TEXT NOT NULL,
    term      TEXT NOT NULL,
    passages  INTEGER NOT NULL,
    PRIMARY KEY (space_id, term)
);

-- +goose StatementBegin
-- passage_terms_change adds the words of the live passages added and
-- subtracts those of the live passages removed, in one statement in
-- (space, term) order: the space's '' row comes first, so two
-- transactions that change one space's counts take its rows one after the
-- other and cannot deadlock.
CREATE FUNCTION passage_terms_change(added passages[], removed passages[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO passage_terms AS t (space_id, term, passages)
    SELECT space_id, term, sum(d) FROM (
        SELECT a.space_id, w.term, 1 AS d
        FROM unnest(added) a, unnest(tsvector_to_array(a.words) || '{""}'::text[]) w (term) WHERE a.live
        UNION ALL
        SELECT r.space_id, w.term, -1
        FROM unnest(removed) r, unnest(tsvector_to_array(r.words) || '{""}'::text[]) w (term) WHERE r.live) c
    GROUP BY space_id, term HAVING sum(d) <> 0 ORDER BY space_id, term
    ON CONFLICT (space_id, term) DO UPDATE SET passages = t.passages + excluded.passages
$$;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE FUNCTION passage_terms_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- Each branch names only the transition tables its event has.
    IF TG_OP = 'INSERT' THEN
        PERFORM passage_terms_change(ARRAY(SELECT a::passages FROM added a), '{}'::passages[]);
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM passage_terms_change('{}'::passages[], ARRAY(SELECT r::passages FROM removed r));
    ELSE
        PERFORM passage_terms_change(ARRAY(SELECT a::passages FROM added a), ARRAY(SELECT r::passages FROM removed r));
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER passages_terms_insert AFTER INSERT ON passages REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION passage_terms_count();
CREATE TRIGGER passages_terms_update AFTER UPDATE ON passages REFERENCING OLD TABLE AS removed NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION passage_terms_count();
CREATE TRIGGER passages_terms_delete AFTER DELETE ON passages REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION passage_terms_count();
INSERT INTO passage_terms (space_id, term, passages)
SELECT space_id, term, count(*) FROM (
    SELECT space_id, unnest(tsvector_to_array(words)) AS term FROM passages WHERE live
    UNION ALL SELECT space_id, '' FROM passages WHERE live) c
GROUP BY space_id, term;

-- A passage's words stay in its row (the body goes to TOAST first): a
-- search reads them for every candidate it ranks, and fetching them from
-- TOAST made ranking several times slower. Rows written from now on.
ALTER TABLE passages ALTER COLUMN words SET STORAGE MAIN;

-- +goose Down
ALTER TABLE passages ALTER COLUMN words SET STORAGE EXTENDED;
DROP TRIGGER passages_terms_delete ON passages;
DROP TRIGGER passages_terms_update ON passages;
DROP TRIGGER passages_terms_insert ON passages;
DROP FUNCTION passage_terms_count();
DROP FUNCTION passage_terms_change(passages[], passages[]);
DROP TABLE passage_terms;
