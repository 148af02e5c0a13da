package dbtest

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"hub/storage"
)

// Statements records the SQL statements a database handle runs (what
// gorm sends: not BEGIN and COMMIT), so a test can say how many round
// trips a piece of work costs.
type Statements struct {
	mu   sync.Mutex
	list []string
}

var recorders atomic.Int64

// Record starts recording the statements run on db (and every session
// made from it) until the test ends. It adds and, in a cleanup, removes
// gorm callbacks, which gorm does not guard against statements running at
// that moment: anything the test started that runs statements in the
// background (a catalog's watchers, a worker) must be stopped by a cleanup
// registered after Record, so that it runs first.
func Record(t testing.TB, db *storage.DB) *Statements {
	t.Helper()
	s := &Statements{}
	name := "dbtest:record:" + strconv.FormatInt(recorders.Add(1), 10)
	remove, err := db.Observe(name, storage.Observer{After: func(_ any, st storage.Statement) {
		if st.SQL == "" {
			return
		}
		s.mu.Lock()
		s.list = append(s.list, st.SQL)
		s.mu.Unlock()
	}})
	if err != nil {
		t.Fatalf("record statements: %v", err)
	}
	t.Cleanup(remove)
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
