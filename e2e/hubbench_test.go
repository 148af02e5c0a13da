//go:build e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"hub/bench"
	"hub/dbtest"
	"hub/fakemodel"
)

// tinyBench is the workload at counts a test can afford: 1 warm-up, 2
// sequential and 4 at 2 in flight turns of each system, one first-text
// and one stop turn, one turn of each at a 50 ms model.
var tinyBench = []string{"--warmup", "1", "--sequential", "2", "--concurrent", "4", "--in-flight", "2",
	"--samples", "1", "--delay-turns", "1", "--delay", "50ms", "--json"}

// hubTurnsOfTinyBench are the turns of each system that write two tasks.
const hubTurnsOfTinyBench = 1 + 2 + 4 + 1

// runBench runs `hub bench` and decodes its JSON report.
func runBench(t *testing.T, env []string, args ...string) (bench.Report, map[string]any) {
	t.Helper()
	rep, raw, err := benchReport(hubBinary(t), t.TempDir(), env, args...)
	require.NoError(t, err)
	return rep, raw
}

// benchReport runs `hub bench` in dir and decodes its JSON report; it
// calls nothing of a test's, so a goroutine of a test may run it.
func benchReport(binary, dir string, env []string, args ...string) (bench.Report, map[string]any, error) {
	cmd := exec.Command(binary, append([]string{"bench"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	var rep bench.Report
	var raw map[string]any
	if err := cmd.Run(); err != nil {
		return rep, raw, fmt.Errorf("hub bench: %v:\n%s\n%s", err, stdout.String(), stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, raw, fmt.Errorf("%v: %s", err, stdout.String())
	}
	err := json.Unmarshal(stdout.Bytes(), &raw)
	return rep, raw, err
}

// requireTinyReport checks what every report of tinyBench has.
func requireTinyReport(t *testing.T, rep bench.Report, raw map[string]any, groups ...string) {
	t.Helper()
	for _, key := range []string{"runId", "phases", "firstText", "stop", "realistic", "memoryStart", "memoryEnd", "verified", "loadAverage"} {
		require.Contains(t, raw, key)
	}
	require.Len(t, rep.Phases, 4)
	for i, want := range []struct {
		system, name    string
		turns, inFlight int
	}{{"hub", "sequential", 2, 1}, {"plain", "sequential", 2, 1}, {"hub", "2 in flight", 4, 2}, {"plain", "2 in flight", 4, 2}} {
		p := rep.Phases[i]
		require.Equal(t, want.system, p.System, "phase %d", i)
		require.Equal(t, want.name, p.Name, "phase %d", i)
		require.Equal(t, want.turns, p.Turns)
		require.Equal(t, want.inFlight, p.InFlight)
		require.Zero(t, p.Errors, "%v", p.ErrorSamples)
		require.Equal(t, want.turns, p.Latency.N)
		require.Positive(t, p.Latency.Median)
		require.GreaterOrEqual(t, p.Latency.P99, p.Latency.Median)
		require.Positive(t, p.TurnsPerSecond)
		for _, g := range groups {
			require.Contains(t, p.CPUPerTurnMs, g, "phase %d", i)
		}
		require.Len(t, p.CPUPerTurnMs, len(groups))
	}
	require.Equal(t, 1, rep.FirstText.FromTurnPost.N)
	require.Positive(t, rep.FirstText.FromTurnPost.Median)
	require.Equal(t, 1, rep.Stop.ToModelDisconnect.N)
	require.Equal(t, 1, rep.Stop.ToDoneFrame.N)
	require.Equal(t, 50.0, rep.Realistic.DelayMs)
	// At least the model's three waits each; the ratio compares them.
	require.GreaterOrEqual(t, rep.Realistic.Plain.Median, 150.0)
	require.GreaterOrEqual(t, rep.Realistic.Hub.Median, 150.0)
	require.Positive(t, rep.Realistic.Ratio)
	require.Positive(t, rep.MemoryEnd["hub"].RSSMB)
	require.GreaterOrEqual(t, rep.MemoryEnd["hub"].PeakMB, rep.MemoryEnd["hub"].RSSMB)
	require.Equal(t, bench.Verified{HubTurnsDone: hubTurnsOfTinyBench, PlainTurnsDone: hubTurnsOfTinyBench,
		TasksExpected: 4 * hubTurnsOfTinyBench, TasksFound: 4 * hubTurnsOfTinyBench}, rep.Verified)
}

// TestBenchDrivesARunningHub: `hub bench --url` against a `hub dev` on
// Postgres that calls the test's scripted model. The report has every
// phase, CPU of the hub process and of Postgres, and pg_stat_database
// deltas; and the api itself (not the bench's bookkeeping) shows every
// bench turn done with its two task writes, each written once.
//
// The bench waits --stats-settle (11 s) after each phase, the warm-up and
// the idle reading for pg_stat_database to be complete, some 90 s in all,
// most of it asleep. So the test starts hub dev and the bench before
// t.Parallel, while the package's tests are still being started, and
// their wait does not hold one of the package's parallel slots: by the
// time the test gets one, the bench has mostly finished.
func TestBenchDrivesARunningHub(t *testing.T) {
	db := dbtest.Postgres(t)
	model := fakemodel.New(fakemodel.Script{})
	base, err := model.Start("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = model.Close() })

	dir := t.TempDir()
	binary, benchDir := hubBinary(t), t.TempDir()
	dev := start(t, []string{"HUB_HTTP_ADDR=127.0.0.1:0", "DATABASE_URL=" + db, "OPENAI_BASE_URL=" + base, "OPENAI_API_KEY=test"},
		devArgs(dir)...)
	type result struct {
		url string
		rep bench.Report
		raw map[string]any
		err error
	}
	ran := make(chan result, 1)
	go func() {
		m, err := dev.wait(devAPI)
		if err != nil {
			ran <- result{err: err}
			return
		}
		raw, err := os.ReadFile(filepath.Join(dir, "dev-token"))
		if err != nil {
			ran <- result{err: err}
			return
		}
		res := result{url: m[1]}
		res.rep, res.raw, res.err = benchReport(binary, benchDir, nil, append([]string{"--url", m[1], "--token", strings.TrimSpace(string(raw)),
			"--model-url", base, "--database-url", db, "--hub-pid", strconv.Itoa(dev.cmd.Process.Pid)}, tinyBench...)...)
		ran <- res
	}()
	t.Parallel()
	res := <-ran
	require.NoError(t, res.err)
	rep, url := res.rep, res.url
	requireTinyReport(t, rep, res.raw, "hub", "postgres", "bench")
	require.Equal(t, "postgres", rep.Database)
	require.Equal(t, []int{dev.cmd.Process.Pid}, rep.HubPIDs)
	require.NotZero(t, rep.PostgresPID)
	for _, p := range rep.Phases {
		require.NotNil(t, p.DB, "%s %s", p.System, p.Name)
		require.Positive(t, p.DB.Commits, "%s %s", p.System, p.Name)
		// At least the two tasks a turn inserts.
		require.GreaterOrEqual(t, p.DB.Inserted, 2.0, "%s %s", p.System, p.Name)
	}

	// What the api shows.
	s := devStack(t, url, dir)
	token := s.Token
	r := s.Do(t, token, "GET", "/api/spaces/"+s.SpaceID+"/tasks?limit=200&q="+rep.RunID, nil)
	require.Equal(t, http.StatusOK, r.Status)
	titles := map[string]int{}
	for _, task := range r.JSON(t)["tasks"].([]any) {
		titles[task.(map[string]any)["title"].(string)]++
	}
	r = s.Do(t, token, "GET", "/api/assistant/conversations?spaceId="+s.SpaceID, nil)
	require.Equal(t, http.StatusOK, r.Status)
	var hubTurns int
	for _, c := range r.JSON(t)["conversations"].([]any) {
		c := c.(map[string]any)
		name, ok := strings.CutPrefix(c["title"].(string), "bench "+rep.RunID+"-h")
		if !ok {
			continue
		}
		hubTurns++
		name = rep.RunID + "-h" + name
		m := s.Do(t, token, "GET", "/api/assistant/conversations/"+c["id"].(string)+"/messages", nil)
		require.Equal(t, http.StatusOK, m.Status)
		msgs := m.JSON(t)["messages"].([]any)
		require.Len(t, msgs, 2, name)
		reply := msgs[1].(map[string]any)
		require.Equal(t, "done", reply["status"], name)
		require.Equal(t, "Done: two tasks.", reply["text"], name)
		calls := reply["toolCalls"].([]any)
		require.Len(t, calls, 2, name)
		for _, call := range calls {
			require.Equal(t, "hub_create_tasks", call.(map[string]any)["tool"], name)
			require.Equal(t, "done", call.(map[string]any)["status"], name)
		}
		for _, suffix := range []string{" a", " b"} {
			require.Equal(t, 1, titles[name+suffix], "task %q written once", name+suffix)
			delete(titles, name+suffix)
		}
	}
	require.Equal(t, hubTurnsOfTinyBench, hubTurns)
	// What is left are the plain loop's tasks, two a turn.
	require.Len(t, titles, 2*hubTurnsOfTinyBench, "%v", titles)
	for title, n := range titles {
		require.True(t, strings.HasPrefix(title, rep.RunID+"-p"), title)
		require.Equal(t, 1, n, title)
	}
}

// TestBenchStartsHubDev: without --url, `hub bench` starts `hub dev` on
// SQLite itself, on free ports against its own model, measures it, and
// stops it at the end.
func TestBenchStartsHubDev(t *testing.T) {
	t.Parallel()
	rep, raw := runBench(t, []string{"DATABASE_URL=", "HUB_HTTP_ADDR="}, tinyBench...)
	requireTinyReport(t, rep, raw, "hub", "bench")
	require.Equal(t, "sqlite", rep.Database)
	for _, p := range rep.Phases {
		require.Nil(t, p.DB, "no pg_stat_database on SQLite")
	}
	require.Len(t, rep.HubPIDs, 1)
	_, err := os.Stat(fmt.Sprintf("/proc/%d", rep.HubPIDs[0]))
	require.ErrorIs(t, err, os.ErrNotExist, "hub dev was stopped")
}

// TestBenchScalesOut: `hub bench --apis 2 --workers 2` starts one
// Temporal server, migrates, and runs two `hub api` and two `hub worker`
// processes on Postgres; turns go to both apis, every one ends done with
// its two writes made once, CPU is reported per kind of process, and
// every process is stopped at the end.
func TestBenchScalesOut(t *testing.T) {
	t.Parallel()
	db := dbtest.Postgres(t)
	rep, _ := runBench(t, nil, "--apis", "2", "--workers", "2", "--database-url", db, "--warmup", "0", "--sequential", "2",
		"--concurrent", "4", "--in-flight", "2", "--samples", "0", "--delay-turns", "0", "--json",
		// The counts are not what this test checks: no 11 s wait per phase
		// (it would hold one of the package's two parallel test slots).
		"--stats-settle", "0s")
	require.Contains(t, rep.Hub, "2 hub api + 2 hub worker processes")
	require.Len(t, rep.Phases, 4)
	for _, p := range rep.Phases {
		require.Zero(t, p.Errors, "%v", p.ErrorSamples)
		require.Equal(t, p.Turns, p.Latency.N)
		for _, g := range []string{"api", "worker", "temporal", "postgres", "bench"} {
			require.Contains(t, p.CPUPerTurnMs, g)
		}
		require.NotNil(t, p.DB)
	}
	require.Equal(t, bench.Verified{HubTurnsDone: 6, PlainTurnsDone: 6, TasksExpected: 24, TasksFound: 24}, rep.Verified)
	require.Len(t, rep.HubPIDs, 5, "two apis, two workers, one Temporal server")
	for _, pid := range rep.HubPIDs {
		_, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
		require.ErrorIs(t, err, os.ErrNotExist, "process %d was stopped", pid)
	}
}
