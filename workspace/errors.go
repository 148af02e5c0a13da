package workspace

import (
	"errors"
	"fmt"
)

// Sentinel errors. The api maps each to one HTTP status; the tools map each
// to one structured tool error code.
var (
	// ErrNotFound: no such record, or one in a space the person cannot open.
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the person can open the space but may not do this there.
	ErrForbidden = errors.New("forbidden")
	// ErrInvalid: the input can never succeed as sent.
	ErrInvalid = errors.New("invalid input")
	// ErrConflict: the request clashes with the current state.
	ErrConflict = errors.New("conflict")
	// ErrStale: the caller changed an older revision than the current one.
	ErrStale = errors.New("stale")
)

// InvalidError says which input field is wrong and why; it is ErrInvalid.
type InvalidError struct {
	Path    string // JSON pointer into the input, e.g. "/tasks/0/title"
	Message string
}

func (e *InvalidError) Error() string {
	if e.Path == "" {
		return e.Message
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Message)
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(path, format string, args ...any) error {
	return &InvalidError{Path: path, Message: fmt.Sprintf(format, args...)}
}

// NotFoundError names what was not found; it matches ErrNotFound.
type NotFoundError struct {
	Kind string
	ID   string
	Path string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s with id %q in this space", e.Kind, e.ID)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }
