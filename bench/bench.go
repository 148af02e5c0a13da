// Package bench is `hub bench`: it drives a running Hub through its HTTP
// API only (docs/api.md) with one fixed workload and reports what a turn
// costs. A turn is three model calls to a zero-delay scripted stand-in
// (package fakemodel) and two task writes, every step durable; the same
// turn with nothing durable around it (the plain loop, in the bench
// process) is measured in the same run, so the ratios compare like with
// like. docs/benchmarks.md, "hub bench (issue 14)", has figures and how to
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
	"sync"
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
	Keep                 bool          // keep hub dev's data dir and log
	Log                  io.Writer     // progress lines
	Env                  []string      // added to hub dev's environment
}

// Defaults are the workload.
func Defaults() Options {
	return Options{Warmup: 5, Sequential: 50, Concurrent: 200, InFlight: 20, Samples: 10, Rounds: 1,
		Delay: 400 * time.Millisecond, DelayTurns: 5, ModelAddr: "127.0.0.1:0", TurnTimeout: 5 * time.Minute}
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
	idle    *pgRates     // the database's background with no turn
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
		if r.pg, err = openPostgres(ctx, o.DatabaseURL, r.proc); err != nil {
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

// phase runs n turns with at most inFlight at once and measures them.
func (r *run) phase(ctx context.Context, name, system string, n, inFlight int, f turnFunc) (*Phase, error) {
	fmt.Fprintf(r.o.Log, "hub bench: %s, %s: %d turns\n", system, name, n)
	before := r.sample(ctx, false)
	start := time.Now()
	var (
		mu   sync.Mutex
		took []time.Duration
		errs []string
		nerr int
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for range min(inFlight, n) {
		wg.Go(func() {
			for int(next.Add(1)) <= n && ctx.Err() == nil {
				d, err := f(ctx, r.name(system))
				mu.Lock()
				if err != nil {
					nerr++
					if len(errs) < 5 {
						errs = append(errs, err.Error())
					}
				} else {
					took = append(took, d)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	wall := time.Since(start)
	after := r.sample(ctx, true)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	p := &Phase{Name: name, System: system, Turns: n, InFlight: inFlight, Errors: nerr, ErrorSamples: errs,
		Latency: summarise(took), WallMs: ms(wall), TurnsPerSecond: round(float64(len(took)) / wall.Seconds())}
	p.CPUPerTurnMs, p.CPUTotalPerTurnMs = after.cpuMinus(before, n)
	if r.pg != nil {
		d := after.db.minus(before.db)
		d.Commits-- // the bench's own read before the phase
		p.DBRaw = perTurn(d, n)
		p.DB = perTurn(r.lessIdle(d, time.Since(start)), n)
	}
	p.HubRSSMB = hubMemory(r.memory()).RSSMB
	if nerr > 0 {
		fmt.Fprintf(r.o.Log, "hub bench: %d of %d turns failed, e.g.: %s\n", nerr, n, errs[0])
	}
	// Forget the model's recordings, so a long run does not keep them all.
	if err := r.model.reset(ctx); err != nil {
		return p, err
	}
	return p, nil
}

// idleRate measures what Hub does with no turn at all, per second, over
// d: the background that every phase's figures include.
func (r *run) idleRate(ctx context.Context, d time.Duration) (*IdleRate, error) {
	fmt.Fprintf(r.o.Log, "hub bench: idle for %s\n", d)
	before := r.sample(ctx, true)
	start := time.Now()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(d):
	}
	after := r.sample(ctx, true)
	secs := time.Since(start).Seconds()
	out := &IdleRate{Seconds: round(secs), CPUMsPerSecond: map[string]float64{}}
	for name, t := range after.cpu {
		out.CPUMsPerSecond[name] = round(float64(t-before.cpu[name]) / float64(time.Millisecond) / secs)
	}
	if r.pg != nil {
		c := after.db.minus(before.db)
		c.Commits-- // the bench's own read
		idle := perSecond(c, secs)
		r.idle = &idle
		out.CommitsPerSecond = round(float64(c.Commits) / secs)
		out.RowsWrittenPerSecond = round(float64(c.Inserted+c.Updated+c.Deleted) / secs)
		out.FetchedPerSecond = round(float64(c.Fetched) / secs)
	}
	return out, nil
}

// pgRates are the database's counters per second.
type pgRates struct {
	Commits, Rollbacks, Inserted, Updated, Deleted, Returned, Fetched float64
}

func perSecond(c pgCounters, secs float64) pgRates {
	f := func(v int64) float64 { return float64(max(v, 0)) / secs }
	return pgRates{f(c.Commits), f(c.Rollbacks), f(c.Inserted), f(c.Updated), f(c.Deleted), f(c.Returned), f(c.Fetched)}
}

// sample is the counters at one moment.
type sample struct {
	cpu map[string]time.Duration
	db  pgCounters
}

func (r *run) sample(ctx context.Context, settle bool) sample {
	s := sample{cpu: map[string]time.Duration{}}
	for _, g := range r.groups() {
		s.cpu[g.name] = r.proc.cpu(g)
	}
	if r.pg != nil {
		c, err := r.pg.counters(ctx, settle)
		if err != nil {
			fmt.Fprintf(r.o.Log, "hub bench: pg_stat_database: %v\n", err)
		}
		s.db = c
	}
	return s
}

func (r *run) groups() []group {
	gs := []group{r.self}
	for _, g := range r.procs {
		if len(g.pids) > 0 {
			gs = append(gs, g)
		}
	}
	if len(r.pgGroup.pids) > 0 {
		gs = append(gs, r.pgGroup)
	}
	return gs
}

// cpuMinus is each group's CPU per turn between two samples, and their sum.
func (a sample) cpuMinus(b sample, turns int) (map[string]float64, float64) {
	out := map[string]float64{}
	var total time.Duration
	for name, t := range a.cpu {
		d := t - b.cpu[name]
		total += d
		out[name] = ms(d / time.Duration(max(turns, 1)))
	}
	return out, ms(total / time.Duration(max(turns, 1)))
}

// lessIdle takes off the counters what Hub and Postgres do in the
// background over a window this long (the phase and the wait for the
// counters), at the idle rate measured before the phases.
func (r *run) lessIdle(d pgCounters, window time.Duration) pgCounters {
	if r.idle == nil {
		return d
	}
	secs := window.Seconds()
	less := func(v int64, perSecond float64) int64 { return max(0, v-int64(perSecond*secs+0.5)) }
	i := r.idle
	return pgCounters{Commits: less(d.Commits, i.Commits), Rollbacks: less(d.Rollbacks, i.Rollbacks), Inserted: less(d.Inserted, i.Inserted),
		Updated: less(d.Updated, i.Updated), Deleted: less(d.Deleted, i.Deleted), Returned: less(d.Returned, i.Returned), Fetched: less(d.Fetched, i.Fetched)}
}

func perTurn(d pgCounters, n int) *DBPerTurn {
	f := func(v int64) float64 { return round(float64(v) / float64(max(n, 1))) }
	return &DBPerTurn{Commits: f(d.Commits), Rollbacks: f(d.Rollbacks), Inserted: f(d.Inserted), Updated: f(d.Updated),
		Deleted: f(d.Deleted), Returned: f(d.Returned), Fetched: f(d.Fetched)}
}

func (r *run) memory() map[string]Memory {
	out := map[string]Memory{}
	for _, g := range r.groups() {
		if g.tree {
			continue // a Postgres server's memory is shared buffers: not this bench's question
		}
		var m Memory
		for _, pid := range g.pids {
			if v, err := r.proc.memory(pid); err == nil {
				m.RSSMB += mb(v.RSS)
				m.PeakMB += mb(v.Peak)
			}
		}
		out[g.name] = m
	}
	return out
}

// firstText is turn POST → first text frame on the stream, for turns the
// model answers with text at once; and the model's first chunk → that
// frame, Hub's own part of it.
func (r *run) firstText(ctx context.Context, n int) (*FirstTextReport, error) {
	fmt.Fprintf(r.o.Log, "hub bench: first text: %d turns\n", n)
	var fromPost, fromModel []time.Duration
	for range n {
		a, b, err := r.firstTextOne(ctx)
		if err != nil {
			return nil, err
		}
		fromPost, fromModel = append(fromPost, a), append(fromModel, b)
	}
	return &FirstTextReport{FromTurnPost: summarise(fromPost), FromModelFirstChunk: summarise(fromModel)}, r.model.reset(ctx)
}

func (r *run) firstTextOne(ctx context.Context) (fromPost, fromModel time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
	defer cancel()
	conv, err := r.api.conversation(ctx, r.spaceID, "bench first text")
	if err != nil {
		return 0, 0, err
	}
	text := textPrefix + r.name("text")
	start := time.Now()
	st, err := r.api.startTurn(ctx, conv, text)
	if err != nil {
		return 0, 0, err
	}
	var first time.Time
	done, err := r.api.follow(ctx, st.StreamURL, func(e event) {
		if e.Type == "text" && first.IsZero() {
			first = e.At
		}
	})
	if err != nil {
		return 0, 0, err
	}
	if first.IsZero() || doneStatus(done) != "done" {
		return 0, 0, fmt.Errorf("first-text turn %s: no text frame, or it ended %s", st.TurnID, doneStatus(done))
	}
	sent, err := r.model.firstByte(ctx, text)
	if err != nil {
		return 0, 0, err
	}
	return first.Sub(start), first.Sub(sent), nil
}

// stopLatency stops turns mid-stream: after their first text frame, POST
// stop; it measures until the model saw Hub hang up, and until the done
// frame.
func (r *run) stopLatency(ctx context.Context, n int) (*StopReport, error) {
	fmt.Fprintf(r.o.Log, "hub bench: stop: %d turns\n", n)
	var disc, done []time.Duration
	for range n {
		d1, d2, err := r.stopOne(ctx)
		if err != nil {
			return nil, err
		}
		disc, done = append(disc, d1), append(done, d2)
	}
	return &StopReport{ToModelDisconnect: summarise(disc), ToDoneFrame: summarise(done)}, r.model.reset(ctx)
}

func (r *run) stopOne(ctx context.Context) (toDisconnect, toDone time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, r.o.TurnTimeout)
	defer cancel()
	conv, err := r.api.conversation(ctx, r.spaceID, "bench stop")
	if err != nil {
		return 0, 0, err
	}
	text := stopPrefix + r.name("stop")
	st, err := r.api.startTurn(ctx, conv, text)
	if err != nil {
		return 0, 0, err
	}
	var stopAt time.Time
	stopErr := make(chan error, 1)
	last, err := r.api.follow(ctx, st.StreamURL, func(e event) {
		if e.Type == "text" && stopAt.IsZero() {
			stopAt = time.Now()
			go func() { stopErr <- r.api.stop(ctx, st.TurnID) }()
		}
	})
	if err != nil {
		return 0, 0, err
	}
	if stopAt.IsZero() {
		return 0, 0, fmt.Errorf("stop turn %s: no text frame before done", st.TurnID)
	}
	if err := <-stopErr; err != nil {
		return 0, 0, err
	}
	if s := doneStatus(last); s != "stopped" {
		return 0, 0, fmt.Errorf("stop turn %s ended %s, not stopped", st.TurnID, s)
	}
	at, err := r.model.disconnected(ctx, text)
	if err != nil {
		return 0, 0, err
	}
	return at.Sub(stopAt), last.At.Sub(stopAt), nil
}

// ratio runs turns of both systems alternately against a model that
// waits delay before each reply: what durability adds to a turn a person
// waits for anyway.
func (r *run) ratio(ctx context.Context, delay time.Duration, n int) (*RatioReport, error) {
	fmt.Fprintf(r.o.Log, "hub bench: realistic latency (%s before each reply): %d turns of each\n", delay, n)
	if err := r.model.setScript(ctx, script(delay)); err != nil {
		return nil, err
	}
	var hub, plain []time.Duration
	for range n {
		d, err := r.hubTurn(ctx, r.name("hub"))
		if err != nil {
			return nil, err
		}
		hub = append(hub, d)
		if d, err = r.plainTurn(ctx, r.name("plain")); err != nil {
			return nil, err
		}
		plain = append(plain, d)
	}
	if err := r.model.setScript(ctx, script(0)); err != nil {
		return nil, err
	}
	rt := &RatioReport{DelayMs: ms(delay), Hub: summarise(hub), Plain: summarise(plain)}
	if rt.Plain.Median > 0 {
		rt.Ratio = round3(rt.Hub.Median / rt.Plain.Median)
	}
	return rt, r.model.reset(ctx)
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
