package workspace

// Role is what a person may do in a space.
type Role string

// The roles a membership can carry.
const (
	RoleOwner  Role = "owner"
	RoleEditor Role = "editor"
	RoleViewer Role = "viewer"
	RoleGuest  Role = "guest"
)

// ParseRole checks a role name.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case RoleOwner, RoleEditor, RoleViewer, RoleGuest:
		return r, nil
	}
	return "", invalid("/role", "role must be owner, editor, viewer or guest, not %q", s)
}

// CanWrite tells whether the role may change records. A guest collaborates
// on the records of a shared space; a viewer only reads.
func (r Role) CanWrite() bool { return r == RoleOwner || r == RoleEditor || r == RoleGuest }

// Actor is who makes a change, and through what: the person on a screen
// (REST) or the assistant acting for them. Subscribers and logs tell the two
// apart.
type Actor struct {
	PersonID string
	Via      string // "rest" or "assistant"
}

// The two ways a change arrives.
const (
	ViaREST      = "rest"
	ViaAssistant = "assistant"
)

// Widest returns the role among roles that may do the most (owner, editor,
// guest, viewer), or "" for none. A turn that acts in several spaces is
// offered the tools of its widest role; each call is still checked with
// the role of the space it acts in.
func Widest(roles ...Role) Role {
	rank := map[Role]int{RoleViewer: 1, RoleGuest: 2, RoleEditor: 3, RoleOwner: 4}
	var best Role
	for _, r := range roles {
		if rank[r] > rank[best] {
			best = r
		}
	}
	return best
}
