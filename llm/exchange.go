package llm

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"
)

// exchange records what the transport saw of one call's HTTP response.
// go-openai hides it: its *APIError carries no headers (so no Retry-After),
// and its stream reader answers io.EOF both after the stream's closing
// `data: [DONE]` and when the server simply closed the connection, which are
// a complete answer and a cut one.
//
// An exchange is written only from the goroutine that runs Stream (Do and the
// body reads happen inside go-openai's calls on that goroutine), so it needs
// no lock.
type exchange struct {
	// model is the model name the request was sent with, for messages.
	model   string
	status  int
	header  http.Header
	sawDone bool
	body    io.ReadCloser
	// files are the request's file parts, written into its body by Do.
	files []Part
}

// exchangeKey holds, in a call's context, the exchange its requests
// record into.
type exchangeKey struct{}

// recordingDoer is the HTTPDoer given to go-openai: it sends through the
// caller's http.Client and records the response into the request context's
// exchange. Wrapping the Doer rather than the Transport leaves the caller's
// client untouched.
type recordingDoer struct{ hc *http.Client }

func (d recordingDoer) Do(req *http.Request) (*http.Response, error) {
	ex, _ := req.Context().Value(exchangeKey{}).(*exchange)
	if ex != nil {
		if err := rewriteFileParts(req, ex.files); err != nil {
			return nil, err
		}
	}
	resp, err := d.hc.Do(req)
	if err != nil || resp == nil || ex == nil {
		return resp, err
	}
	ex.status = resp.StatusCode
	ex.header = resp.Header
	resp.Body = &doneWatcher{ReadCloser: resp.Body, ex: ex}
	ex.body = resp.Body
	return resp, nil
}

// doneWatcher passes a response body through unchanged while watching its
// lines for the SSE terminator `data: [DONE]`.
type doneWatcher struct {
	io.ReadCloser
	ex *exchange
	// line holds the start of the current line; a line longer than
	// maxWatched cannot be the terminator, so only its start is kept.
	line []byte
	long bool
}

const maxWatched = 32

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			w.endLine()
			continue
		}
		if len(w.line) < maxWatched {
			w.line = append(w.line, b)
		} else {
			w.long = true
		}
	}
	if errors.Is(err, io.EOF) {
		w.endLine()
	}
	return n, err
}

func (w *doneWatcher) endLine() {
	if !w.long && isDoneLine(w.line) {
		w.ex.sawDone = true
	}
	w.line, w.long = w.line[:0], false
}

// isDoneLine matches `data: [DONE]` with the spacing go-openai accepts.
func isDoneLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	return ok && bytes.Equal(bytes.TrimSpace(rest), []byte("[DONE]"))
}

// Draining a finished stream: after [DONE] only the HTTP chunk terminator is
// normally left, already sent or about to be. Reading it lets net/http put
// the connection back in its pool (closing a body early closes the
// connection, and the next call pays a new TCP and TLS handshake). A server
// that keeps the body open after [DONE] gets drainWait, then the body is
// closed.
const (
	drainWait = 100 * time.Millisecond
	maxDrain  = 64 << 10
)

// drainRest reads what is left of a finished response body, bounded in time
// and size.
func (ex *exchange) drainRest() {
	if ex.body == nil {
		return
	}
	t := time.AfterFunc(drainWait, func() { _ = ex.body.Close() })
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, ex.body, maxDrain)
}
