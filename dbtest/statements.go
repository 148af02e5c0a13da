package dbtest

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"gorm.io/gorm"

	"hub/models"
)

// Statements records the SQL statements a database handle runs (what
// gorm sends: not BEGIN and COMMIT), so a test can say how many round
// trips a piece of work costs.
type Statements struct {
	mu   sync.Mutex
	list []string
	// units are the commits of the statements recorded since the last
	// TakeCommits: a statement outside a transaction commits alone (nil),
	// the statements of one transaction share its *sql.Tx. Holding the
	// value keeps it from being collected, so a later transaction never
	// reuses its address.
	units []any
	last  any
}

var recorders atomic.Int64

// Record starts recording the statements run on db (and every session
// made from it) until the test ends.
func Record(t testing.TB, db *models.DB) *Statements {
	t.Helper()
	s := &Statements{}
	name := "dbtest:record:" + strconv.FormatInt(recorders.Add(1), 10)
	rec := func(tx *gorm.DB) {
		if tx.Statement == nil || tx.Statement.SQL.Len() == 0 {
			return
		}
		s.mu.Lock()
		s.list = append(s.list, tx.Statement.SQL.String())
		pool := any(tx.Statement.ConnPool)
		if _, inTx := pool.(gorm.TxCommitter); !inTx {
			s.units = append(s.units, nil)
		} else if s.last != pool {
			s.units = append(s.units, pool)
		}
		s.last = pool
		s.mu.Unlock()
	}
	cb := db.Callback()
	procs := []interface {
		Register(string, func(*gorm.DB)) error
	}{
		cb.Create().After("gorm:create"), cb.Query().After("gorm:query"), cb.Update().After("gorm:update"),
		cb.Delete().After("gorm:delete"), cb.Row().After("gorm:row"), cb.Raw().After("gorm:raw"),
	}
	for _, p := range procs {
		if err := p.Register(name, rec); err != nil {
			t.Fatalf("record statements: %v", err)
		}
	}
	t.Cleanup(func() {
		_ = cb.Create().Remove(name)
		_ = cb.Query().Remove(name)
		_ = cb.Update().Remove(name)
		_ = cb.Delete().Remove(name)
		_ = cb.Row().Remove(name)
		_ = cb.Raw().Remove(name)
	})
	return s
}

// Take returns the statements recorded since the last Take (or Record)
// and starts afresh.
func (s *Statements) Take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.list
	s.list = nil
	return out
}

// TakeCommits returns how many commits the statements recorded since the
// last TakeCommits (or Record) made — one per statement outside a
// transaction, one per transaction; a transaction without a statement is
// not seen — and starts afresh. Transactions that interleave (two at once
// on Postgres) are counted as often as they take turns: record one thing
// at a time.
func (s *Statements) TakeCommits() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.units)
	s.units, s.last = nil, nil
	return n
}

// Matching counts the statements of list that contain every one of words
// (case-insensitively, with names' quotes left out: `FROM model_calls`
// matches either engine's quoting).
func Matching(list []string, words ...string) int {
	n := 0
	for _, q := range list {
		l := strings.ToLower(strings.NewReplacer(`"`, "", "`", "").Replace(q))
		ok := true
		for _, w := range words {
			if !strings.Contains(l, strings.ToLower(w)) {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}
