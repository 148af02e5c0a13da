package usage

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hub/llm"
	"hub/storage"
)

// Call statuses.
const (
	StatusReserved = "reserved" // the request is about to be or is being made
	StatusSettled  = "settled"  // the request ended; the tokens and cost are the provider's
	StatusReleased = "released" // it never settled (a killed worker): its reservation no longer counts
)

// Call is who and what a model call is for. ID is the request's identity,
// which it reserves and settles under.
type Call struct {
	ID             string
	TurnID         string
	Step           int
	ConversationID string
	SpaceID        string
	PersonID       string
	Model          string
	Purpose        string // the usage bucket: the turn's (chat.Turn.Purpose), or the completion's
	// CompletionID names the completion the call was made for ("": a
	// turn's own call). One run inside a turn carries the turn too.
	CompletionID string
}

// row is the call's model_calls row as first written.
func (c Call) row(status string, now time.Time) storage.ModelCall {
	return storage.ModelCall{ID: c.ID, TurnID: c.TurnID, Step: c.Step, ConversationID: c.ConversationID,
		SpaceID: c.SpaceID, PersonID: c.PersonID, Model: c.Model, Purpose: c.Purpose, CompletionID: c.CompletionID,
		Status: status, Day: Day(now), CreatedAt: now}
}

// Store reads and writes model calls and budgets.
type Store struct {
	db  *storage.DB
	now func() time.Time
}

// NewStore returns a Store on db.
func NewStore(db *storage.DB) *Store {
	return &Store{db: db, now: func() time.Time { return time.Now().UTC() }}
}

func (s *Store) q(ctx context.Context) *gorm.DB { return s.db.Q(ctx) }

// Month is the budget month of a time: its UTC year and month, 2026-12.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// Day is the UTC date of a time, 2026-12-01.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// Reserve records the call as reserved with an estimated cost (in
// micro-dollars) and adds it to the space's reserved total for the month,
// unless that would pass the monthly budget: then it returns a
// *BudgetError and records nothing. Reserving a recorded id does nothing.
//
// The budget test is part of the UPDATE of the month's spend row: on
// Postgres its row lock orders racing turns; on SQLite writers are
// serialised. On Postgres the usual case is one statement; the first call
// of a month, a repeat and a refusal take the transaction.
func (s *Store) Reserve(ctx context.Context, c Call, estimate int64) error {
	estimate = max(estimate, 0)
	now := s.now()
	if s.db.Dialector.Name() == "postgres" {
		res := s.q(ctx).Exec(reserveSQL, reserveArgs(c, estimate, now)...)
		if res.Error != nil {
			return fmt.Errorf("reserve model call: %w", res.Error)
		}
		if res.RowsAffected == 1 {
			return nil
		}
	}
	return s.reserveTx(ctx, c, estimate, now)
}

// reserveSQL is Reserve's one statement on Postgres: the spend row's
// UPDATE, guarded by the budget and the call not being recorded yet, feeds
// the INSERT of the call's row.
//
// The budget is read by joining spaces: Postgres rechecks a join's quals on
// a concurrently updated row's new version, not an anti-join's (racing
// reservations passed a budget only one fitted).
const reserveSQL = `WITH spend AS (
		UPDATE space_spend SET reserved_micros = space_spend.reserved_micros + ?
		FROM spaces
		WHERE space_spend.space_id = ? AND space_spend.month = ?
			AND NOT EXISTS (SELECT 1 FROM model_calls WHERE id = ?)
			AND spaces.id = ? AND ` + withinBudget + `
		RETURNING 1)
	INSERT INTO model_calls (id, turn_id, step, conversation_id, space_id, person_id, model, purpose, completion_id, status, day, reserved_micros, created_at)
	SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM spend)`

// withinBudget guards a reservation's UPDATE of space_spend joined with
// its space: no budget, or the month's totals plus the estimate (the
// statement's last argument) fit it.
const withinBudget = `(spaces.monthly_budget_micros IS NULL
	OR space_spend.spent_micros + space_spend.reserved_micros + ? <= spaces.monthly_budget_micros)`

func reserveArgs(c Call, estimate int64, now time.Time) []any {
	return []any{estimate, c.SpaceID, Month(now), c.ID, c.SpaceID, estimate,
		c.ID, c.TurnID, c.Step, c.ConversationID, c.SpaceID, c.PersonID, c.Model, c.Purpose, c.CompletionID, StatusReserved, Day(now), estimate, now}
}

func (s *Store) reserveTx(ctx context.Context, c Call, estimate int64, now time.Time) error {
	month := Month(now)
	return s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		// The write first: on SQLite it takes the write lock before any read.
		row := c.row(StatusReserved, now)
		row.ReservedMicros = estimate
		res := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row)
		if res.Error != nil {
			return fmt.Errorf("reserve model call: %w", res.Error)
		}
		if res.RowsAffected == 0 {
			return nil // reserved before: this is a repeat
		}
		for try := 0; ; try++ {
			res := tx.Exec(`UPDATE space_spend SET reserved_micros = space_spend.reserved_micros + ?
				FROM spaces WHERE space_spend.space_id = ? AND space_spend.month = ? AND spaces.id = ? AND `+withinBudget,
				estimate, c.SpaceID, month, c.SpaceID, estimate)
			if res.Error != nil {
				return fmt.Errorf("reserve model call: %w", res.Error)
			}
			if res.RowsAffected == 1 {
				return nil
			}
			if try == 1 {
				break // the month's row is there and the estimate does not fit
			}
			// No row for the month yet, or over the budget: the insert makes
			// the row or waits for a racing call's, and the UPDATE runs once
			// more.
			ins := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&storage.SpaceSpend{SpaceID: c.SpaceID, Month: month})
			if ins.Error != nil {
				return fmt.Errorf("reserve model call: %w", ins.Error)
			}
		}
		var b Spend
		err := tx.Raw(`SELECT spaces.monthly_budget_micros AS budget, space_spend.spent_micros AS spent, space_spend.reserved_micros AS reserved
			FROM spaces JOIN space_spend ON space_spend.space_id = spaces.id AND space_spend.month = ? WHERE spaces.id = ?`,
			month, c.SpaceID).Scan(&b).Error
		if err != nil {
			return fmt.Errorf("reserve model call: %w", err)
		}
		if b.Budget == nil {
			return fmt.Errorf("reserve model call: the spend row of %s %s was refused without a budget", c.SpaceID, month)
		}
		return &BudgetError{Budget: *b.Budget, Spent: b.Spent, Reserved: b.Reserved, Needed: estimate}
	})
}

// ReleaseTurn releases the open reservations of a turn's calls other than
// except: a turn makes one model call at a time, so those a retried
// activity finds are of attempts that will never settle.
func (s *Store) ReleaseTurn(ctx context.Context, turnID, except string) error {
	_, err := s.release(ctx, "turn_id = ? AND status = ? AND id <> ?", turnID, StatusReserved, except)
	return err
}

// ReleaseCompletion releases the open reservations of a completion's
// calls other than except, as ReleaseTurn does a turn's.
func (s *Store) ReleaseCompletion(ctx context.Context, completionID, except string) error {
	_, err := s.release(ctx, "completion_id = ? AND status = ? AND id <> ?", completionID, StatusReserved, except)
	return err
}

// Settle records what the call used and cost (micro-dollars) once its
// request ended (errKind: an llm error kind, "" for none) and moves its
// reservation to the month's spent total. A call settled before is left
// as it is; a released or never reserved one still gets its usage and cost.
//
// The UPDATE names the status it settles from (reserved, then released),
// so it knows atomically whether the reservation still counted: a racing
// release makes the reserved UPDATE match nothing and the released one
// take over, so the estimate is taken off exactly once. On Postgres the
// usual case is one statement; on SQLite one transaction.
func (s *Store) Settle(ctx context.Context, c Call, u llm.Usage, cost int64, errKind string) error {
	now := s.now()
	set := []any{StatusSettled, u.InputTokens, min(u.CachedInputTokens, u.InputTokens), u.OutputTokens, cost, errKind, u.Estimated, now}
	if s.db.Dialector.Name() == "postgres" {
		for _, from := range []string{StatusReserved, StatusReleased} {
			var n int64
			args := append(append([]any{}, set...), c.ID, from, from, cost, cost)
			if err := s.q(ctx).Raw(settleSQL, args...).Scan(&n).Error; err != nil {
				return fmt.Errorf("settle model call: %w", err)
			}
			if n == 1 {
				return nil
			}
		}
	}
	return s.db.InTx(ctx, func(ctx context.Context) error {
		tx := s.q(ctx)
		// A call neither reserved nor released is settled (left as it is) or
		// missing: then it is recorded as released and settled from there.
		for i, from := range []string{StatusReserved, StatusReleased, StatusReleased} {
			if i == 2 {
				row := c.row(StatusReleased, now)
				if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error; err != nil {
					return fmt.Errorf("settle model call: %w", err)
				}
			}
			var rows []storage.ModelCall
			args := append(append([]any{}, set...), c.ID, from)
			if err := tx.Raw(settleUpdate+` RETURNING space_id, day, reserved_micros`, args...).Scan(&rows).Error; err != nil {
				return fmt.Errorf("settle model call: %w", err)
			}
			if len(rows) == 1 {
				held := int64(0)
				if from == StatusReserved {
					held = rows[0].ReservedMicros
				}
				return s.addSpend(ctx, rows[0].SpaceID, rows[0].Day[:7], cost, -held)
			}
		}
		return nil
	})
}

// settleUpdate settles a call from one status; its arguments are set's
// and then the id and the status.
const settleUpdate = `UPDATE model_calls SET status = ?, input_tokens = ?, cached_input_tokens = ?, output_tokens = ?,
	cost_micros = ?, error_kind = ?, estimated = ?, settled_at = ? WHERE id = ? AND status = ?`

// settleSQL is Settle's one statement on Postgres: the call's UPDATE from
// a status (then the status again and the cost twice) feeds the upsert of
// the month's spend row; it returns how many calls it settled.
const settleSQL = `WITH settled AS (` + settleUpdate + `
		RETURNING space_id, substr(day, 1, 7) AS month, CASE WHEN ?::text = 'reserved' THEN reserved_micros ELSE 0 END AS held),
	spend AS (
		INSERT INTO space_spend (space_id, month, spent_micros, reserved_micros)
		SELECT space_id, month, ?::bigint, -held FROM settled WHERE ?::bigint <> 0 OR held <> 0
		ON CONFLICT (space_id, month) DO UPDATE SET spent_micros = space_spend.spent_micros + excluded.spent_micros,
			reserved_micros = space_spend.reserved_micros + excluded.reserved_micros
		RETURNING 1)
	SELECT count(*) FROM settled`

// addSpend changes a space's month totals, creating its row when missing.
func (s *Store) addSpend(ctx context.Context, spaceID, month string, spent, reserved int64) error {
	if spent == 0 && reserved == 0 {
		return nil
	}
	err := s.q(ctx).Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "space_id"}, {Name: "month"}},
		DoUpdates: clause.Assignments(map[string]any{
			"spent_micros":    gorm.Expr("space_spend.spent_micros + ?", spent),
			"reserved_micros": gorm.Expr("space_spend.reserved_micros + ?", reserved),
		}),
	}).Create(&storage.SpaceSpend{SpaceID: spaceID, Month: month, SpentMicros: spent, ReservedMicros: reserved}).Error
	if err != nil {
		return fmt.Errorf("space spend: %w", err)
	}
	return nil
}

// ReleaseStale releases the reservations made before a time that never
// settled, and returns how many.
func (s *Store) ReleaseStale(ctx context.Context, before time.Time) (int64, error) {
	return s.release(ctx, "status = ? AND created_at < ?", StatusReserved, before.UTC())
}

// release marks the reserved calls matching where as released and takes
// their estimates off the months' totals, in one transaction. The calls'
// rows are updated first, in id order, then the months': a Settle locks in
// that order, so the other would deadlock.
func (s *Store) release(ctx context.Context, where string, args ...any) (int64, error) {
	var n int64
	err := s.db.InTx(ctx, func(ctx context.Context) error {
		tx, now := s.q(ctx), s.now()
		var rows []storage.ModelCall
		if err := tx.Where(where, args...).Order("id").Find(&rows).Error; err != nil {
			return fmt.Errorf("release reservations: %w", err)
		}
		type month struct{ space, month string }
		held := map[month]int64{}
		for _, r := range rows {
			res := tx.Model(&storage.ModelCall{}).Where("id = ? AND status = ?", r.ID, StatusReserved).
				Updates(map[string]any{"status": StatusReleased, "settled_at": now})
			if res.Error != nil {
				return fmt.Errorf("release reservation %s: %w", r.ID, res.Error)
			}
			if res.RowsAffected == 1 {
				n++
				held[month{r.SpaceID, Month(r.CreatedAt)}] += r.ReservedMicros
			}
		}
		byMonth := func(a, b month) int { return cmp.Or(cmp.Compare(a.space, b.space), cmp.Compare(a.month, b.month)) }
		for _, m := range slices.SortedFunc(maps.Keys(held), byMonth) {
			if err := s.addSpend(ctx, m.space, m.month, 0, -held[m]); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// Record is one model call as kept (amounts in micro-dollars).
type Record struct {
	ID, Model, Status, ErrorKind                 string
	Estimated                                    bool // the provider reported no usage: Hub estimated it
	Step                                         int
	InputTokens, CachedInputTokens, OutputTokens int64
	ReservedMicros, CostMicros                   int64
	CreatedAt                                    time.Time
	SettledAt                                    *time.Time
}

// TurnCalls returns the model calls of a turn, oldest first.
func (s *Store) TurnCalls(ctx context.Context, turnID string) ([]Record, error) {
	var rows []storage.ModelCall
	if err := s.q(ctx).Where("turn_id = ?", turnID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("model calls of turn %s: %w", turnID, err)
	}
	out := make([]Record, len(rows))
	for i, r := range rows {
		out[i] = Record{ID: r.ID, Model: r.Model, Status: r.Status, ErrorKind: r.ErrorKind, Estimated: r.Estimated, Step: r.Step,
			InputTokens: r.InputTokens, CachedInputTokens: r.CachedInputTokens, OutputTokens: r.OutputTokens,
			ReservedMicros: r.ReservedMicros, CostMicros: r.CostMicros, CreatedAt: r.CreatedAt, SettledAt: r.SettledAt}
	}
	return out, nil
}
