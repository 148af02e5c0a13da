// Package mcptest is a real MCP server on loopback for tests: the official
// SDK's streamable HTTP handler behind an httptest server, with tools a
// test declares. Production code never imports it.
package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server is a running MCP server. Tools added after a client connected are
// announced to it (notifications/tools/list_changed).
type Server struct {
	*httptest.Server
	// MCP is the SDK's server, for tools of other shapes.
	MCP     *mcp.Server
	auth    atomic.Value // the last request's Authorization header
	down    atomic.Bool
	streams atomic.Int32 // GET requests being served
	release chan struct{}
}

// QueryArgs are a read tool's arguments.
type QueryArgs struct {
	Query string `json:"query" jsonschema:"what to look up"`
}

// TitleArgs are a write tool's arguments.
type TitleArgs struct {
	Title string `json:"title"`
}

// New starts a server named name with no tools; it is closed when the test
// ends.
func New(t testing.TB, name string) *Server {
	t.Helper()
	s := &Server{MCP: mcp.NewServer(&mcp.Implementation{Name: name, Version: "1"}, nil), release: make(chan struct{})}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP }, nil)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.auth.Store(r.Header.Get("Authorization"))
		if r.Method == http.MethodGet {
			s.streams.Add(1)
			defer s.streams.Add(-1)
		}
		if s.down.Load() {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(s.release) }) // runs before Close, which waits for handlers
	return s
}

// Auth is the Authorization header of the last request ("" before any).
func (s *Server) Auth() string {
	v, _ := s.auth.Load().(string)
	return v
}

// Streams counts the notification streams clients hold open.
func (s *Server) Streams() int { return int(s.streams.Load()) }

// SetDown makes the server answer every request with 503, or serve again.
func (s *Server) SetDown(down bool) { s.down.Store(down) }

// Read adds a tool marked read-only (readOnlyHint) that answers answer(query).
func (s *Server) Read(name, description string, answer func(query string) string) {
	mcp.AddTool(s.MCP, &mcp.Tool{Name: name, Description: description, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in QueryArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: answer(in.Query)}}}, nil, nil
		})
}

// Write adds a write tool that answers do(title); failed makes the answer a
// tool error (isError).
func (s *Server) Write(name, description string, do func(title string) (text string, failed bool)) {
	mcp.AddTool(s.MCP, &mcp.Tool{Name: name, Description: description},
		func(_ context.Context, _ *mcp.CallToolRequest, in TitleArgs) (*mcp.CallToolResult, any, error) {
			text, failed := do(in.Title)
			return &mcp.CallToolResult{IsError: failed, Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
}

// Hang adds a tool that never answers until the caller gives up or the test
// ends. calls, if not nil, counts the calls that arrived.
func (s *Server) Hang(name, description string, readOnly bool, calls *atomic.Int32) {
	tool := &mcp.Tool{Name: name, Description: description}
	if readOnly {
		tool.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true}
	}
	mcp.AddTool(s.MCP, tool,
		func(ctx context.Context, _ *mcp.CallToolRequest, _ TitleArgs) (*mcp.CallToolResult, any, error) {
			if calls != nil {
				calls.Add(1)
			}
			select {
			case <-ctx.Done():
			case <-s.release:
			}
			return nil, nil, ctx.Err()
		})
}
