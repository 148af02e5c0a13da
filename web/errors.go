package web

import "fmt"

// PageError is why a page could not be read, in words the model and the
// person can act on. Nothing beyond the named step was fetched.
type PageError struct {
	Host   string
	Reason string
	// Kind sorts the reasons for callers: one of the Kind constants.
	Kind string
}

// Kinds of PageError.
const (
	KindRefused     = "refused" // nothing was fetched: a bad URL, a blocked address
	KindTooLarge    = "too_large"
	KindNeedsSignIn = "needs_sign_in"
	KindNeedsScript = "needs_script"
	KindUnreadable  = "unreadable"
	KindUnreachable = "unreachable"
	KindStatus      = "status"
)

func (e *PageError) Error() string {
	if e.Host == "" {
		return "the page was not read: " + e.Reason
	}
	return fmt.Sprintf("the page at %s was not read: %s", e.Host, e.Reason)
}

func pageErr(kind, host, format string, args ...any) *PageError {
	return &PageError{Kind: kind, Host: host, Reason: fmt.Sprintf(format, args...)}
}
