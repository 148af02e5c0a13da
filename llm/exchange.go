package llm

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"
)

// exchange records what the transport saw of one call's HTTP response,
// which go-openai hides: its *APIError carries no headers (no Retry-After),
// and its stream reader answers io.EOF both after `data: [DONE]` and when
// the connection was simply closed.
//
// Only the goroutine that runs Stream writes it, so it needs no lock.
type exchange struct {
	model   string // sent with the request, for messages
	status  int
	header  http.Header
	sawDone bool
	body    io.ReadCloser
	files   []Part // the request's file parts, written into its body by Do
}

// exchangeKey holds, in a call's context, the exchange it records into.
type exchangeKey struct{}

// recordingDoer is the HTTPDoer given to go-openai: it sends through the
// caller's http.Client (left untouched) and records the response into the
// request context's exchange.
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
	// line holds the start of the current line, up to one byte past
	// maxWatched: a longer line is not the terminator.
	line []byte
}

const maxWatched = 32

func (w *doneWatcher) Read(p []byte) (int, error) {
	n, err := w.ReadCloser.Read(p)
	for _, b := range p[:n] {
		if b == '\n' {
			w.endLine()
			continue
		}
		if len(w.line) <= maxWatched {
			w.line = append(w.line, b)
		}
	}
	if errors.Is(err, io.EOF) {
		w.endLine()
	}
	return n, err
}

func (w *doneWatcher) endLine() {
	if len(w.line) <= maxWatched && isDoneLine(w.line) {
		w.ex.sawDone = true
	}
	w.line = w.line[:0]
}

// isDoneLine matches `data: [DONE]` with the spacing go-openai accepts.
func isDoneLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data:"))
	return ok && bytes.Equal(bytes.TrimSpace(rest), []byte("[DONE]"))
}

// Draining a finished stream lets net/http reuse the connection (a body
// closed early closes it, and the next call pays a new handshake). A server
// that keeps the body open after [DONE] gets drainWait.
const (
	drainWait = 100 * time.Millisecond
	maxDrain  = 64 << 10
)

// drainRest reads what is left of a finished response body.
func (ex *exchange) drainRest() {
	if ex.body == nil {
		return
	}
	t := time.AfterFunc(drainWait, func() { _ = ex.body.Close() })
	defer t.Stop()
	_, _ = io.CopyN(io.Discard, ex.body, maxDrain)
}
