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

// start runs `hub args…` in a directory of the test's, with env added to
// the test process's environment; it is stopped when the test ends.
func start(t *testing.T, env []string, args ...string) *process {
	t.Helper()
	p, err := launch(hubBinary(t), t.TempDir(), env, args...)
	require.NoError(t, err)
	t.Cleanup(func() { p.stop(t) })
	return p
}

// launch starts binary in dir with its stdout and stderr read as lines.
func launch(binary, dir string, env []string, args ...string) (*process, error) {
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, added: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read(out)
	return p, nil
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
	m, err := p.wait(re)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// wait is await for a goroutine that is not the test's: it returns the
// submatches, or an error when the process ends or a minute passes first.
func (p *process) wait(re *regexp.Regexp) ([]string, error) {
	deadline := time.After(time.Minute)
	seen, ended := 0, false
	for {
		p.mu.Lock()
		lines := p.lines[seen:]
		p.mu.Unlock()
		for _, l := range lines {
			seen++
			if m := re.FindStringSubmatch(l); m != nil {
				return m, nil
			}
		}
		if ended {
			p.mu.Lock()
			defer p.mu.Unlock()
			return nil, fmt.Errorf("process ended before printing %v:\n%s", re, strings.Join(p.lines, "\n"))
		}
		select {
		case <-p.added:
		case <-p.done:
			ended = true // its last lines are read above once more
		case <-deadline:
			return nil, fmt.Errorf("no line matching %v in a minute", re)
		}
	}
}

// output is what the process printed so far.
func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// stop sends SIGINT and waits for a clean exit.
func (p *process) stop(t *testing.T) {
	if p.cmd.ProcessState != nil {
		return
	}
	err := p.end()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err != nil && !t.Failed():
		t.Errorf("%s exited with %v:\n%s", p.cmd.Args[1], err, strings.Join(p.lines, "\n"))
	case t.Failed():
		t.Logf("output of hub %s:\n%s", p.cmd.Args[1], strings.Join(p.lines, "\n"))
	}
}

// end sends SIGINT, kills the process if it is still running 30 s later,
// and returns how it exited.
func (p *process) end() error {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	return p.cmd.Wait()
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
	b := startBackends(t)
	ts := b.ts
	env := []string{"DATABASE_URL=" + b.db, "TEMPORAL_ADDRESS=" + ts.FrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.Namespace(),
		"OPENAI_BASE_URL=" + b.modelURL, "OPENAI_API_KEY=test", "HUB_HTTP_ADDR=127.0.0.1:0"}
	require.Contains(t, output(t, env, "migrate"), "search attributes registered")
	token := output(t, env, "token", "create", "--create", "--space", "Ops", "--person", "Ada Lovelace")
	require.Regexp(t, `^hub_[a-z0-9]+$`, token, "one line, the token")

	start(t, env, "worker")
	api := start(t, env, "api")
	s := ownerStack(t, "http://"+api.await(t, apiLine)[1], token)

	require.Eventually(t, func() bool { return s.Do(t, "", "GET", "/readyz", nil).Status == http.StatusOK }, 30*time.Second, 50*time.Millisecond)
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task called Water the plants")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	r := s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks", nil)
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

// devEnv is the environment every `hub dev` of these tests starts with:
// SQLite in its data dir, the api on a free port, no model from the test
// process's own environment. A test's env, appended after it, overrides it.
var devEnv = []string{"HUB_HTTP_ADDR=127.0.0.1:0", "DATABASE_URL=", "OPENAI_API_KEY=", "OPENAI_BASE_URL="}

// devArgs are `hub dev`'s arguments for a data dir: Temporal on a free
// port, no Temporal UI, then the test's own.
func devArgs(dir string, extra ...string) []string {
	return append([]string{"dev", "--data-dir", dir, "--temporal-addr", "127.0.0.1:0", "--ui-addr", ""}, extra...)
}

// startDev runs `hub dev` on the data dir dir (devEnv, then env) and
// returns it once its api answers, with the dev owner's token and first
// space.
func startDev(t *testing.T, dir string, env []string, extra ...string) (*process, *hubtest.Stack) {
	t.Helper()
	dev := start(t, append(devEnv[:len(devEnv):len(devEnv)], env...), devArgs(dir, extra...)...)
	return dev, devStack(t, dev.await(t, devAPI)[1], dir)
}

// devStack is the api at url as the owner whose token `hub dev` wrote in
// dir/dev-token, on their first space.
func devStack(t *testing.T, url, dir string) *hubtest.Stack {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "dev-token"))
	require.NoError(t, err)
	return ownerStack(t, url, strings.TrimSpace(string(raw)))
}

// ownerStack is the api at url as token's person, on their first space.
func ownerStack(t *testing.T, url, token string) *hubtest.Stack {
	t.Helper()
	s := &hubtest.Stack{URL: url, Token: token, HTTP: &http.Client{}}
	r := s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	s.SpaceID = r.JSON(t)["spaces"].([]any)[0].(map[string]any)["id"].(string)
	return s
}

// shared is a `hub dev --fake-model` that tests which only read what it
// serves, or work in spaces and conversations of their own, share
// (sharedDev): one process start instead of one each. TestMain stops it.
var shared struct {
	once sync.Once
	dir  string // the directory holding its data dir, .hub
	url  string
	dev  *process
	err  error
}

// sharedDev starts the shared `hub dev --fake-model` on first use and
// returns the directory its data dir (.hub) is in and its api's URL.
func sharedDev(t *testing.T) (dir, url string) {
	t.Helper()
	binary := hubBinary(t)
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "hub-e2e-dev")
		if shared.err != nil {
			return
		}
		if shared.dev, shared.err = launch(binary, shared.dir, devEnv, devArgs(filepath.Join(shared.dir, ".hub"), "--fake-model")...); shared.err != nil {
			return
		}
		var m []string
		if m, shared.err = shared.dev.wait(devAPI); shared.err == nil {
			shared.url = m[1]
		}
	})
	require.NoError(t, shared.err, "the shared hub dev")
	return shared.dir, shared.url
}

// stopSharedDev stops the shared `hub dev` (if a test started it) and
// removes its directory; it says on stderr if it did not exit cleanly.
func stopSharedDev() {
	if p := shared.dev; p != nil {
		if err := p.end(); err != nil {
			p.mu.Lock()
			fmt.Fprintf(os.Stderr, "the shared hub dev exited with %v:\n%s\n", err, strings.Join(p.lines, "\n"))
			p.mu.Unlock()
		}
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
}

// backends are what `hub api` and `hub worker` processes run on: a
// Postgres database, an embedded Temporal server and the scripted model
// (its default script), all stopped when the test ends.
type backends struct {
	db       string
	ts       *temporal.Server
	modelURL string
}

func startBackends(t *testing.T) backends {
	t.Helper()
	db := dbtest.Postgres(t)
	ts, err := temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ts.Stop() })
	model := fakemodel.New(fakemodel.DefaultScript())
	base, err := model.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })
	return backends{db: db, ts: ts, modelURL: base}
}

// TestDevRestartKeepsEverything runs `hub dev --fake-model` as a process,
// has a turn, stops it, starts it again on the same data dir and finds the
// conversation, the task and the same token.
func TestDevRestartKeepsEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dev, s := startDev(t, dir, nil, "--fake-model")
	dev.await(t, regexp.MustCompile(`Scripted stand-in model`))
	token := s.Token
	// The first start prints the console link with the new token once, the
	// Temporal frontend's address, and that the UI is off (--ui-addr "").
	dev.await(t, regexp.MustCompile(`^Console\s+http://127\.0\.0\.1:\d+/#token=`+regexp.QuoteMeta(token)+`\s`))
	dev.await(t, regexp.MustCompile(`^Temporal\s+127\.0\.0\.1:\d+\s+\(frontend`))
	dev.await(t, regexp.MustCompile(`^Temporal UI off`))
	dev.await(t, regexp.MustCompile(`^Try: curl -H "Authorization: Bearer \$\(cat \S+dev-token\)"`))
	r := s.Do(t, token, "GET", "/api/spaces", nil)
	require.Equal(t, "Demo", r.JSON(t)["spaces"].([]any)[0].(map[string]any)["name"])
	conv := s.Conversation(t)
	st := s.Ask(t, conv, "add a task called Call Mira")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "done", events[len(events)-1].Data["status"])
	dev.stop(t)

	again := start(t, devEnv, devArgs(dir, "--fake-model")...)
	s.URL = again.await(t, devAPI)[1]
	// A restart keeps the token and does not print it again.
	again.await(t, regexp.MustCompile(`^Console\s+http://\S+/\s+\(sign in with the token in`))
	again.await(t, regexp.MustCompile(`^Try: curl`))
	require.NotContains(t, again.output(), token, "a restart prints no token")
	raw, err := os.ReadFile(filepath.Join(dir, "dev-token"))
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
	dev, s := startDev(t, t.TempDir(), nil)
	dev.await(t, regexp.MustCompile(`No model configured: set OPENAI_API_KEY`))
	st := s.Ask(t, s.Conversation(t), "hello")
	events := s.Stream(t, st.StreamURL, 0, 0)
	require.Equal(t, "error", events[len(events)-1].Data["status"])
	require.Equal(t, "unavailable", events[len(events)-2].Data["code"])
	require.Contains(t, events[len(events)-2].Data["message"], "OPENAI_API_KEY")
}
