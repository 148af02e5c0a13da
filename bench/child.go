package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// child is a hub process the bench started from its own executable, its
// output in a log file.
type child struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	lines   chan string // stdout lines, for await
	exited  chan error
}

// startChild starts exe with args and env (added to the bench's own);
// stdout and stderr go to logPath, stdout lines also to await.
func startChild(name, exe string, args, env []string, logPath string) (*child, error) {
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	c := &child{name: name, logPath: logPath, lines: make(chan string, 64), exited: make(chan error, 1)}
	c.cmd = exec.Command(exe, args...)
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stderr = logFile
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		logFile.Close()
		return nil, err
	}
	if err := c.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			select {
			case c.lines <- sc.Text():
			default: // nobody awaits any more
			}
		}
		c.exited <- c.cmd.Wait()
		logFile.Close()
	}()
	return c, nil
}

func (c *child) pid() int { return c.cmd.Process.Pid }

// await waits for a stdout line matching re and returns its submatches.
func (c *child) await(ctx context.Context, re *regexp.Regexp) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		select {
		case l := <-c.lines:
			if m := re.FindStringSubmatch(l); m != nil {
				return m, nil
			}
		case err := <-c.exited:
			c.exited <- err
			return nil, fmt.Errorf("%s ended (%v) before printing %v:\n%s", c.name, err, re, c.logTail())
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not print %v: %w:\n%s", c.name, re, ctx.Err(), c.logTail())
		}
	}
}

// stop interrupts the child and waits for it, killing it after 30 s.
func (c *child) stop() error {
	select {
	case err := <-c.exited: // already ended
		c.exited <- err
		return nil
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case err := <-c.exited:
		c.exited <- err
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		return fmt.Errorf("%s did not stop in 30 s after SIGINT; killed: %v", c.name, <-c.exited)
	}
}

// logTail is the end of the child's output, for an error message.
func (c *child) logTail() string {
	b, _ := os.ReadFile(c.logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}

// output runs exe to completion and returns its stdout.
func output(ctx context.Context, exe string, args, env []string, logTo io.Writer) (string, error) {
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = logTo
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("hub %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
