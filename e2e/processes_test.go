//go:build e2e

package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"

	"hub/dbtest"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/temporal"
	"hub/workflows"
)

var (
	buildOnce sync.Once
	binaryDir string // removed by TestMain when the package's tests end
	binary    string
	buildErr  error
)

// hubBinary builds the hub command once per test run.
func hubBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hub-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binaryDir, binary = dir, filepath.Join(dir, "hub")
		// -buildvcs=auto stamps the commit (for `hub version`) whatever
		// GOFLAGS says, when git is at hand.
		out, err := exec.Command("go", "build", "-buildvcs=auto", "-o", binary, "../cmd/hub").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binary
}

// process is a running hub subcommand whose output lines can be awaited.
type process struct {
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	added chan struct{}
	done  chan struct{}
}

func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = t.TempDir()
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	p := &process{cmd: cmd, added: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read(out)
	t.Cleanup(func() { p.stop(t) })
	return p
}

func (p *process) read(r io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, sc.Text())
		p.mu.Unlock()
		select {
		case p.added <- struct{}{}:
		default:
		}
	}
}

// await waits for an output line matching re and returns its submatches.
func (p *process) await(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	deadline := time.After(time.Minute)
	seen := 0
	for {
		p.mu.Lock()
		lines := p.lines[seen:]
		p.mu.Unlock()
		for _, l := range lines {
			seen++
			if m := re.FindStringSubmatch(l); m != nil {
				return m
			}
		}
		select {
		case <-p.added:
		case <-p.done:
			p.mu.Lock()
			defer p.mu.Unlock()
			t.Fatalf("process ended before printing %v:\n%s", re, strings.Join(p.lines, "\n"))
		case <-deadline:
			t.Fatalf("no line matching %v in a minute", re)
		}
	}
}

// stop sends SIGINT and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	err := p.cmd.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil && !t.Failed():
		t.Errorf("%s exited with %v:\n%s", p.cmd.Args[1], err, strings.Join(p.lines, "\n"))
	case t.Failed():
		t.Logf("output of hub %s:\n%s", p.cmd.Args[1], strings.Join(p.lines, "\n"))
	}
}

func output(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(hubBinary(t), args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	require.NoError(t, err, "hub %v", args)
	return strings.TrimSpace(string(out))
}

var apiLine = regexp.MustCompile(`listening on (\S+)`)

// TestProductionProcesses runs hub migrate, hub token create, hub worker
// and hub api as separate processes against a Temporal server and Postgres,
// and a turn through them: the frames the worker writes reach the api
// process's stream.
func TestProductionProcesses(t *testing.T) {
	t.Parallel()
	db := dbtest.Postgres(t)
	ts, err := temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Stop() })
	model := fakemodel.New(fakemodel.DefaultScript())
	base, err := model.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })

	env := []string{"DATABASE_URL=" + db, "TEMPORAL_ADDRESS=" + ts.FrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.Namespace(),
		"OPENAI_BASE_URL=" + base, "OPENAI_API_KEY=test", "HUB_HTTP_ADDR=127.0.0.1:0"}
	require.Contains(t, output(t, env, "migrate"), "search attributes registered")
	token := output(t, env, "token", "create", "--space", "Ops", "--person", "Ada Lovelace")
	require.Regexp(t, `^hub_[a-z0-9]+$`, token, "one line, the token")

	start(t, env, "worker")
	api := start(t, env, "api")
	addr := api.await(t, apiLine)[1]
	s := &hubtest.Stack{URL: "http://" + addr, Token: token, HTTP: &http.Client{}}
	r := s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusOK, r.Status)
	s.SpaceID = r.JSON(t)["spaces"].([]any)[0].(map[string]any)["id"].(string)

	require.Eventually(t, func() bool { return s.Do(t, "", "GET", "/readyz", nil).Status == http.StatusOK }, 30*time.Second, 50*time.Millisecond)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task called Water the plants")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	r = s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Equal(t, "Water the plants", r.JSON(t)["tasks"].([]any)[0].(map[string]any)["title"])

	// The search attributes `hub migrate` registered let an operator find the turn.
	c, err := client.Dial(client.Options{HostPort: ts.FrontendHostPort(), Namespace: ts.Namespace()})
	require.NoError(t, err)
	defer c.Close()
	query := fmt.Sprintf(`HubTurnStatus = "done" AND HubConversationID = "%s"`, conv)
	require.Eventually(t, func() bool {
		resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{Query: query})
		return err == nil && len(resp.Executions) == 1 && resp.Executions[0].Execution.WorkflowId == workflows.TurnWorkflowID(st.TurnID)
	}, 30*time.Second, 100*time.Millisecond)
}

var devAPI = regexp.MustCompile(`Hub API\s+(http://\S+)`)

// TestDevRestartKeepsEverything runs `hub dev --fake-model` as a process,
// has a turn, stops it, starts it again on the same data dir and finds the
// conversation, the task and the same token.
func TestDevRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"HUB_HTTP_ADDR=127.0.0.1:0", "DATABASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	args := []string{"dev", "--fake-model", "--data-dir", dir, "--temporal-addr", "127.0.0.1:0", "--ui-addr", ""}

	dev := start(t, env, args...)
	dev.await(t, regexp.MustCompile(`Scripted stand-in model`))
	url := dev.await(t, devAPI)[1]
	raw, err := os.ReadFile(filepath.Join(dir, "dev-token"))
	require.NoError(t, err)
	token := strings.TrimSpace(string(raw))
	s := &hubtest.Stack{URL: url, Token: token, HTTP: &http.Client{}}
	r := s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusOK, r.Status)
	space := r.JSON(t)["spaces"].([]any)[0].(map[string]any)
	require.Equal(t, "Demo", space["name"])
	s.SpaceID = space["id"].(string)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task called Call Mira")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	dev.stop(t)

	again := start(t, env, args...)
	s.URL = again.await(t, devAPI)[1]
	raw, err = os.ReadFile(filepath.Join(dir, "dev-token"))
	require.NoError(t, err)
	require.Equal(t, token, strings.TrimSpace(string(raw)), "the token survives a restart")
	r = s.Do(t, token, "GET", "/api/assistant/conversations/"+conv+"/messages", nil)
	require.Equal(t, http.StatusOK, r.Status)
	require.Len(t, r.JSON(t)["messages"], 2)
	r = s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
	require.Equal(t, "Call Mira", r.JSON(t)["tasks"].([]any)[0].(map[string]any)["title"])
}

// TestDevWithoutModelSaysWhatToSet: no model configured, turns end with an
// unavailable error naming the variables.
func TestDevWithoutModelSaysWhatToSet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	env := []string{"HUB_HTTP_ADDR=127.0.0.1:0", "DATABASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}
	dev := start(t, env, "dev", "--data-dir", dir, "--temporal-addr", "127.0.0.1:0", "--ui-addr", "")
	dev.await(t, regexp.MustCompile(`No model configured: set OPENAI_API_KEY`))
	s := &hubtest.Stack{URL: dev.await(t, devAPI)[1], HTTP: &http.Client{}}
	raw, err := os.ReadFile(filepath.Join(dir, "dev-token"))
	require.NoError(t, err)
	s.Token = strings.TrimSpace(string(raw))
	r := s.Do(t, s.Token, "GET", "/api/spaces", nil)
	s.SpaceID = r.JSON(t)["spaces"].([]any)[0].(map[string]any)["id"].(string)
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", events[len(events)-1].Data["status"])
	require.Equal(t, "unavailable", events[len(events)-2].Data["code"])
	require.Contains(t, events[len(events)-2].Data["message"], "OPENAI_API_KEY")
}
