package bench

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

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
		p.DB = perTurn(d, n)
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
		out.CommitsPerSecond = round(float64(c.Commits) / secs)
		out.RowsWrittenPerSecond = round(float64(c.Inserted+c.Updated+c.Deleted) / secs)
		out.FetchedPerSecond = round(float64(c.Fetched) / secs)
	}
	return out, nil
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
