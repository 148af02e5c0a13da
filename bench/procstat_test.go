package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A /proc/<pid>/stat line whose command name holds spaces and a ")".
const statLine = "4242 (hub (dev) x) S 17 4242 17 0 -1 4194560 2000 0 0 0 250 75 31 9 20 0 12 0 100 1000000 5000 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"

func TestParseStat(t *testing.T) {
	t.Parallel()
	pt, err := parseStat([]byte(statLine))
	require.NoError(t, err)
	require.Equal(t, procTimes{PPid: 17, User: 2500 * time.Millisecond, System: 750 * time.Millisecond,
		ChildUser: 310 * time.Millisecond, ChildSystem: 90 * time.Millisecond}, pt)

	for _, bad := range []string{"", "4242 hub S 1", "4242 (hub) S 17 1 2 3", "4242 (hub) S 17 4242 17 0 -1 0 0 0 0 0 x 75 31 9"} {
		_, err := parseStat([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	m, err := parseStatus([]byte("Name:\thub\nVmPeak:\t  999 kB\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\nThreads:\t12\n"))
	require.NoError(t, err)
	require.Equal(t, memory{RSS: 100 << 20, Peak: 200 << 20}, m)

	_, err = parseStatus([]byte("Name:\tkthreadd\nThreads:\t1\n"))
	require.ErrorContains(t, err, "no VmRSS")
	_, err = parseStatus([]byte("VmHWM:\t12 MB\nVmRSS:\t1 kB\n"))
	require.ErrorContains(t, err, "VmHWM")
}

// fakeProc writes a /proc with the given processes: pid → stat fields
// after the name (ppid utime stime cutime cstime) and a command line.
func fakeProc(t *testing.T, procs map[int]struct {
	ppid, utime, stime, cutime, cstime int
	cmdline                            string
}) proc {
	root := t.TempDir()
	for pid, p := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		line := strconv.Itoa(pid) + " (x) S " + strconv.Itoa(p.ppid) + " 0 0 0 -1 0 0 0 0 0 " +
			strconv.Itoa(p.utime) + " " + strconv.Itoa(p.stime) + " " + strconv.Itoa(p.cutime) + " " + strconv.Itoa(p.cstime) + " 20 0 1 0\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "cmdline"), []byte(p.cmdline), 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "self"), 0o755)) // not a pid
	return proc{root: root}
}

func TestProcessGroups(t *testing.T) {
	t.Parallel()
	type p = struct {
		ppid, utime, stime, cutime, cstime int
		cmdline                            string
	}
	pr := fakeProc(t, map[int]p{
		100: {1, 10, 5, 0, 0, "/usr/bin/hub\x00api\x00"},
		101: {1, 20, 5, 0, 0, "/usr/bin/hub\x00worker\x00--x\x00"},
		102: {1, 7, 7, 0, 0, "/usr/bin/hub\x00dev\x00"},
		200: {1, 3, 1, 40, 10, "postgres\x00-D\x00/tmp/pg\x00"}, // postmaster: 50 ticks of ended backends
		201: {200, 30, 20, 0, 0, "postgres: hub hub 127.0.0.1 idle\x00"},
		202: {200, 1, 1, 0, 0, "postgres: walwriter\x00"},
	})
	require.ElementsMatch(t, []int{100, 101}, pr.matching(regexp.MustCompile(`hub (api|worker)`)))
	require.ElementsMatch(t, []int{201, 202}, pr.children(200))

	require.Equal(t, 400*time.Millisecond, pr.cpu(group{pids: []int{100, 101}}), "utime + stime, in ticks of 10 ms")
	// A Postgres server: the postmaster, its live backends and the ended
	// ones it waited for.
	require.Equal(t, (4+50+50+2)*10*time.Millisecond, pr.cpu(group{pids: []int{200}, tree: true}))
	require.Equal(t, time.Duration(0), pr.cpu(group{pids: []int{999}}), "an ended process counts nothing")
}
