package tools

import (
	"fmt"

	"hub/workspace"
)

// accessError is why role may not use d, nil if it may: a write from a role
// that may not write is refused whatever the offer said (the domain service
// checks the space again).
func accessError(d *Definition, role workspace.Role) *Error {
	switch {
	case d.IsWrite && !role.CanWrite():
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("%s may not change records in this space", workspace.WithArticle(string(role)))}
	case d.OwnersOnly && role != workspace.RoleOwner:
		return &Error{Code: CodeForbidden, Message: fmt.Sprintf("only an owner may change who is in this space, not %s", workspace.WithArticle(string(role)))}
	case d.Area == AreaApps && role == workspace.RoleGuest:
		return &Error{Code: CodeForbidden, Message: "a guest cannot use this space's connected apps"}
	}
	return nil
}

// settingsError is why the settings refuse d, nil if they allow it: a write
// in an area they do not allow, or any connected-app write while those are
// switched off.
func settingsError(d *Definition, s workspace.Settings) *Error {
	switch {
	case d.IsWrite && !d.AreaOfSteps && !d.Personal && !s.AllowsArea(d.Area):
		return &Error{Code: CodeRefused, Message: fmt.Sprintf("writes in %s are switched off in your assistant settings", d.Area)}
	case d.IsWrite && d.Area == AreaApps && !s.ConnectedAppWrites:
		return &Error{Code: CodeRefused, Message: "changes in connected apps are switched off in your assistant settings"}
	}
	return nil
}

// Holds tells whether a call of this tool waits for the person's Apply: a
// connected-app or AlwaysHold write always does, any other write unless the
// policy is immediate (or unset).
func (d *Definition) Holds(s workspace.Settings) bool {
	always := d.AlwaysHold || d.Area == AreaApps
	return d.IsWrite && (always || s.WritePolicy != "" && s.WritePolicy != workspace.PolicyImmediate)
}
