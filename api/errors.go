package api

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"hub/turns"
	"hub/workspace"
)

// Error codes of the error body.
const (
	codeUnauthenticated = "unauthenticated"
	codeNotFound        = "not_found"
	codeForbidden       = "forbidden"
	codeInvalid         = "invalid_payload"
	codeConflict        = "conflict"
	codeTooLarge        = "too_large"
	codeUnavailable     = "unavailable"
	codeInternal        = "internal"
	codeTooManyFailures = "too_many_failures"
)

// statusClientGone is a request whose client left before its answer (nginx's 499).
const statusClientGone = 499

// errorBody is {"error": {...}}, the one shape every error has.
type errorBody struct {
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Path    string  `json:"path,omitempty"`
	Issues  []issue `json:"issues,omitempty"`
}

type issue struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// apiError is an error a handler raises with its status already decided.
type apiError struct {
	status int
	detail errorDetail
}

func (e *apiError) Error() string { return e.detail.Message }

// newError is an apiError; path is a JSON pointer ("": none).
func newError(status int, code, path, msg string) *apiError {
	return &apiError{status: status, detail: errorDetail{Code: code, Message: msg, Path: path}}
}

func badRequest(path, msg string) error {
	return &apiError{status: http.StatusBadRequest, detail: invalid(path, msg)}
}

// invalid is the body of a 400, with the one issue.
func invalid(path, msg string) errorDetail {
	return errorDetail{Code: codeInvalid, Message: msg, Path: path, Issues: []issue{{Path: path, Message: msg}}}
}

func unavailable(msg string) error {
	return newError(http.StatusServiceUnavailable, codeUnavailable, "", msg)
}

// respondError maps every error to its status and body, in one place. Only
// a failure of Hub itself is a 5xx; its cause is logged, not shown.
func respondError(c *gin.Context, err error) {
	if errors.Is(err, context.Canceled) && c.Request.Context().Err() != nil {
		// The client hung up: nobody reads the answer, and it is no failure of Hub's.
		c.AbortWithStatus(statusClientGone)
		return
	}
	if tmf, ok := errors.AsType[*tooManyFailures](err); ok {
		secs := tmf.retryAfterSeconds()
		c.Header("Retry-After", strconv.Itoa(secs))
		c.AbortWithStatusJSON(http.StatusTooManyRequests, errorBody{Error: errorDetail{Code: codeTooManyFailures,
			Message: fmt.Sprintf("too many failed sign-ins from this address or with this token; try again in %d seconds", secs)}})
		return
	}
	status, detail := classify(err)
	if status >= 500 && status != http.StatusServiceUnavailable {
		slog.ErrorContext(c.Request.Context(), "request failed", "method", c.Request.Method, "path", c.FullPath(), "error", err)
	}
	c.AbortWithStatusJSON(status, errorBody{Error: detail})
}

func classify(err error) (int, errorDetail) {
	if ae, ok := errors.AsType[*apiError](err); ok {
		return ae.status, ae.detail
	}
	if large, ok := errors.AsType[*turns.TooLargeError](err); ok {
		return http.StatusRequestEntityTooLarge, errorDetail{Code: codeTooLarge, Message: large.Message, Path: large.Path}
	}
	if down, ok := errors.AsType[*turns.UnavailableError](err); ok {
		return http.StatusServiceUnavailable, errorDetail{Code: codeUnavailable, Message: down.Message}
	}
	if inv, ok := errors.AsType[*workspace.InvalidError](err); ok {
		return http.StatusBadRequest, invalid(inv.Path, inv.Message)
	}
	if nf, ok := errors.AsType[*workspace.NotFoundError](err); ok {
		return http.StatusNotFound, errorDetail{Code: codeNotFound, Message: nf.Error(), Path: nf.Path}
	}
	switch {
	case errors.Is(err, workspace.ErrUnauthenticated):
		return http.StatusUnauthorized, errorDetail{Code: codeUnauthenticated, Message: "a valid bearer token (or a browser session's cookie) is required"}
	case errors.Is(err, workspace.ErrNotFound):
		return http.StatusNotFound, errorDetail{Code: codeNotFound, Message: err.Error()}
	case errors.Is(err, workspace.ErrForbidden):
		return http.StatusForbidden, errorDetail{Code: codeForbidden, Message: err.Error()}
	case errors.Is(err, workspace.ErrStale), errors.Is(err, workspace.ErrConflict):
		return http.StatusConflict, errorDetail{Code: codeConflict, Message: err.Error()}
	case errors.Is(err, workspace.ErrInvalid):
		return http.StatusBadRequest, errorDetail{Code: codeInvalid, Message: err.Error()}
	case badTextError(err):
		return http.StatusBadRequest, errorDetail{Code: codeInvalid,
			Message: "the request holds text Hub cannot store: a NUL character (\\u0000) or bytes that are not UTF-8"}
	}
	return http.StatusInternalServerError, errorDetail{Code: codeInternal, Message: "Hub failed to handle this request; it has been logged"}
}
