package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"gorm.io/gorm"

	"hub/storage"
)

// CheckAccessOnce returns a context in which Access — and everything that
// checks it: CanWrite, GetSpace, ListConnections, ListTasks, a write's
// Undo group… — reads a person's membership of a space once and answers
// from that read for the rest of the context's life; GetSettings the
// same for the person's settings. An activity of a turn
// calls it when it starts: the rule is still checked at every activity (a
// person removed mid-turn is refused at the next one), but not read again
// by each layer the activity passes through. A change of memberships made
// through a Service in this context (a tool that adds, changes or removes
// a member, an Undo that brings one back) forgets what was read, so later
// checks of the activity read again.
//
// The read also tells whether the space has an MCP connection
// (SpaceHasMCP), so an activity in a space with none asks nothing more
// about its apps.
func CheckAccessOnce(ctx context.Context) context.Context {
	if memoFrom(ctx) != nil {
		return ctx
	}
	return context.WithValue(ctx, accessMemoKey{}, &accessMemo{})
}

// SpaceHasMCP tells whether a space had an MCP connection when its access
// was read in ctx (CheckAccessOnce); known is false when it was not.
func SpaceHasMCP(ctx context.Context, spaceID string) (has, known bool) {
	m := memoFrom(ctx)
	if m == nil {
		return false, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	has, known = m.mcp[spaceID]
	return has, known
}

type accessMemoKey struct{}

// accessMemo is what CheckAccessOnce remembers: each (person, space)'s
// role ("" for none) and each space's having an MCP connection.
type accessMemo struct {
	mu       sync.Mutex
	roles    map[[2]string]Role
	mcp      map[string]bool
	apps     map[string]bool     // the space has a connection of any kind
	settings map[string]Settings // by person
	// what a turn's start read with its access (StartColumns): GetSpace's
	// name and GetPerson's row.
	started
}

func memoFrom(ctx context.Context) *accessMemo {
	m, _ := ctx.Value(accessMemoKey{}).(*accessMemo)
	return m
}

func (m *accessMemo) get(personID, spaceID string) (Role, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.roles[[2]string{personID, spaceID}]
	return r, ok
}

func (m *accessMemo) put(personID, spaceID string, role Role, mcp, apps bool, known bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.roles == nil {
		m.roles, m.mcp, m.apps = map[[2]string]Role{}, map[string]bool{}, map[string]bool{}
	}
	m.roles[[2]string{personID, spaceID}] = role
	if known {
		m.mcp[spaceID], m.apps[spaceID] = mcp, apps
	}
}

// spaceHasApps tells whether a space had a connection of any kind when its
// access was read in ctx; known is false when it was not.
func spaceHasApps(ctx context.Context, spaceID string) (has, known bool) {
	m := memoFrom(ctx)
	if m == nil {
		return false, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	has, known = m.apps[spaceID]
	return has, known
}

// settingsOf is the person's remembered settings.
func (m *accessMemo) settingsOf(personID string) (Settings, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.settings[personID]
	return st, ok
}

// putSettings remembers the person's settings (unless some are, and
// replace is false).
func (m *accessMemo) putSettings(personID string, st Settings, replace bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.settings == nil {
		m.settings = map[string]Settings{}
	}
	if _, ok := m.settings[personID]; ok && !replace {
		return
	}
	// The lists are the memo's own: a caller changing its copy changes
	// nothing here.
	st.AllowedWriteAreas = append([]string(nil), st.AllowedWriteAreas...)
	if len(st.AllowedWriteAreas) == 0 {
		st.AllowedWriteAreas = nil
	}
	m.settings[personID] = st
}

// forgetAccess drops what CheckAccessOnce remembered in ctx, and what the
// Tx s runs in read: called by every change of memberships, of a space's
// connections and of settings.
func (s *Service) forgetAccess(ctx context.Context) {
	if m := memoFrom(ctx); m != nil {
		m.mu.Lock()
		m.roles, m.mcp, m.apps, m.settings = nil, nil, nil, nil
		m.started = started{}
		m.mu.Unlock()
	}
	if st := s.txOf(ctx); st != nil {
		r := &st.roles
		r.mu.Lock()
		r.roles = nil
		r.forgot = true
		r.mu.Unlock()
	}
}

// txRoles are the roles a transaction read (txState): each (person,
// space) once per transaction.
type txRoles struct {
	mu    sync.Mutex
	roles map[[2]string]Role // "" for none
	// forgot says a change inside the transaction cleared the activity's
	// memo: txOf clears it once more when the outermost transaction
	// has ended, because a check made meanwhile outside the transaction
	// (on Postgres, another connection) read and remembered the state
	// before the change.
	forgot bool
}

// accessInTx is Access inside a transaction. It reads the membership in
// the transaction itself — never from an activity's memo (CheckAccessOnce),
// so a person removed or made a viewer after the activity started is
// refused at the write. On SQLite (one connection) no removal can commit
// between this check and the write's commit; on Postgres the read takes no
// lock, so a removal committing meanwhile is ordered after the write (it
// reads no records: the outcome is the write made just before the
// removal) — and keeps the answer
// for the transaction's later checks only (CanWrite of the write and of
// its Undo group read once). What it read is not put in the activity's
// memo: the transaction may still roll back (an Undo that brings a member
// back and then fails).
func (s *Service) accessInTx(ctx context.Context, roles *txRoles, personID, spaceID string) (Role, error) {
	key := [2]string{personID, spaceID}
	roles.mu.Lock()
	role, ok := roles.roles[key]
	roles.mu.Unlock()
	if !ok {
		var rows []storage.Membership
		if err := s.q(ctx).Select("role").Where("space_id = ? AND person_id = ?", spaceID, personID).Limit(1).Find(&rows).Error; err != nil {
			return "", fmt.Errorf("access %s: %w", spaceID, err)
		}
		if len(rows) == 1 {
			role = Role(rows[0].Role)
		}
		roles.mu.Lock()
		if roles.roles == nil {
			roles.roles = map[[2]string]Role{}
		}
		roles.roles[key] = role
		roles.mu.Unlock()
	}
	if role == "" {
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	return role, nil
}

// accessOnce is Access with a memo: the role from the memo, or one read
// of the membership and of whether the space has an MCP connection.
func (s *Service) accessOnce(ctx context.Context, m *accessMemo, personID, spaceID string) (Role, error) {
	role, ok := m.get(personID, spaceID)
	if !ok {
		var rows []struct {
			Role string
			MCP  bool `gorm:"column:mcp"`
			Apps bool `gorm:"column:apps"`
		}
		err := s.q(ctx).Raw(`SELECT role,
				EXISTS (SELECT 1 FROM connections WHERE connections.space_id = memberships.space_id AND connections.kind = ?) AS mcp,
				EXISTS (SELECT 1 FROM connections WHERE connections.space_id = memberships.space_id) AS apps
			FROM memberships WHERE space_id = ? AND person_id = ?`, ConnectionMCP, spaceID, personID).Scan(&rows).Error
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return "", fmt.Errorf("access %s: %w", spaceID, err)
		}
		if len(rows) == 1 {
			role = Role(rows[0].Role)
		}
		found := len(rows) == 1
		m.put(personID, spaceID, role, found && rows[0].MCP, found && rows[0].Apps, found)
	}
	if role == "" {
		return "", &NotFoundError{Kind: "space", ID: spaceID}
	}
	return role, nil
}

// RemembersAccess tells whether ctx keeps an activity's access reads
// (CheckAccessOnce), so that a query the activity makes anyway may read
// the access along (AccessColumns) instead of a read of its own.
func RemembersAccess(ctx context.Context) bool { return memoFrom(ctx) != nil }

// AccessColumns are select expressions that read, as part of another
// query, what an activity's checks read (CheckAccessOnce): the person's
// role in the space (NULL: they cannot open it), whether the space has an
// MCP connection, and the person's settings (NULL columns: none saved).
// person and space are the query's expressions for them (columns, not
// input). Scan them into an ActivityRead; RememberAccess keeps them.
func AccessColumns(person, space string) string {
	sel := func(col string) string {
		return `(SELECT ` + col + ` FROM settings WHERE settings.person_id = ` + person + `) AS set_` + col
	}
	return `(SELECT role FROM memberships WHERE memberships.space_id = ` + space + ` AND memberships.person_id = ` + person + `) AS access_role,
		EXISTS (SELECT 1 FROM connections WHERE connections.space_id = ` + space + ` AND connections.kind = '` + ConnectionMCP + `') AS access_mcp,
		EXISTS (SELECT 1 FROM connections WHERE connections.space_id = ` + space + `) AS access_apps, ` +
		sel("person_id") + `, ` + sel("write_policy") + `, ` + sel("allowed_write_areas") + `, ` +
		sel("connected_app_writes") + `, ` + sel("model") + `, ` + sel("effort")
}

// ActivityRead is what AccessColumns read; embed it in the row a query
// scans (gorm:"embedded").
type ActivityRead struct {
	Role               *string `gorm:"column:access_role"`
	MCP                bool    `gorm:"column:access_mcp"`
	Apps               bool    `gorm:"column:access_apps"`
	SetPersonID        *string `gorm:"column:set_person_id"`
	WritePolicy        *string `gorm:"column:set_write_policy"`
	AllowedWriteAreas  *string `gorm:"column:set_allowed_write_areas"`
	ConnectedAppWrites *bool   `gorm:"column:set_connected_app_writes"`
	Model              *string `gorm:"column:set_model"`
	Effort             *string `gorm:"column:set_effort"`
}

// RememberAccess keeps in ctx's memo (CheckAccessOnce) what a query read
// with AccessColumns; without a memo it does nothing. What is remembered
// already is kept (it was read in this activity too).
func RememberAccess(ctx context.Context, personID, spaceID string, r ActivityRead) {
	m := memoFrom(ctx)
	if m == nil || personID == "" || spaceID == "" {
		return
	}
	if _, ok := m.get(personID, spaceID); !ok {
		role := Role("")
		if r.Role != nil {
			role = Role(*r.Role)
		}
		m.put(personID, spaceID, role, r.MCP, r.Apps, true)
	}
	if st, ok := r.settings(personID); ok {
		m.putSettings(personID, st, false)
	}
}

// settings are the person's settings as AccessColumns read them; ok is
// false when they do not convert (GetSettings reads them and says what is
// wrong).
func (r ActivityRead) settings(personID string) (Settings, bool) {
	st := Settings{WritePolicy: PolicyImmediate}
	if r.SetPersonID != nil {
		row := storage.Setting{PersonID: personID, WritePolicy: deref(r.WritePolicy), AllowedWriteAreas: deref(r.AllowedWriteAreas),
			ConnectedAppWrites: r.ConnectedAppWrites != nil && *r.ConnectedAppWrites, Model: deref(r.Model), Effort: deref(r.Effort)}
		var err error
		if st, err = toSettings(row); err != nil {
			return Settings{}, false
		}
	}
	return st, true
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// StartColumns are select expressions that read, as part of another query
// in an activity that keeps its access reads (CheckAccessOnce), what a
// turn's start reads besides the access: the space's name (GetSpace) and
// the person's row (GetPerson). person and space are the query's
// expressions for them. Scan them into a StartRead; RememberStart keeps
// them, and GetSpace and GetPerson answer from that in the activity.
func StartColumns(person, space string) string {
	sel := func(table, key, col string) string {
		return `(SELECT ` + col + ` FROM ` + table + ` WHERE ` + table + `.id = ` + key + `) AS start_` + table + `_` + col
	}
	return sel("spaces", space, "name") + `, ` + sel("people", person, "id") + `, ` + sel("people", person, "name") + `, ` +
		sel("people", person, "first_name") + `, ` + sel("people", person, "persona")
}

// StartRead is what StartColumns read; embed it in the row a query scans
// (gorm:"embedded").
type StartRead struct {
	SpaceName       *string `gorm:"column:start_spaces_name"`
	PersonID        *string `gorm:"column:start_people_id"`
	PersonName      *string `gorm:"column:start_people_name"`
	PersonFirstName *string `gorm:"column:start_people_first_name"`
	PersonPersona   *string `gorm:"column:start_people_persona"`
}

// RememberStart keeps in ctx's memo (CheckAccessOnce) what a query read
// with StartColumns; without a memo it does nothing. A missing space or
// person is not kept: GetSpace and GetPerson read it, and say so.
func RememberStart(ctx context.Context, personID, spaceID string, r StartRead) {
	m := memoFrom(ctx)
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keep(personID, spaceID, r)
}

// started is what a turn's start read besides the access (StartRead), as
// an activity's memo keeps it (under the memo's lock).
type started struct {
	spaceNames map[string]string
	people     map[string]Person
}

// keep keeps what r found of the space and the person.
func (st *started) keep(personID, spaceID string, r StartRead) {
	if r.SpaceName != nil && spaceID != "" {
		if st.spaceNames == nil {
			st.spaceNames = map[string]string{}
		}
		st.spaceNames[spaceID] = *r.SpaceName
	}
	if r.PersonID != nil && *r.PersonID == personID {
		if st.people == nil {
			st.people = map[string]Person{}
		}
		st.people[personID] = Person{ID: personID, Name: deref(r.PersonName), GivenName: deref(r.PersonFirstName), Persona: deref(r.PersonPersona)}
	}
}

// startedIn is what ctx's memo keeps of a turn's start (nil: no memo),
// with the memo's lock to hold while it is read.
func startedIn(ctx context.Context) (*started, *sync.Mutex) {
	m := memoFrom(ctx)
	if m == nil {
		return nil, nil
	}
	return &m.started, &m.mu
}
