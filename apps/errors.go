package apps

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Sentinels the typed errors match with errors.Is, for callers that only
// need the class.
var (
	// ErrRefused: Hub refused to send (a bad URL, a blocked address, too
	// many redirects); sending again changes nothing.
	ErrRefused = errors.New("refused before sending")
	// ErrUnreachable: no connection was made; a retry is safe.
	ErrUnreachable = errors.New("could not connect; nothing was sent")
	// ErrStatus: the app answered with a status other than 2xx.
	ErrStatus = errors.New("the app answered with an error status")
	// ErrUnknown: the request may have reached the app, but no answer came;
	// resending is the person's decision.
	ErrUnknown = errors.New("outcome unknown")
)

// Error texts name the host only, never the whole URL: a webhook's path is
// often its secret.

// RefusedError says why Hub did not send; it matches ErrRefused.
type RefusedError struct {
	Host   string
	Reason string
}

func (e *RefusedError) Error() string {
	if e.Host == "" {
		return "not sent: " + e.Reason
	}
	return fmt.Sprintf("not sent to %s: %s", e.Host, e.Reason)
}

func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// UnreachableError says no connection was made; it matches ErrUnreachable.
type UnreachableError struct {
	Host string
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("could not connect to %s, nothing was sent: %s", e.Host, NetReason(e.Err))
}

func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

func (e *UnreachableError) Unwrap() error { return e.Err }

// StatusError is a non-2xx answer; it matches ErrStatus. Body holds at most
// MaxResponseBytes of the answer.
type StatusError struct {
	Host   string
	Status int
	Body   []byte
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s answered %d %s", e.Host, e.Status, http.StatusText(e.Status))
}

func (e *StatusError) Is(target error) bool { return target == ErrStatus }

// UnknownError says the request may have arrived but its answer did not;
// it matches ErrUnknown.
type UnknownError struct {
	Host    string
	Timeout bool          // no answer within After
	After   time.Duration // how long Hub waited
	Err     error
}

func (e *UnknownError) Error() string {
	if e.Timeout {
		return fmt.Sprintf("%s did not answer within %s; the update may or may not have arrived", e.Host, e.After)
	}
	return fmt.Sprintf("the exchange with %s ended before it answered; the update may or may not have arrived: %s", e.Host, NetReason(e.Err))
}

func (e *UnknownError) Is(target error) bool { return target == ErrUnknown }

func (e *UnknownError) Unwrap() error { return e.Err }
