package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Report is a bench run's result, as `hub bench --json` prints it.
type Report struct {
	Started     time.Time `json:"started"`
	RunID       string    `json:"runId"` // in every turn's text and task title
	Hub         string    `json:"hub"`
	Database    string    `json:"database"` // sqlite, postgres, unknown
	ModelURL    string    `json:"modelUrl"`
	CPUs        int       `json:"cpus"`
	Load        []float64 `json:"loadAverage"` // 1, 5, 15 minutes, at the start
	LoadEnd     []float64 `json:"loadAverageEnd"`
	HubPIDs     []int     `json:"hubPids"`
	PostgresPID int       `json:"postgresPid,omitempty"`

	Idle      *IdleRate        `json:"idle,omitempty"`
	Phases    []Phase          `json:"phases"`
	FirstText *FirstTextReport `json:"firstText,omitempty"`
	Stop      *StopReport      `json:"stop,omitempty"`
	Realistic *RatioReport     `json:"realistic,omitempty"`

	// Memory per process group (hub, bench): at the start, after the
	// phases, and after --idle.
	MemoryStart     map[string]Memory  `json:"memoryStart"`
	MemoryEnd       map[string]Memory  `json:"memoryEnd"`
	MemoryAfterIdle *map[string]Memory `json:"memoryAfterIdle,omitempty"`

	Verified Verified `json:"verified"`
}

// Phase is one batch of turns of one system.
type Phase struct {
	Name           string    `json:"name"`
	System         string    `json:"system"` // hub, plain
	Turns          int       `json:"turns"`
	InFlight       int       `json:"inFlight"`
	Errors         int       `json:"errors"`
	ErrorSamples   []string  `json:"errorSamples,omitempty"`
	Latency        Latencies `json:"latency"`
	WallMs         float64   `json:"wallMs"`
	TurnsPerSecond float64   `json:"turnsPerSecond"`
	// CPUPerTurnMs is each process group's CPU (user + system) over the
	// phase divided by its turns: hub, postgres, bench (the driver, the
	// stand-in model and, for the plain loop, the loop itself).
	CPUPerTurnMs      map[string]float64 `json:"cpuPerTurnMs"`
	CPUTotalPerTurnMs float64            `json:"cpuTotalPerTurnMs"`
	// DB is pg_stat_database's deltas per turn, less the idle background
	// over the phase and the wait for the counters; DBRaw is without that.
	DB       *DBPerTurn `json:"dbPerTurn,omitempty"`
	DBRaw    *DBPerTurn `json:"dbPerTurnRaw,omitempty"`
	HubRSSMB float64    `json:"hubRssMb"`
}

// IdleRate is what Hub's processes and database do with no turn running,
// per second (measured before the phases, after the warm-up): the
// background in every phase's figures, including the 11 s after each
// phase the bench waits for Postgres's counters.
type IdleRate struct {
	Seconds              float64            `json:"seconds"`
	CPUMsPerSecond       map[string]float64 `json:"cpuMsPerSecond"`
	CommitsPerSecond     float64            `json:"commitsPerSecond"`
	RowsWrittenPerSecond float64            `json:"rowsWrittenPerSecond"`
	FetchedPerSecond     float64            `json:"fetchedPerSecond"`
}

// DBPerTurn is pg_stat_database's deltas over a phase, per turn.
type DBPerTurn struct {
	Commits   float64 `json:"commits"`
	Rollbacks float64 `json:"rollbacks"`
	Inserted  float64 `json:"inserted"`
	Updated   float64 `json:"updated"`
	Deleted   float64 `json:"deleted"`
	Returned  float64 `json:"returned"`
	Fetched   float64 `json:"fetched"`
}

// FirstTextReport is turn POST → the first text frame on the stream, and
// the model's first chunk → that frame (Hub's part of it).
type FirstTextReport struct {
	FromTurnPost        Latencies `json:"fromTurnPost"`
	FromModelFirstChunk Latencies `json:"fromModelFirstChunk"`
}

// StopReport is POST stop mid-stream → the model's request disconnected,
// and → the done frame (status stopped).
type StopReport struct {
	ToModelDisconnect Latencies `json:"toModelDisconnect"`
	ToDoneFrame       Latencies `json:"toDoneFrame"`
}

// RatioReport compares sequential turns of both systems when the model
// waits DelayMs before each reply.
type RatioReport struct {
	DelayMs float64   `json:"delayMs"`
	Hub     Latencies `json:"hub"`
	Plain   Latencies `json:"plain"`
	Ratio   float64   `json:"ratio"` // Hub's median / the plain loop's
}

// Memory is a process group's resident memory.
type Memory struct {
	RSSMB  float64 `json:"rssMb"`
	PeakMB float64 `json:"peakMb"` // VmHWM
}

// Verified is what the api shows of the run's writes afterwards.
type Verified struct {
	HubTurnsDone   int `json:"hubTurnsDone"`
	PlainTurnsDone int `json:"plainTurnsDone"`
	TasksExpected  int `json:"tasksExpected"`
	TasksFound     int `json:"tasksFound"`
	Duplicates     int `json:"duplicates"`
}

// WriteJSON prints the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(r)
}

// WriteText prints the report as tables for a person (and for
// docs/benchmarks.md).
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "hub bench %s, %s, %s: %s on %s, model %s\n", r.RunID, r.Started.Format(time.RFC3339), cpus(r.CPUs), r.Hub, r.Database, r.ModelURL)
	fmt.Fprintf(w, "load average %s at the start, %s at the end\n\n", loads(r.Load), loads(r.LoadEnd))

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	groups := r.cpuGroups()
	head := "system\tphase\tturns\terrors\tmedian ms\tp99 ms\tturns/s\tCPU/turn ms (all)"
	for _, g := range groups {
		head += "\tCPU " + g
	}
	if r.hasDB() {
		head += "\tcommits/turn\tins/turn\tupd/turn\tdel/turn\tfetched/turn"
	}
	fmt.Fprintln(tw, head+"\thub RSS MB\t")
	for _, p := range r.Phases {
		line := fmt.Sprintf("%s\t%s\t%d\t%d\t%.1f\t%.1f\t%.1f\t%.1f", p.System, p.Name, p.Turns, p.Errors, p.Latency.Median, p.Latency.P99, p.TurnsPerSecond, p.CPUTotalPerTurnMs)
		for _, g := range groups {
			line += fmt.Sprintf("\t%.1f", p.CPUPerTurnMs[g])
		}
		if r.hasDB() {
			if d := p.DB; d != nil {
				line += fmt.Sprintf("\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f", d.Commits, d.Inserted, d.Updated, d.Deleted, d.Fetched)
			} else {
				line += "\t\t\t\t\t"
			}
		}
		fmt.Fprintln(tw, line+fmt.Sprintf("\t%.0f\t", p.HubRSSMB))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	if i := r.Idle; i != nil {
		var cpu []string
		for _, g := range groups {
			cpu = append(cpu, fmt.Sprintf("%s %.1f", g, i.CPUMsPerSecond[g]))
		}
		fmt.Fprintf(w, "idle (no turn, %.1f s): CPU ms/s %s", i.Seconds, strings.Join(cpu, ", "))
		if r.hasDB() {
			fmt.Fprintf(w, "; %.1f commits/s, %.1f rows written/s, %.1f fetched/s", i.CommitsPerSecond, i.RowsWrittenPerSecond, i.FetchedPerSecond)
		}
		fmt.Fprintln(w)
	}
	if f := r.FirstText; f != nil {
		fmt.Fprintf(w, "first text frame: turn POST → first text on the stream median %.1f ms, p99 %.1f ms; the model's first chunk → that frame median %.1f ms, p99 %.1f ms (%d turns)\n",
			f.FromTurnPost.Median, f.FromTurnPost.P99, f.FromModelFirstChunk.Median, f.FromModelFirstChunk.P99, f.FromTurnPost.N)
	}
	if s := r.Stop; s != nil {
		fmt.Fprintf(w, "stop mid-stream → model request disconnected: median %.1f ms, p99 %.1f ms; → done frame (stopped): median %.1f ms, p99 %.1f ms (%d turns)\n",
			s.ToModelDisconnect.Median, s.ToModelDisconnect.P99, s.ToDoneFrame.Median, s.ToDoneFrame.P99, s.ToModelDisconnect.N)
	}
	if rt := r.Realistic; rt != nil {
		fmt.Fprintf(w, "model waits %.0f ms before each reply: hub median %.1f ms, plain loop median %.1f ms: ratio %.3f (%d turns each)\n",
			rt.DelayMs, rt.Hub.Median, rt.Plain.Median, rt.Ratio, rt.Hub.N)
	}
	fmt.Fprintf(w, "memory: %s\n", r.memoryLine())
	v := r.Verified
	fmt.Fprintf(w, "written through the api: %d of %d tasks (%d hub turns done, %d plain turns), %d duplicates\n",
		v.TasksFound, v.TasksExpected, v.HubTurnsDone, v.PlainTurnsDone, v.Duplicates)
	return nil
}

func (r *Report) cpuGroups() []string {
	var gs []string
	for _, p := range r.Phases {
		for g := range p.CPUPerTurnMs {
			if !slices.Contains(gs, g) {
				gs = append(gs, g)
			}
		}
	}
	order := map[string]int{"hub": 0, "api": 1, "worker": 2, "temporal": 3, "postgres": 4, "bench": 5}
	slices.SortFunc(gs, func(a, b string) int { return order[a] - order[b] })
	return gs
}

func (r *Report) hasDB() bool {
	for _, p := range r.Phases {
		if p.DB != nil {
			return true
		}
	}
	return false
}

func (r *Report) memoryLine() string {
	hub := hubMemory
	s := fmt.Sprintf("hub RSS %.0f MB at the start, %.0f MB after the phases", hub(r.MemoryStart).RSSMB, hub(r.MemoryEnd).RSSMB)
	if r.MemoryAfterIdle != nil {
		s += fmt.Sprintf(", %.0f MB after idling", hub(*r.MemoryAfterIdle).RSSMB)
	}
	return s + fmt.Sprintf("; peak (VmHWM) %.0f MB; bench %.0f MB", hub(r.MemoryEnd).PeakMB, r.MemoryEnd["bench"].RSSMB)
}

// hubMemory sums the memory of Hub's processes (all but the bench).
func hubMemory(m map[string]Memory) Memory {
	var sum Memory
	for g, v := range m {
		if g != "bench" {
			sum.RSSMB += v.RSSMB
			sum.PeakMB += v.PeakMB
		}
	}
	return sum
}

func loads(l []float64) string {
	var s []string
	for _, v := range l {
		s = append(s, fmt.Sprintf("%.2f", v))
	}
	return strings.Join(s, " ")
}

func cpus(n int) string {
	if n == 1 {
		return "1 CPU"
	}
	return fmt.Sprintf("%d CPUs", n)
}
