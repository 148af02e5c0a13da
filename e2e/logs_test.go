//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLogsHoldNoSecrets runs `hub dev --fake-model` with JSON logs at debug
// level (the most it writes) and drives it with a bearer token, a wrong
// one, a turn's stream token, an activity stream token, an MCP server's
// secret and a message text, then reads everything the process logged
// (stderr: Hub's lines, the Temporal SDK's, the embedded server's): none of
// those strings is there, while every line is JSON, every request has its
// access line (route template, status, person) and the turn and the Apply
// have theirs with their ids.
func TestLogsHoldNoSecrets(t *testing.T) {
	t.Parallel()
	app := newMCPApp(t)
	dir := t.TempDir()
	dev := startLogged(t, append(devEnv, "HUB_LOG_FORMAT=json", "HUB_LOG_LEVEL=debug", "HUB_APPS_ALLOW=127.0.0.1"), devArgs(dir, "--fake-model")...)
	s := devStack(t, dev.await(t, devAPI)[1], dir)
	token := s.Token

	const wrongToken = "hub_notarealtoken0123456789"
	require.Equal(t, http.StatusUnauthorized, s.Do(t, wrongToken, "GET", "/api/spaces", nil).Status)

	const mcpSecret = "mcp-s3cret-9f2a"
	r := s.Do(t, token, "POST", "/api/spaces/"+s.SpaceID+"/connections", map[string]any{"kind": "mcp", "name": "Tracker", "url": app.URL, "secret": mcpSecret})
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	require.Equal(t, "Bearer "+mcpSecret, app.Auth(), "the secret reached the server")

	// A turn whose text carries a marker, followed by its stream token.
	const text = "hello there, the codeword is periwinkle-4417"
	conv := s.Conversation(t)
	st := s.Ask(t, conv, text)
	streamToken := streamTokenOf(t, st.StreamURL)
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])

	// The activity stream's own token, in its URL.
	r = s.Do(t, token, "POST", "/api/agent/stream-token", nil)
	require.Equal(t, http.StatusCreated, r.Status)
	activityToken := r.JSON(t)["streamToken"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	es := s.OpenEvents(ctx, t, s.URL+"/api/agent/stream?streamToken="+activityToken, "", "")
	_ = next(t, es) // the snapshot
	es.Close()
	cancel()

	// A held write and its Apply.
	require.Equal(t, http.StatusOK, s.Do(t, token, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"}).Status)
	st = s.Ask(t, conv, "add a task called Water the ferns")
	events = s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	r = s.Do(t, token, "POST", "/api/assistant/apply", map[string]any{"conversationId": conv, "messageId": st.ReplyMessageID})
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)

	// One process: the api's /metrics shows the Temporal SDK's series too.
	require.Eventually(t, func() bool {
		metrics := string(s.Do(t, "", "GET", "/metrics", nil).Body)
		return strings.Contains(metrics, `temporal_workflow_completed_total{`) && strings.Contains(metrics, `temporal_request_total{`)
	}, 30*time.Second, 100*time.Millisecond, "no Temporal SDK series on hub dev's /metrics")

	dev.stop(t)
	logged := dev.stderr()
	for name, secret := range map[string]string{"the bearer token": token, "the wrong token": wrongToken, "the stream token": streamToken,
		"the activity stream token": activityToken, "the MCP secret": mcpSecret, "the message text": "periwinkle-4417"} {
		require.NotContains(t, logged, secret, "%s is in the log", name)
	}
	require.NotContains(t, logged, "streamToken=", "no URL with its query")

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logged), "\n") {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), "every line is JSON: %s", l)
		lines = append(lines, m)
	}
	find := func(match func(map[string]any) bool) map[string]any {
		for _, m := range lines {
			if match(m) {
				return m
			}
		}
		t.Fatalf("no such line in:\n%s", logged)
		return nil
	}
	access := func(method, route string, status float64) map[string]any {
		return find(func(m map[string]any) bool {
			return m["msg"] == "request" && m["method"] == method && m["route"] == route && m["status"] == status
		})
	}
	turnReq := access("POST", "/api/assistant/conversations/:id/turns", 202)
	require.Equal(t, conv, turnReq["id"], "the route's ids")
	require.NotEmpty(t, turnReq["person"])
	require.Contains(t, turnReq, "ms")
	require.Nil(t, access("GET", "/api/spaces", 401)["person"], "no person for a refused token")
	stream := access("GET", "/api/assistant/turns/:turnId/stream", 200)
	require.Equal(t, turnReq["person"], stream["person"], "a stream's person, from its stream token")
	access("GET", "/api/agent/stream", 200)
	access("POST", "/api/spaces/:spaceId/connections", 201)
	access("POST", "/api/assistant/apply", 200)

	started := find(func(m map[string]any) bool { return m["msg"] == "turn started" && m["turn"] == st.TurnID })
	require.Equal(t, conv, started["conversation"])
	require.Equal(t, s.SpaceID, started["space"])
	require.Equal(t, "turn:"+st.TurnID, started["workflow"])
	require.NotEmpty(t, started["run"])
	ended := find(func(m map[string]any) bool { return m["msg"] == "turn ended" && m["turn"] == st.TurnID })
	require.Equal(t, "done", ended["status"])
	require.EqualValues(t, 1, ended["held"])
	applied := find(func(m map[string]any) bool { return m["msg"] == "apply finished" && m["message"] == st.ReplyMessageID })
	require.Equal(t, conv, applied["conversation"])
	require.Equal(t, map[string]any{"succeeded": float64(1)}, applied["receipts"])
	// The Temporal SDK's lines go through the same handler.
	find(func(m map[string]any) bool { return m["component"] == "temporal" })
}

// loggedProcess is a process whose stdout lines can be awaited and whose
// stderr (the log) is kept apart.
type loggedProcess struct {
	*process
	mu  sync.Mutex
	err bytes.Buffer
}

func (p *loggedProcess) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err.String()
}

func (p *loggedProcess) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err.Write(b)
}

// startLogged is start with stderr kept apart from stdout.
func startLogged(t *testing.T, env []string, args ...string) *loggedProcess {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	p := &loggedProcess{process: &process{cmd: cmd, added: make(chan struct{}, 1), done: make(chan struct{})}}
	cmd.Stderr = p
	require.NoError(t, cmd.Start())
	go p.read(bufio.NewReader(out))
	t.Cleanup(func() {
		p.process.stop(t)
		if t.Failed() {
			t.Logf("stderr of hub %s:\n%s", args[0], p.stderr())
		}
	})
	return p
}
