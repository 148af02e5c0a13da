// Package workspace is the workspace domain: spaces, people, roles, projects and
// tasks. One Service is used by the REST routes and by the assistant's tools
// alike, so a tool checks and changes a record exactly as the screen does.
//
// Access is decided here from memberships, never from ids a caller sends: a
// record in a space the person cannot open is ErrNotFound, exactly like a
// record that does not exist.
//
// Every write tells the Service's subscribers (Subscribe) what changed and
// who changed it, once its transaction has committed. Writes made through
// WithUndo record the records before and after in an Undo group, so Undo and
// Redo can take them back, refusing when a record has changed since.
package workspace
