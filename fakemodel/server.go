// Package fakemodel is a scripted OpenAI-compatible chat completions server:
// a test double for Hub's model calls, for tests, benchmarks and offline demos
// (`hub fakemodel`, `hub dev --fake-model`). It is not a model and says so in
// /v1/models, in its response headers and in its unscripted answers.
//
// A Script decides every answer (text or tool calls, streamed in chunks of a
// chosen size, with delays and injected faults) and the server records every
// request with its timing, including the moment a client hung up, so tests
// can assert that Hub sent what it should and closed what it should.
// See docs/fakemodel.md for the script format.
package fakemodel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ModelID is the model /v1/models lists.
const ModelID = "fakemodel"

// maxBody bounds a request body: Hub's biggest prompt is far below it.
const maxBody = 32 << 20

// Server is a scripted chat completions server. Use Handler with your own
// http.Server or httptest, or Start to listen on loopback. Safe for
// concurrent use.
type Server struct {
	mu      sync.Mutex
	script  Script
	hits    []int // answers given per rule, for "times"
	reqs    []*RecordedRequest
	changed chan struct{} // closed and replaced on every recording change
	closed  bool
	closing chan struct{}
	active  sync.WaitGroup // running chat handlers, waited for by Close

	embeddings     EmbeddingStats
	embeddingsDown bool

	srv       *http.Server
	serveDone chan struct{}
}

// New returns a server answering with s.
func New(s Script) *Server {
	srv := &Server{changed: make(chan struct{}), closing: make(chan struct{})}
	srv.SetScript(s)
	return srv
}

// SetScript replaces the script and restarts the rules' "times" counts.
// Recorded requests are kept.
func (s *Server) SetScript(sc Script) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = sc
	s.hits = make([]int, len(sc.rules))
}

// Requests returns a copy of the recorded chat completion requests, oldest
// first.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.snapshot()
}

func (s *Server) snapshot() []RecordedRequest {
	out := make([]RecordedRequest, len(s.reqs))
	for i, r := range s.reqs {
		out[i] = *r
	}
	return out
}

// Reset forgets the recorded requests and restarts the rules' "times"
// counts, so one server can serve many test cases.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
	s.hits = make([]int, len(s.script.rules))
	s.notifyLocked()
}

// Await blocks until cond holds for the recorded requests, or ctx ends. It
// is how tests wait for "the server saw the disconnect" without sleeping.
func (s *Server) Await(ctx context.Context, cond func([]RecordedRequest) bool) ([]RecordedRequest, error) {
	for {
		s.mu.Lock()
		reqs, changed := s.snapshot(), s.changed
		s.mu.Unlock()
		if cond(reqs) {
			return reqs, nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return reqs, fmt.Errorf("fakemodel: waiting for recorded requests: %w", ctx.Err())
		}
	}
}

// notifyLocked wakes Await; s.mu must be held.
func (s *Server) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// update changes a recording under the lock and wakes Await.
func (s *Server) update(rec *RecordedRequest, f func(*RecordedRequest)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(rec)
	s.notifyLocked()
}

// Handler serves the OpenAI-compatible routes and the /fake control routes.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
	mux.HandleFunc("GET /fake/requests", s.handleRequests)
	mux.HandleFunc("DELETE /fake/requests", s.handleReset)
	mux.HandleFunc("GET /fake/script", s.handleGetScript)
	mux.HandleFunc("PUT /fake/script", s.handlePutScript)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "not_found", "fakemodel has no route "+r.Method+" "+r.URL.Path, "")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Every response says what answered it.
		w.Header().Set("X-Fakemodel", "scripted test double, not a real model")
		mux.ServeHTTP(w, r)
	})
}

// Start listens on addr, which must be a loopback address ("127.0.0.1:0"
// picks a free port; "" means that), and serves until Close. It returns the
// base URL to use as OPENAI_BASE_URL, ending in /v1. Loopback only: a test
// double must not be reachable from other machines.
func (s *Server) Start(addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("fakemodel: address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("fakemodel: refusing to listen on %q: it binds to loopback only (127.0.0.1, ::1, localhost)", host)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.srv != nil {
		return "", errors.New("fakemodel: server already started or closed")
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return "", fmt.Errorf("fakemodel: listen: %w", err)
	}
	s.srv = &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	s.serveDone = make(chan struct{})
	go func(srv *http.Server, done chan struct{}) {
		defer close(done)
		_ = srv.Serve(ln) // returns http.ErrServerClosed after Close
	}(s.srv, s.serveDone)
	return "http://" + ln.Addr().String() + "/v1", nil
}

// Close stops listening, drops open connections and waits for running
// handlers, including hanging ones, to return.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	srv, done := s.srv, s.serveDone
	s.mu.Unlock()

	var err error
	if srv != nil {
		err = srv.Close()
		<-done
	}
	s.active.Wait()
	return err
}

// enter registers a running chat handler; false once the server is closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.active.Add(1)
	return true
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list",
		"data": []map[string]any{{
			"id":          ModelID,
			"object":      "model",
			"created":     0,
			"owned_by":    "hub-fakemodel",
			"description": "A scripted test double for Hub, not a real model: it answers only what its script says.",
		}},
	})
}

func (s *Server) handleRequests(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, s.Requests())
}

func (s *Server) handleReset(w http.ResponseWriter, _ *http.Request) {
	s.Reset()
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) handleGetScript(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	sc := s.script
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, sc)
}

func (s *Server) handlePutScript(w http.ResponseWriter, r *http.Request) {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_script", "read script: "+err.Error(), "")
		return
	}
	sc, err := ParseScript(data)
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid_script", err.Error(), "")
		return
	}
	s.SetScript(sc)
	w.WriteHeader(http.StatusNoContent)
}

// choose picks the rule that answers a recorded request, counting the
// answer against the rule's "times".
func (s *Server) choose(rec *RecordedRequest) (*rule, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.notifyLocked()
	c := conversationOf(rec)
	for i, r := range s.script.rules {
		if r.times > 0 && s.hits[i] >= r.times {
			continue
		}
		if groups, ok := r.matches(c); ok {
			s.hits[i]++
			rec.Rule, rec.RuleNumber = r.label(), r.number
			return r, groups
		}
	}
	return nil, nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v) // the client may have left; nothing to do
}

// writeError writes an OpenAI-style error body.
func writeError(w http.ResponseWriter, status int, code, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"message": msg,
		"type":    code,
		"code":    code,
	}})
}
