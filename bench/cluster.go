package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
)

// cluster is Hub as production runs it, started by the bench: one
// Temporal server (the embedded one as its own process, `hub bench
// temporal`), `hub migrate`, then --workers `hub worker` and --apis `hub
// api` processes, all on the Postgres of --database-url.
type cluster struct {
	dir      string
	temporal *child
	workers  []*child
	apis     []*child
	urls     []string
	token    string
}

var (
	temporalLine = regexp.MustCompile(`^Temporal frontend (\S+) namespace (\S+)`)
	workerLine   = regexp.MustCompile(`hub worker polling`)
	apiLine      = regexp.MustCompile(`hub api listening on (\S+)`)
)

func startCluster(ctx context.Context, o Options, modelURL string, log io.Writer) (*cluster, error) {
	if o.DatabaseURL == "" {
		return nil, errors.New("--apis and --workers need --database-url (a Postgres database): separate processes share it")
	}
	dir, err := os.MkdirTemp("", "hub-bench-")
	if err != nil {
		return nil, err
	}
	cl := &cluster{dir: dir}
	cl.temporal, err = startChild("the Temporal server", o.Exe, []string{"bench", "temporal", "--db", filepath.Join(dir, "temporal.db")}, nil, filepath.Join(dir, "temporal.log"))
	if err != nil {
		return cl, err
	}
	m, err := cl.temporal.await(ctx, temporalLine)
	if err != nil {
		return cl, err
	}
	env := []string{"DATABASE_URL=" + o.DatabaseURL, "TEMPORAL_ADDRESS=" + m[1], "TEMPORAL_NAMESPACE=" + m[2],
		"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=bench", "HUB_MODEL=hub-bench", "HUB_HTTP_ADDR=127.0.0.1:0"}
	env = append(env, o.Env...)
	if _, err := output(ctx, o.Exe, []string{"migrate"}, env, log); err != nil {
		return cl, err
	}
	if cl.token, err = output(ctx, o.Exe, []string{"token", "create", "--create", "--space", "Bench", "--person", "Bench Owner"}, env, log); err != nil {
		return cl, err
	}
	for i := range o.Workers {
		w, err := startChild("hub worker "+strconv.Itoa(i+1), o.Exe, []string{"worker"}, env, filepath.Join(dir, fmt.Sprintf("worker%d.log", i+1)))
		if err != nil {
			return cl, err
		}
		cl.workers = append(cl.workers, w)
		if _, err := w.await(ctx, workerLine); err != nil {
			return cl, err
		}
	}
	for i := range o.APIs {
		a, err := startChild("hub api "+strconv.Itoa(i+1), o.Exe, []string{"api"}, env, filepath.Join(dir, fmt.Sprintf("api%d.log", i+1)))
		if err != nil {
			return cl, err
		}
		cl.apis = append(cl.apis, a)
		m, err := a.await(ctx, apiLine)
		if err != nil {
			return cl, err
		}
		cl.urls = append(cl.urls, "http://"+m[1])
	}
	fmt.Fprintf(log, "hub bench: started Temporal (pid %d), %d workers, %d apis; logs in %s\n", cl.temporal.pid(), len(cl.workers), len(cl.apis), dir)
	return cl, nil
}

// groups are the cluster's processes by kind, for CPU and memory.
func (cl *cluster) groups() []group {
	pids := func(cs []*child) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.pid())
		}
		return out
	}
	return []group{{name: "api", pids: pids(cl.apis)}, {name: "worker", pids: pids(cl.workers)}, {name: "temporal", pids: []int{cl.temporal.pid()}}}
}

// stop ends the apis, then the workers, then Temporal, and removes the
// logs unless keep.
func (cl *cluster) stop(keep bool) error {
	var errs []error
	for _, c := range append(append(cl.apis, cl.workers...), cl.temporal) {
		if c != nil {
			errs = append(errs, c.stop())
		}
	}
	if !keep {
		_ = os.RemoveAll(cl.dir)
	}
	return errors.Join(errs...)
}
