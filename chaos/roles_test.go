//go:build chaos

package chaos

import (
	"fmt"
	"regexp"
	"sync"
	"time"
)

// role is one of Hub's processes (the worker, the api) that the harness
// keeps running: it starts it, kills it with SIGKILL and starts it again.
type role struct {
	name  string
	bin   string
	dir   string
	env   []string
	ready *regexp.Regexp // the line that says the process is serving

	mu     sync.Mutex
	cur    *proc
	starts int
}

// start starts a new process and waits for its ready line; it returns the
// line's submatches.
func (r *role) start() ([]string, error) {
	p, err := startProc(r.bin, r.dir, r.env, r.name, r.name)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.cur = p
	r.starts++
	r.mu.Unlock()
	m, err := p.await(r.ready, time.Minute)
	if err != nil {
		p.kill()
		return nil, err
	}
	return m, nil
}

// killAndRestart kills the running process with SIGKILL (it gets no chance
// to finish anything) and starts a new one. It returns the killed pid and
// how long the new one took to be ready.
func (r *role) killAndRestart() (pid int, restart time.Duration, err error) {
	r.mu.Lock()
	p := r.cur
	r.mu.Unlock()
	pid = p.cmd.Process.Pid
	p.kill()
	t0 := time.Now()
	if _, err := r.start(); err != nil {
		return pid, 0, fmt.Errorf("restart hub %s after kill -9: %w", r.name, err)
	}
	return pid, time.Since(t0), nil
}

// stop ends the running process with SIGINT (SIGKILL after 15 s).
func (r *role) stop() error {
	r.mu.Lock()
	p := r.cur
	r.cur = nil
	r.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.stop()
}

// tail is the running process's last output lines.
func (r *role) tail() string {
	r.mu.Lock()
	p := r.cur
	r.mu.Unlock()
	if p == nil {
		return ""
	}
	return p.tail()
}
