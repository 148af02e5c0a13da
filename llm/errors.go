package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Kind names a class of model-call failure; the names are stable strings
// so they can be stored and shown.
type Kind string

// The failure classes (kindForStatus maps HTTP statuses to them).
const (
	KindRateLimited Kind = "rate_limited"
	KindServer      Kind = "server"
	KindTimeout     Kind = "timeout"
	KindConflict    Kind = "conflict"
	KindBadRequest  Kind = "bad_request"
	KindAuth        Kind = "auth"
	// KindStreamCut: the stream ended before [DONE] or a finish reason.
	KindStreamCut Kind = "stream_cut"
	// KindNetwork: no response at all (refused, reset, DNS, TLS).
	KindNetwork Kind = "network"
	// KindBadResponse: the answer is not a chat completion stream.
	KindBadResponse Kind = "bad_response"
	// KindCanceled: the caller's context was cancelled (Stop, Pause).
	KindCanceled Kind = "canceled"
	// KindUnavailable: no endpoint is configured.
	KindUnavailable Kind = "unavailable"
)

// Error is the error Stream returns for a failed model call, with what a
// retry policy needs.
type Error struct {
	Kind Kind
	// Status is the HTTP status of the response, 0 when there was none.
	Status int
	// RetryAfter is the delay the server asked for, 0 when it named none.
	RetryAfter time.Duration
	// Message is the provider's own message, or for a timeout the chat's sentence.
	Message string

	cause error
}

// Error formats the class, status, message and requested delay.
func (e *Error) Error() string {
	s := "model call: " + string(e.Kind)
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Unwrap exposes the cause (context.Canceled, context.DeadlineExceeded,
// go-openai's error or the transport's).
func (e *Error) Unwrap() error { return e.cause }

// Retryable reports whether the same request may succeed later. A call past
// its deadline is not retried: the turn reports the timeout instead
// (docs/architecture.md, "Model calls").
func (e *Error) Retryable() bool {
	switch e.Kind {
	case KindRateLimited, KindServer, KindConflict, KindStreamCut, KindNetwork, KindBadResponse:
		return true
	case KindTimeout:
		return e.Status == http.StatusRequestTimeout
	default:
		return false
	}
}

// kindForStatus maps an HTTP error status to its class.
func kindForStatus(status int) Kind {
	switch {
	case status == http.StatusTooManyRequests:
		return KindRateLimited
	case status == http.StatusRequestTimeout:
		return KindTimeout
	case status == http.StatusConflict:
		return KindConflict
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return KindAuth
	case status >= 500:
		return KindServer
	case status >= 400:
		return KindBadRequest
	default:
		return KindBadResponse // a 1xx/3xx go-openai still refused
	}
}

// maxMessage bounds a provider message kept in an Error: some gateways answer
// errors with whole HTML pages.
const maxMessage = 1000

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxMessage {
		return s
	}
	n := maxMessage
	for n > 0 && !utf8.RuneStart(s[n]) {
		n-- // never cut a character in half
	}
	return s[:n] + "…"
}

// classify turns whatever go-openai or the transport returned into an *Error.
// ctx is the call's own context, with the call timeout applied.
func (c *Client) classify(ctx context.Context, start time.Time, rec *exchange, err error) *Error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			limit := c.cfg.Timeout
			if dl, ok := ctx.Deadline(); ok {
				limit = dl.Sub(start) // the caller's deadline may be the shorter one
			}
			return &Error{Kind: KindTimeout, Message: c.timeoutMessage(rec, limit), cause: ctxErr}
		}
		msg := "the model call was cancelled"
		if cause := context.Cause(ctx); cause != nil && cause != ctxErr {
			msg += ": " + cause.Error()
		}
		return &Error{Kind: KindCanceled, Message: msg, cause: ctxErr}
	}

	var (
		apiErr    *openai.APIError
		reqErr    *openai.RequestError
		netErr    net.Error
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	failed := func(k Kind) *Error {
		return &Error{Kind: k, Status: rec.status, Message: clip(err.Error()), cause: err}
	}
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		return rec.statusError(apiErr.HTTPStatusCode, apiErr.Message, err)
	case errors.As(err, &reqErr):
		msg := string(reqErr.Body)
		if msg == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		return rec.statusError(reqErr.HTTPStatusCode, msg, err)
	case errors.As(err, &apiErr):
		// An error event inside a 200 stream (`data: {"error": ...}`): the
		// provider failed mid-answer. Only its type/code says why.
		return &Error{Kind: errorEventKind(apiErr), Message: clip(apiErr.Message), cause: err}
	// No response arrived: either the transport failed (network) or
	// go-openai refused the request before sending it (bad_request).
	case rec.status == 0 && errors.As(err, &netErr): // *url.Error is a net.Error
		return failed(KindNetwork)
	case rec.status == 0:
		return failed(KindBadRequest)
	// The response had started: a read failure now means the answer is cut.
	case errors.As(err, &syntaxErr), errors.As(err, &typeErr), errors.Is(err, openai.ErrTooManyEmptyStreamMessages):
		return failed(KindBadResponse)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Kind: KindStreamCut, Status: rec.status, Message: "the connection ended before the answer was complete", cause: err}
	case errors.As(err, &netErr) && netErr.Timeout():
		// http.Client.Timeout (a caller-supplied client) expired mid-body.
		return &Error{Kind: KindTimeout, Message: c.timeoutMessage(rec, time.Since(start)), cause: err}
	default:
		return failed(KindStreamCut)
	}
}

// statusError builds the error for an HTTP error status.
func (rec *exchange) statusError(status int, msg string, cause error) *Error {
	return &Error{
		Kind:       kindForStatus(status),
		Status:     status,
		RetryAfter: retryAfter(rec.header, time.Now()),
		Message:    clip(msg),
		cause:      cause,
	}
}

// errorEventKind classifies an error event inside a 200 stream by its type
// or code, all such an event carries.
func errorEventKind(e *openai.APIError) Kind {
	code := strings.ToLower(fmt.Sprint(e.Code) + " " + e.Type)
	switch {
	case strings.Contains(code, "rate_limit"):
		return KindRateLimited
	case strings.Contains(code, "invalid_request"), strings.Contains(code, "context_length"):
		return KindBadRequest
	default:
		return KindServer
	}
}

// retryAfter reads the delay a server asked for: retry-after-ms (OpenAI,
// Azure) wins over Retry-After (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v > 0 {
			return time.Duration(v * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if secs, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(secs, 0)) * time.Second
	}
	if when, err := http.ParseTime(v); err == nil {
		if d := when.Sub(now); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}

// timeoutMessage is the sentence the chat shows for a call past its limit.
func (c *Client) timeoutMessage(rec *exchange, limit time.Duration) string {
	model := c.cfg.Model
	if rec != nil && rec.model != "" {
		model = rec.model
	}
	return fmt.Sprintf("%s did not answer within %s, so I stopped waiting. Ask again, or try a narrower question.",
		model, humanDuration(limit))
}

// humanDuration writes a limit the way a person says it: "15 minutes",
// "90 seconds".
func humanDuration(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	n, unit := int(d.Round(time.Second)/time.Second), "second"
	if n%60 == 0 {
		n, unit = n/60, "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return strconv.Itoa(n) + " " + unit
}
