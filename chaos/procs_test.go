//go:build chaos

package chaos

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildHub builds the hub command into a temporary folder: the chaos run
// kills and restarts the real binary, not an in-process stand-in.
func buildHub(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hub")
	out, err := exec.Command("go", "build", "-o", bin, "../cmd/hub").CombinedOutput()
	if err != nil {
		t.Fatalf("go build ../cmd/hub: %v\n%s", err, out)
	}
	return bin
}

// tailLines is how much of a process's output is kept to show when the run
// fails; the rest is dropped so a long run does not hold every log line.
const tailLines = 200

// proc is one running hub subcommand whose output lines can be awaited.
type proc struct {
	name string
	cmd  *exec.Cmd

	mu    sync.Mutex
	lines []string // the last tailLines lines
	seen  int      // lines read so far
	added chan struct{}
	done  chan struct{} // output closed: the process ended
	wait  sync.Once
	err   error
}

// startProc starts `hub args...` with env added to the harness's own.
func startProc(bin, dir string, env []string, name string, args ...string) (*proc, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	cmd.SysProcAttr = childAttr()
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start hub %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, added: make(chan struct{}, 1), done: make(chan struct{})}
	go p.read(out)
	return p, nil
}

func (p *proc) read(r io.Reader) {
	defer close(p.done)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		p.mu.Lock()
		p.lines = append(p.lines, sc.Text())
		if len(p.lines) > tailLines {
			p.lines = p.lines[len(p.lines)-tailLines:]
		}
		p.seen++
		p.mu.Unlock()
		select {
		case p.added <- struct{}{}:
		default:
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

// await waits for an output line matching re, read after the process
// started, and returns its submatches.
func (p *proc) await(re *regexp.Regexp, timeout time.Duration) ([]string, error) {
	deadline := time.After(timeout)
	checked := 0 // lines already looked at, counted from the start
	for {
		p.mu.Lock()
		first := p.seen - len(p.lines) // index of p.lines[0]
		for i := max(checked, first); i < p.seen; i++ {
			if m := re.FindStringSubmatch(p.lines[i-first]); m != nil {
				p.mu.Unlock()
				return m, nil
			}
		}
		checked = p.seen
		p.mu.Unlock()
		select {
		case <-p.added:
		case <-p.done:
			return nil, fmt.Errorf("hub %s ended before printing %v:\n%s", p.name, re, p.tail())
		case <-deadline:
			return nil, fmt.Errorf("hub %s printed no line matching %v in %s:\n%s", p.name, re, timeout, p.tail())
		}
	}
}

func (p *proc) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strings.Join(p.lines, "\n")
}

// reap waits for the process once; later calls return the same error.
func (p *proc) reap() error {
	p.wait.Do(func() {
		<-p.done
		p.err = p.cmd.Wait()
	})
	return p.err
}

// kill sends SIGKILL (no cleanup of any kind in the process) and reaps it.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.reap()
}

// stop asks the process to end (SIGINT, what Ctrl-C sends) and kills it if
// it has not after 15 seconds. It reports how it ended when that was not a
// clean exit.
func (p *proc) stop() error {
	_ = p.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.kill()
		return fmt.Errorf("hub %s did not stop within 15 s of SIGINT; killed", p.name)
	}
	err := p.reap()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return fmt.Errorf("hub %s exited with %v", p.name, err)
	}
	return err
}
