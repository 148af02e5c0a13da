package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// devHub is a `hub dev` the bench started from its own executable: on
// free loopback ports, against the bench's model, on a SQLite file in a
// temporary data dir or on the given Postgres database.
type devHub struct {
	*child
	dataDir string
	url     string
	token   string
}

var devAPILine = regexp.MustCompile(`Hub API\s+(http://\S+)`)

// startDev starts `exe dev` and waits until it prints its api address and
// answers /readyz.
func startDev(ctx context.Context, exe, modelURL, databaseURL string, extraEnv []string, log io.Writer) (*devHub, error) {
	dir, err := os.MkdirTemp("", "hub-bench-")
	if err != nil {
		return nil, err
	}
	env := append([]string{
		"DATABASE_URL=" + databaseURL, // empty: SQLite in the data dir
		"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=bench", "HUB_MODEL=hub-bench",
		"HUB_HTTP_ADDR="}, extraEnv...)
	c, err := startChild("hub dev", exe, []string{"dev", "--data-dir", filepath.Join(dir, "data"), "--http-addr", "127.0.0.1:0",
		"--temporal-addr", "127.0.0.1:0", "--ui-addr", ""}, env, filepath.Join(dir, "hub.log"))
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	h := &devHub{child: c, dataDir: dir}
	fmt.Fprintf(log, "hub bench: started hub dev (pid %d, log %s)\n", c.pid(), c.logPath)
	m, err := c.await(ctx, devAPILine)
	if err != nil {
		return h, err
	}
	h.url = m[1]
	raw, err := os.ReadFile(filepath.Join(dir, "data", "dev-token"))
	if err != nil {
		return h, fmt.Errorf("hub dev's token: %w", err)
	}
	h.token = strings.TrimSpace(string(raw))
	if err := newClient(h.url, "", 1).ready(ctx); err != nil {
		return h, err
	}
	return h, nil
}

// stop stops hub dev and removes its data dir unless keep.
func (h *devHub) stop(keep bool) error {
	err := h.child.stop()
	if !keep {
		_ = os.RemoveAll(h.dataDir)
	}
	return err
}
