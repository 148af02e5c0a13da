package workspace

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"gorm.io/gorm"
)

// CheckAccessOnce returns a context in which Access — and everything that
// checks it: CanWrite, GetSpace, ListConnections, ListTasks, a write's
// Undo group… — reads a person's membership of a space once and answers
// from that read for the rest of the context's life. An activity of a turn
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
	mu    sync.Mutex
	roles map[[2]string]Role
	mcp   map[string]bool
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

func (m *accessMemo) put(personID, spaceID string, role Role, mcp bool, mcpKnown bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.roles == nil {
		m.roles, m.mcp = map[[2]string]Role{}, map[string]bool{}
	}
	m.roles[[2]string{personID, spaceID}] = role
	if mcpKnown {
		m.mcp[spaceID] = mcp
	}
}

// forgetAccess drops what CheckAccessOnce remembered in ctx: called by
// every change of memberships and of a space's connections.
func forgetAccess(ctx context.Context) {
	if m := memoFrom(ctx); m != nil {
		m.mu.Lock()
		m.roles, m.mcp = nil, nil
		m.mu.Unlock()
	}
}

// accessOnce is Access with a memo: the role from the memo, or one read
// of the membership and of whether the space has an MCP connection.
func (s *Service) accessOnce(ctx context.Context, m *accessMemo, personID, spaceID string) (Role, error) {
	role, ok := m.get(personID, spaceID)
	if !ok {
		var rows []struct {
			Role string
			MCP  bool `gorm:"column:mcp"`
		}
		err := s.q(ctx).Raw(`SELECT role, EXISTS (SELECT 1 FROM connections
				WHERE connections.space_id = memberships.space_id AND connections.kind = ?) AS mcp
			FROM memberships WHERE space_id = ? AND person_id = ?`, ConnectionMCP, spaceID, personID).Scan(&rows).Error
		if err != nil && !errors.Is(err, gorm.ErrRecordNotFound) {
			return "", fmt.Errorf("access %s: %w", spaceID, err)
		}
		if len(rows) == 1 {
			role = Role(rows[0].Role)
		}
		m.put(personID, spaceID, role, len(rows) == 1 && rows[0].MCP, len(rows) == 1)
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
// query, what an activity's access check reads: the person's role in the
// space as access_role (NULL: they cannot open it) and whether the space
// has an MCP connection as access_mcp. person and space are the query's
// expressions for them (columns, not input). RememberAccess keeps the
// answer.
func AccessColumns(person, space string) string {
	return `(SELECT role FROM memberships WHERE memberships.space_id = ` + space + ` AND memberships.person_id = ` + person + `) AS access_role,
		EXISTS (SELECT 1 FROM connections WHERE connections.space_id = ` + space + ` AND connections.kind = '` + ConnectionMCP + `') AS access_mcp`
}

// RememberAccess keeps in ctx's memo (CheckAccessOnce) what a query read
// with AccessColumns; without a memo it does nothing. A membership already
// remembered is kept (it was read in this activity too).
func RememberAccess(ctx context.Context, personID, spaceID string, role *string, mcp bool) {
	m := memoFrom(ctx)
	if m == nil || personID == "" || spaceID == "" {
		return
	}
	if _, ok := m.get(personID, spaceID); ok {
		return
	}
	r := Role("")
	if role != nil {
		r = Role(*role)
	}
	m.put(personID, spaceID, r, mcp, true)
}
