package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// devHub is a `hub dev` the bench started from its own executable: on
// free loopback ports, against the bench's model, on a SQLite file in a
// temporary data dir or on the given Postgres database.
type devHub struct {
	cmd     *exec.Cmd
	dataDir string
	logPath string
	url     string
	token   string
	exited  chan error
}

var devAPILine = regexp.MustCompile(`Hub API\s+(http://\S+)`)

// startDev starts `exe dev` and waits until it prints its api address and
// answers /readyz.
func startDev(ctx context.Context, exe, modelURL, databaseURL string, extraEnv []string, log io.Writer) (*devHub, error) {
	dir, err := os.MkdirTemp("", "hub-bench-")
	if err != nil {
		return nil, err
	}
	h := &devHub{dataDir: dir, logPath: filepath.Join(dir, "hub.log"), exited: make(chan error, 1)}
	logFile, err := os.Create(h.logPath)
	if err != nil {
		return nil, err
	}
	h.cmd = exec.Command(exe, "dev", "--data-dir", filepath.Join(dir, "data"), "--http-addr", "127.0.0.1:0",
		"--temporal-addr", "127.0.0.1:0", "--ui-addr", "")
	h.cmd.Env = append(os.Environ(),
		"DATABASE_URL="+databaseURL, // empty: SQLite in the data dir
		"OPENAI_BASE_URL="+modelURL, "OPENAI_API_KEY=bench", "HUB_MODEL=hub-bench",
		"HUB_HTTP_ADDR=")
	h.cmd.Env = append(h.cmd.Env, extraEnv...)
	h.cmd.Stderr = logFile
	out, err := h.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := h.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start hub dev: %w", err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			fmt.Fprintln(logFile, sc.Text())
			if m := devAPILine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
		}
		h.exited <- h.cmd.Wait()
		logFile.Close()
	}()
	fmt.Fprintf(log, "hub bench: started hub dev (pid %d, log %s)\n", h.cmd.Process.Pid, h.logPath)
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	select {
	case h.url = <-addr:
	case err := <-h.exited:
		h.exited <- err
		return h, fmt.Errorf("hub dev ended before it served (%v):\n%s", err, h.logTail())
	case <-wait.Done():
		return h, fmt.Errorf("hub dev did not print its api address in 2 minutes:\n%s", h.logTail())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "data", "dev-token"))
	if err != nil {
		return h, fmt.Errorf("hub dev's token: %w", err)
	}
	h.token = strings.TrimSpace(string(raw))
	if err := newClient(h.url, "", 1).ready(wait); err != nil {
		return h, err
	}
	return h, nil
}

func (h *devHub) pid() int { return h.cmd.Process.Pid }

// stop interrupts hub dev, waits for it (killing it after 30 s) and
// removes its data dir unless keep.
func (h *devHub) stop(keep bool) error {
	var err error
	if h.cmd.Process != nil {
		_ = h.cmd.Process.Signal(syscall.SIGINT)
		select {
		case err = <-h.exited:
		case <-time.After(30 * time.Second):
			_ = h.cmd.Process.Kill()
			err = errors.Join(errors.New("hub dev did not stop in 30 s after SIGINT; killed"), <-h.exited)
		}
	}
	if !keep {
		_ = os.RemoveAll(h.dataDir)
	}
	return err
}

// logTail is the end of hub dev's output, for an error message.
func (h *devHub) logTail() string {
	b, _ := os.ReadFile(h.logPath)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-30):], "\n")
}
