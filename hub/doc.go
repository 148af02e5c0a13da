// Package hub is the workspace domain: spaces, people, roles, projects and
// tasks. One Service is used by the REST routes and by the assistant's tools
// alike, so a tool checks and changes a record exactly as the screen does.
//
// Access is decided here from memberships, never from ids a caller sends: a
// record in a space the person cannot open is ErrNotFound, exactly like a
// record that does not exist.
package hub
