package bench

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/<pid>/stat: USER_HZ,
// which Linux fixes at 100 for what it shows user space.
const clockTick = 10 * time.Millisecond

// procTimes is what /proc/<pid>/stat says about a process's CPU.
type procTimes struct {
	PPid int
	// User and System are the process's own times (all its threads).
	User, System time.Duration
	// ChildUser and ChildSystem are its waited-for children's: a Postgres
	// backend that ended is counted here, in the postmaster's.
	ChildUser, ChildSystem time.Duration
}

// parseStat reads the fields of a /proc/<pid>/stat line that matter here.
// The command name (field 2) is in parentheses and may hold spaces and
// parentheses itself, so the fields are counted from its last ")".
func parseStat(line []byte) (procTimes, error) {
	end := bytes.LastIndexByte(line, ')')
	if end < 0 {
		return procTimes{}, errors.New("no command name in /proc stat line")
	}
	// After ")": field 3 (state) onwards.
	f := strings.Fields(string(line[end+1:]))
	const (
		ppid   = 4 - 3
		utime  = 14 - 3
		cstime = 17 - 3
	)
	if len(f) <= cstime {
		return procTimes{}, fmt.Errorf("/proc stat line has %d fields after the name, want at least %d", len(f), cstime+1)
	}
	n := make([]int64, 0, 5)
	for _, i := range []int{ppid, utime, utime + 1, utime + 2, cstime} {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return procTimes{}, fmt.Errorf("/proc stat field %d: %w", i+3, err)
		}
		n = append(n, v)
	}
	tick := func(v int64) time.Duration { return time.Duration(v) * clockTick }
	return procTimes{PPid: int(n[0]), User: tick(n[1]), System: tick(n[2]), ChildUser: tick(n[3]), ChildSystem: tick(n[4])}, nil
}

// memory is a process's resident set from /proc/<pid>/status.
type memory struct {
	// RSS is VmRSS, now; Peak is VmHWM, the most it ever held.
	RSS, Peak int64 // bytes
}

// parseStatus reads VmRSS and VmHWM (in kB) from /proc/<pid>/status.
func parseStatus(b []byte) (memory, error) {
	var m memory
	var found int
	for line := range bytes.Lines(b) {
		key, val, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(key) {
		case "VmRSS":
			dst = &m.RSS
		case "VmHWM":
			dst = &m.Peak
		default:
			continue
		}
		f := strings.Fields(string(val))
		if len(f) != 2 || f[1] != "kB" {
			return memory{}, fmt.Errorf("/proc status %s: unexpected %q", key, bytes.TrimSpace(val))
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return memory{}, fmt.Errorf("/proc status %s: %w", key, err)
		}
		*dst = kb << 10
		found++
	}
	if found < 2 {
		return memory{}, errors.New("/proc status has no VmRSS and VmHWM (a kernel thread, or a process that ended)")
	}
	return m, nil
}

// proc reads /proc (a different root in tests).
type proc struct{ root string }

var realProc = proc{root: "/proc"}

func (p proc) times(pid int) (procTimes, error) {
	b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procTimes{}, err
	}
	return parseStat(b)
}

func (p proc) memory(pid int) (memory, error) {
	b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "status"))
	if err != nil {
		return memory{}, err
	}
	return parseStatus(b)
}

// pids lists the processes /proc shows.
func (p proc) pids() []int {
	entries, _ := os.ReadDir(p.root)
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// matching returns the processes whose command line (arguments joined
// by spaces) matches re, except the bench itself.
func (p proc) matching(re *regexp.Regexp) []int {
	var out []int
	for _, pid := range p.pids() {
		if pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.root, strconv.Itoa(pid), "cmdline"))
		if err != nil || len(b) == 0 {
			continue
		}
		if re.Match(bytes.ReplaceAll(bytes.TrimRight(b, "\x00"), []byte{0}, []byte{' '})) {
			out = append(out, pid)
		}
	}
	return out
}

// children lists the live processes whose parent is pid.
func (p proc) children(pid int) []int {
	var out []int
	for _, c := range p.pids() {
		if t, err := p.times(c); err == nil && t.PPid == pid {
			out = append(out, c)
		}
	}
	return out
}

// cpu is the CPU time a group of processes used so far.
func (p proc) cpu(g group) time.Duration {
	var total time.Duration
	for _, pid := range g.pids {
		t, err := p.times(pid)
		if err != nil {
			continue // it ended; what it used is lost (or in a parent's child times)
		}
		total += t.User + t.System
		if g.tree {
			// A postmaster: its live backends, and the ended ones it waited for.
			total += t.ChildUser + t.ChildSystem
			for _, c := range p.children(pid) {
				if ct, err := p.times(c); err == nil {
					total += ct.User + ct.System
				}
			}
		}
	}
	return total
}

// group is processes measured together: Hub's, or one Postgres server.
type group struct {
	name string
	pids []int
	// tree adds the processes' children: a Postgres server's backends.
	tree bool
}
