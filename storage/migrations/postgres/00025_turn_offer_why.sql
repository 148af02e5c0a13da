-- +goose Up
-- Why a turn was offered the tools it was (JSON: the playbooks routed,
-- a simple request's recipe, the fallback and its reason), for the run
-- inspector (GET /api/assistant/turns/:turnId/inspect).
ALTER TABLE turns ADD COLUMN offer_why TEXT NOT NULL DEFAULT '';

-- The inspector reads every model call of a turn, not only the reserved
-- ones: the turn's index covers all of them (a turn has a few, so the
-- release of its open reservations reads them all as cheaply).
DROP INDEX model_calls_turn;
CREATE INDEX model_calls_turn ON model_calls (turn_id);

-- +goose Down
DROP INDEX model_calls_turn;
CREATE INDEX model_calls_turn ON model_calls (turn_id) WHERE status = 'reserved';
ALTER TABLE turns DROP COLUMN offer_why;
