// Package bench is `hub bench`: it drives a running Hub through its HTTP
// API only (docs/api.md) with one fixed workload and reports what a turn
// costs. A turn is three model calls to a zero-delay scripted stand-in
// (package fakemodel) and two task writes, every step durable; the same
// turn with nothing durable around it (the plain loop, in the bench
// process) is measured in the same run, so the ratios compare like with
// like. docs/benchmarks.md, "hub bench", has figures and how to
// run it.
//
// The bench starts `hub dev` itself from its own executable (SQLite, or
// the Postgres of --database-url), or drives a Hub at --url that was
// started against the bench's model. It reads CPU and memory from /proc
// and Postgres's counters from pg_stat_database; it imports nothing of
// Hub's server.
package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Options are `hub bench`'s flags.
type Options struct {
	// Exe is the hub executable the bench starts `hub dev` from (when URL
	// is empty).
	Exe string
	// URL and Token name a running Hub instead; it must call the bench's
	// model (ModelAddr, or ModelURL).
	URL, Token string
	// SpaceID is where the turns run; empty: the person's first space.
	SpaceID string
	// DatabaseURL is the Postgres database `hub dev` runs on (empty:
	// SQLite) and whose pg_stat_database counters the bench reads.
	DatabaseURL string
	// ModelURL is a `hub fakemodel` to script and use (its /v1 URL);
	// empty: the bench serves its own on ModelAddr.
	ModelURL, ModelAddr string

	Warmup               int // sequential turns first, not reported
	Sequential           int // turns one after another
	Concurrent, InFlight int // turns, at most InFlight at once
	Rounds               int // concurrent phases, one after another (memory over many turns)
	Samples              int // first-text and stop samples
	Delay                time.Duration
	DelayTurns           int           // turns of each system at Delay
	Idle                 time.Duration // wait after the phases, then read memory again (0: no)
	HubPIDs              []int         // Hub's processes, for CPU and memory
	HubMatch             string        // or a regular expression over their command lines
	PostgresPID          int           // the postmaster, if not found from the database connection
	APIs, Workers        int           // start this many `hub api` and `hub worker` processes (and a Temporal server) instead of hub dev
	TurnTimeout          time.Duration // the longest the bench waits for one turn
	// StatsSettle is how long after a phase the bench waits before it
	// reads pg_stat_database (DefaultStatsSettle: idle backends report up
	// to 10 s late); 0 reads at once, for runs that need no exact counts.
	StatsSettle time.Duration
	Keep        bool      // keep hub dev's data dir and log
	Log         io.Writer // progress lines
	Env         []string  // added to hub dev's environment
}

// Defaults are the workload.
func Defaults() Options {
	return Options{Warmup: 5, Sequential: 50, Concurrent: 200, InFlight: 20, Samples: 10, Rounds: 1,
		Delay: 400 * time.Millisecond, DelayTurns: 20, ModelAddr: "127.0.0.1:0", TurnTimeout: 5 * time.Minute,
		StatsSettle: DefaultStatsSettle}
}

// run is one bench run's state.
type run struct {
	o       Options
	id      string  // names this run's turns and tasks
	api     *client // the first api: set-up, the plain loop's writes, the count at the end
	model   *model
	plain   *plainLoop
	spaceID string
	proc    proc
	apis    []*client // turns go round robin over them
	rr      atomic.Int64
	procs   []group // Hub's processes: hub dev, or the api, worker and Temporal processes
	pg      *postgres
	pgGroup group
	self    group
	seq     atomic.Int64 // turn numbers
	hubDone atomic.Int64 // Hub turns that ended done
	plDone  atomic.Int64 // plain turns that ended
}

// Run measures and returns the report.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Sequential < 0 || o.Concurrent < 0 || o.Warmup < 0 || o.Samples < 0 || o.DelayTurns < 0 {
		return nil, errors.New("turn counts cannot be negative")
	}
	if o.Rounds < 0 {
		return nil, errors.New("--rounds cannot be negative")
	}
	if o.TurnTimeout <= 0 {
		return nil, errors.New("--turn-timeout must be positive")
	}
	if o.InFlight < 1 {
		return nil, errors.New("--in-flight must be at least 1")
	}
	r := &run{o: o, id: runID(), proc: realProc, self: group{name: "bench", pids: []int{os.Getpid()}}}
	rep := &Report{Started: time.Now().UTC(), RunID: r.id, CPUs: runtime.NumCPU(), Load: loadAverage()}

	var err error
	if r.model, err = startModel(o.ModelAddr, o.ModelURL); err != nil {
		return nil, err
	}
	defer r.model.close()
	rep.ModelURL = r.model.baseURL
	if err := r.model.setScript(ctx, script(0)); err != nil {
		return nil, err
	}

	url, token := o.URL, o.Token
	var urls []string
	switch {
	case o.APIs > 0 || o.Workers > 0:
		if o.APIs < 1 || o.Workers < 1 || o.URL != "" {
			return nil, errors.New("--apis and --workers go together, at least 1 each, and without --url")
		}
		cl, err := startCluster(ctx, o, r.model.baseURL, o.Log)
		if cl != nil {
			defer func() {
				if err := cl.stop(o.Keep); err != nil {
					fmt.Fprintf(o.Log, "hub bench: stopping the processes: %v\n", err)
				}
			}()
		}
		if err != nil {
			return nil, err
		}
		urls, token = cl.urls, cl.token
		r.procs = cl.groups()
		rep.Hub = fmt.Sprintf("%d hub api + %d hub worker processes and one Temporal server (started by the bench)", o.APIs, o.Workers)
	case o.URL == "":
		dev, err := startDev(ctx, o.Exe, r.model.baseURL, o.DatabaseURL, o.Env, o.Log)
		if dev != nil {
			defer func() {
				if err := dev.stop(o.Keep); err != nil {
					fmt.Fprintf(o.Log, "hub bench: stopping hub dev: %v\n", err)
				}
			}()
		}
		if err != nil {
			return nil, err
		}
		urls, token = []string{dev.url}, dev.token
		r.procs = []group{{name: "hub", pids: []int{dev.pid()}}}
		rep.Hub = "hub dev (started by the bench)"
	default:
		urls = []string{url}
		rep.Hub = url
		fmt.Fprintf(o.Log, "hub bench: driving %s; it must call the model at OPENAI_BASE_URL=%s\n", url, r.model.baseURL)
	}
	rep.Database = "sqlite"
	if o.DatabaseURL != "" {
		rep.Database = "postgres"
	} else if o.URL != "" {
		rep.Database = "unknown"
	}
	given := group{name: "hub", pids: o.HubPIDs}
	if o.HubMatch != "" {
		re, err := regexp.Compile(o.HubMatch)
		if err != nil {
			return nil, fmt.Errorf("--hub-match: %w", err)
		}
		given.pids = append(given.pids, r.proc.matching(re)...)
	}
	if len(given.pids) > 0 {
		r.procs = append(r.procs, given)
	}
	for _, g := range r.procs {
		rep.HubPIDs = append(rep.HubPIDs, g.pids...)
	}

	for _, u := range urls {
		r.apis = append(r.apis, newClient(u, token, o.InFlight))
	}
	r.api = r.apis[0]
	if err := r.api.ready(ctx); err != nil {
		return nil, err
	}
	if r.spaceID = o.SpaceID; r.spaceID == "" {
		if r.spaceID, err = r.api.firstSpace(ctx); err != nil {
			return nil, err
		}
	}
	r.plain = newPlainLoop(r.model.baseURL, r.api, r.spaceID, o.InFlight)

	if o.DatabaseURL != "" {
		if r.pg, err = openPostgres(ctx, o.DatabaseURL, r.proc, o.StatsSettle); err != nil {
			return nil, err
		}
		defer r.pg.close()
		if pid := o.PostgresPID; pid != 0 {
			r.pg.postmaster = pid
		}
		if r.pg.postmaster != 0 {
			r.pgGroup = group{name: "postgres", pids: []int{r.pg.postmaster}, tree: true}
			rep.PostgresPID = r.pg.postmaster
		}
	}
	rep.MemoryStart = r.memory()

	if err := r.phases(ctx, rep); err != nil {
		return rep, err
	}
	rep.MemoryEnd = r.memory()
	if o.Idle > 0 {
		fmt.Fprintf(o.Log, "hub bench: idling %s\n", o.Idle)
		select {
		case <-ctx.Done():
			return rep, ctx.Err()
		case <-time.After(o.Idle):
		}
		m := r.memory()
		rep.MemoryAfterIdle = &m
	}
	if err := r.verify(ctx, rep); err != nil {
		return rep, err
	}
	rep.LoadEnd = loadAverage()
	return rep, nil
}

func (r *run) phases(ctx context.Context, rep *Report) error {
	o := r.o
	if o.Warmup > 0 {
		if _, err := r.phase(ctx, "warm-up", "hub", o.Warmup, 1, r.hubTurn); err != nil {
			return err
		}
		if _, err := r.phase(ctx, "warm-up", "plain", o.Warmup, 1, r.plainTurn); err != nil {
			return err
		}
	}
	idle, err := r.idleRate(ctx, 4*time.Second)
	if err != nil {
		return err
	}
	rep.Idle = idle
	add := func(name, system string, n, inFlight int, f turnFunc) error {
		if n == 0 {
			return nil
		}
		p, err := r.phase(ctx, name, system, n, inFlight, f)
		if p != nil {
			rep.Phases = append(rep.Phases, *p)
		}
		return err
	}
	if err := add("sequential", "hub", o.Sequential, 1, r.hubTurn); err != nil {
		return err
	}
	if err := add("sequential", "plain", o.Sequential, 1, r.plainTurn); err != nil {
		return err
	}
	for round := 1; round <= max(o.Rounds, 1); round++ {
		name := fmt.Sprintf("%d in flight", o.InFlight)
		if o.Rounds > 1 {
			name += fmt.Sprintf(", round %d", round)
		}
		if err := add(name, "hub", o.Concurrent, o.InFlight, r.hubTurn); err != nil {
			return err
		}
		if err := add(name, "plain", o.Concurrent, o.InFlight, r.plainTurn); err != nil {
			return err
		}
	}
	if o.Samples > 0 {
		ft, err := r.firstText(ctx, o.Samples)
		if err != nil {
			return err
		}
		rep.FirstText = ft
		st, err := r.stopLatency(ctx, o.Samples)
		if err != nil {
			return err
		}
		rep.Stop = st
	}
	if o.DelayTurns > 0 && o.Delay > 0 {
		rt, err := r.ratio(ctx, o.Delay, o.DelayTurns)
		if err != nil {
			return err
		}
		rep.Realistic = rt
	}
	return nil
}

// turnFunc runs turn i of a phase and returns how long it took.
type turnFunc func(ctx context.Context, name string) (time.Duration, error)

// hubTurn is one turn through the api: a new conversation, then POST the
// message and read its stream to the done frame (timed).
func (r *run) hubTurn(ctx context.Context, name string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
	defer cancel()
	api := r.apis[int(r.rr.Add(1))%len(r.apis)]
	conv, err := api.conversation(ctx, r.spaceID, "bench "+name)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	st, err := api.startTurn(ctx, conv, turnPrefix+name)
	if err != nil {
		return 0, err
	}
	done, err := api.follow(ctx, st.StreamURL, nil)
	took := time.Since(start)
	if errors.Is(err, context.DeadlineExceeded) {
		return 0, fmt.Errorf("turn %s: no done frame within %s (--turn-timeout); it may still finish", st.TurnID, r.o.TurnTimeout)
	}
	if err != nil {
		return 0, fmt.Errorf("turn %s: %w", st.TurnID, err)
	}
	if s := doneStatus(done); s != "done" {
		return 0, fmt.Errorf("turn %s ended %s: %s", st.TurnID, s, done.Data)
	}
	r.hubDone.Add(1)
	return took, nil
}

func (r *run) plainTurn(ctx context.Context, name string) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
	defer cancel()
	start := time.Now()
	if err := r.plain.turn(ctx, name); err != nil {
		return 0, err
	}
	r.plDone.Add(1)
	return time.Since(start), nil
}

// name gives a phase's turn its unique name: run id, system, number.
func (r *run) name(system string) string {
	return fmt.Sprintf("%s-%s%d", r.id, system[:1], r.seq.Add(1))
}

// verify counts, through the api, the tasks this run's turns wrote: two
// for every turn that ended done.
func (r *run) verify(ctx context.Context, rep *Report) error {
	titles, err := r.api.taskTitles(ctx, r.spaceID, r.id)
	if err != nil {
		return fmt.Errorf("count the written tasks: %w", err)
	}
	v := Verified{HubTurnsDone: int(r.hubDone.Load()), PlainTurnsDone: int(r.plDone.Load())}
	v.TasksExpected = 2 * (v.HubTurnsDone + v.PlainTurnsDone)
	seen := map[string]int{}
	for _, t := range titles {
		if strings.HasPrefix(t, r.id+"-") {
			v.TasksFound++
			seen[t]++
		}
	}
	for _, c := range seen {
		if c > 1 {
			v.Duplicates += c - 1
		}
	}
	rep.Verified = v
	return nil
}

func runID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return "b" + hex.EncodeToString(b)
}

// loadAverage is /proc/loadavg's three figures.
func loadAverage() []float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	var out []float64
	for _, f := range strings.Fields(string(b))[:3] {
		v, _ := strconv.ParseFloat(f, 64)
		out = append(out, v)
	}
	return out
}

func mb(b int64) float64 { return round(float64(b) / (1 << 20)) }

func round(v float64) float64  { return float64(int64(v*10+0.5)) / 10 }
func round3(v float64) float64 { return float64(int64(v*1000+0.5)) / 1000 }
