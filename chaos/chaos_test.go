//go:build chaos

package chaos

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"hub/dbtest"
	"hub/fakemodel"
	"hub/hubtest"
	"hub/temporal"
)

// script answers every chaos turn with two task writes in one step, then
// with a short answer; both calls stream slowly enough (about half a
// second each) that kills land inside them as well as between them.
const script = `{"name": "chaos", "rules": [
  {"name": "two writes", "match": {"lastUser": "chaos (turn|apply) (\\d+) a", "afterToolResult": false},
   "reply": {"toolCalls": [
     {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "chaos {{index .Groups 1}} {{index .Groups 2}} a"}]}},
     {"name": "hub_create_tasks", "arguments": {"tasks": [{"title": "chaos {{index .Groups 1}} {{index .Groups 2}} b"}]}}],
    "usage": {"input": 300, "output": 40}, "chunkSize": 8, "firstTokenDelay": "150ms", "chunkDelay": "25ms"}},
  {"name": "answer", "match": {"afterToolResult": true},
   "reply": {"text": "Both are in your list now: {{.LastToolSummary}}. Ask again if you need more.",
    "usage": {"input": 400, "output": 25}, "chunkSize": 6, "firstTokenDelay": "150ms", "chunkDelay": "25ms"}}]}`

// settings are the run's knobs, from the environment.
type settings struct {
	seed        uint64
	turns       int
	applies     int
	concurrency int
	apiKills    int
	budget      time.Duration
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number ≥ 0", name, v)
	}
	return n
}

func readSettings(t *testing.T) settings {
	s := settings{
		turns:       envInt(t, "HUB_CHAOS_TURNS", 50),
		applies:     envInt(t, "HUB_CHAOS_APPLIES", 20),
		concurrency: max(envInt(t, "HUB_CHAOS_CONCURRENCY", 8), 1),
		apiKills:    envInt(t, "HUB_CHAOS_API_KILLS", 2),
		budget:      15 * time.Minute,
	}
	if v := os.Getenv("HUB_CHAOS_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("HUB_CHAOS_BUDGET=%q: %v", v, err)
		}
		s.budget = d
	}
	if dl, ok := t.Deadline(); ok && time.Until(dl)-2*time.Minute < s.budget {
		s.budget = time.Until(dl) - 2*time.Minute // leave time to check and to stop everything
	}
	s.seed = uint64(time.Now().UnixNano())
	if v := os.Getenv("HUB_CHAOS_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("HUB_CHAOS_SEED=%q: want a whole number", v)
		}
		s.seed = n
	}
	return s
}

// op is one unit of work: a turn (two immediate writes) or an Apply (a
// turn that proposes two writes under the preview policy, then Apply).
type op struct {
	kind string // "turn" or "apply"
	n    int
}

func (o op) titles() []string {
	return []string{fmt.Sprintf("chaos %s %d a", o.kind, o.n), fmt.Sprintf("chaos %s %d b", o.kind, o.n)}
}

// outcome is what the client saw of one op.
type outcome struct {
	op
	conv, turnID, reply string
	doneStatus          string // the done frame's status
	turnStatus          string // GET /api/assistant/turns/:id afterwards
	streamed            string // the reply text as the stream gave it
	reconnects          int
	misnumbered         int
	receipts            []receipt
	start, end          time.Time
	applyStart          time.Time // the Apply request, for apply ops
	applyEnd            time.Time
	err                 error
}

// TestChaos runs Hub in its production shape and kills its worker with
// SIGKILL at random points of many turns and Applies (and the api now and
// then), restarting it each time; every turn must end done, every write
// must be there exactly once. See docs/testing.md, "make chaos".
func TestChaos(t *testing.T) {
	cfg := readSettings(t)
	t0 := time.Now()
	t.Logf("chaos: seed %d (HUB_CHAOS_SEED=%d repeats the kill plan), %d turns, %d Applies, %d at a time, %d api kills, budget %s",
		cfg.seed, cfg.seed, cfg.turns, cfg.applies, cfg.concurrency, cfg.apiKills, cfg.budget)
	rng := rand.New(rand.NewPCG(cfg.seed, cfg.seed^0x9e3779b97f4a7c15))

	db := dbtest.Postgres(t)
	ts, err := temporal.Start(context.Background(), temporal.Options{FrontendAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatalf("start Temporal: %v", err)
	}
	t.Cleanup(func() { _ = ts.Stop() })
	model := fakemodel.New(fakemodel.MustParseScript(script))
	modelURL, err := model.Start("127.0.0.1:0")
	if err != nil {
		t.Fatalf("start the scripted model: %v", err)
	}
	t.Cleanup(func() { _ = model.Close() })
	bin := buildHub(t)
	dir := t.TempDir()
	env := []string{"DATABASE_URL=" + db, "TEMPORAL_ADDRESS=" + ts.FrontendHostPort(), "TEMPORAL_NAMESPACE=" + ts.Namespace(),
		"OPENAI_BASE_URL=" + modelURL, "OPENAI_API_KEY=chaos", "HUB_HTTP_ADDR=127.0.0.1:0"}

	run := func(args ...string) string {
		p, err := startProc(bin, dir, env, args[0], args...)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.reap(); err != nil {
			t.Fatalf("hub %v: %v\n%s", args, err, p.tail())
		}
		return strings.TrimSpace(p.tail())
	}
	run("migrate")
	if err := addCommitTrigger(t.Context(), db); err != nil {
		t.Fatalf("add the commit trigger: %v", err)
	}
	ada := lastLine(run("token", "create", "--create", "--space", "Chaos", "--person", "Ada Lovelace"))
	grace := lastLine(run("token", "create", "--create", "--space", "Chaos", "--person", "Grace Hopper", "--role", "editor"))

	worker := &role{name: "worker", bin: bin, dir: dir, env: env, ready: regexp.MustCompile(`hub worker polling`)}
	api := &role{name: "api", bin: bin, dir: dir, env: env, ready: regexp.MustCompile(`listening on (\S+)`)}
	// Stop them on every way out, a failure included (cleanups run last in,
	// first out: before the model, Temporal and the database go).
	t.Cleanup(func() {
		for _, r := range []*role{api, worker} {
			if err := r.stop(); err != nil {
				t.Errorf("%v\n%s", err, r.tail())
			}
		}
	})
	if _, err := worker.start(); err != nil {
		t.Fatal(err)
	}
	m, err := api.start()
	if err != nil {
		t.Fatal(err)
	}
	// The api comes back on the same address after a kill, as behind a
	// load balancer: clients reconnect to it.
	api.env = append(append([]string(nil), env...), "HUB_HTTP_ADDR="+m[1])
	base := "http://" + m[1]

	var retries sync.Map // route → *atomic.Int32
	onRetry := func(what, why string) {
		v, _ := retries.LoadOrStore(what+" ("+why+")", new(atomic.Int32))
		if v.(*atomic.Int32).Add(1) == 1 && !strings.Contains(what, "stream") {
			t.Logf("retry: %s: %s", what, why)
		}
	}
	httpc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	owner := &client{base: base, token: ada, http: httpc, onRetry: onRetry}
	editor := &client{base: base, token: grace, http: httpc, onRetry: onRetry}

	setup, cancelSetup := context.WithTimeout(context.Background(), time.Minute)
	defer cancelSetup()
	for ready := false; !ready; {
		status, _, _ := owner.do(setup, "GET", "/readyz", nil)
		ready = status == http.StatusOK
		if !ready && pause(setup, 1) != nil {
			t.Fatal("the api is not ready after a minute")
		}
	}
	var spaces struct{ Spaces []struct{ ID string } }
	if _, err := owner.call(setup, "GET", "/api/spaces", nil, &spaces, false); err != nil || len(spaces.Spaces) != 1 {
		t.Fatalf("spaces: %v %+v", err, spaces)
	}
	space := spaces.Spaces[0].ID
	if _, err := owner.call(setup, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "immediate"}, nil, false); err != nil {
		t.Fatal(err)
	}
	if _, err := editor.call(setup, "PATCH", "/api/me/settings", map[string]any{"writePolicy": "preview"}, nil, false); err != nil {
		t.Fatal(err)
	}

	// The work, in a random order, cfg.concurrency at a time.
	var ops []op
	for i := 1; i <= cfg.turns; i++ {
		ops = append(ops, op{"turn", i})
	}
	for i := 1; i <= cfg.applies; i++ {
		ops = append(ops, op{"apply", i})
	}
	rng.Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })

	work, stopWork := context.WithTimeout(context.Background(), cfg.budget)
	defer stopWork()
	var finished atomic.Int32
	applying := newInFlightApplies(cfg.applies)
	progress := make(chan struct{}, 1)
	k := &killer{rng: rng, model: model, db: db, worker: worker, api: api, applying: applying, finished: &finished,
		progress: progress, logf: t.Logf}
	for i := 1; i <= cfg.apiKills; i++ {
		k.apiKillsAt = append(k.apiKillsAt, int32(len(ops)*i/(cfg.apiKills+1)))
	}
	killCtx, stopKiller := context.WithCancel(work)
	killerDone := make(chan error, 1)
	go func() { killerDone <- k.run(killCtx) }()

	outcomes := make([]outcome, len(ops))
	queue := make(chan int)
	var wg sync.WaitGroup
	for range cfg.concurrency {
		wg.Go(func() {
			for i := range queue {
				o := ops[i]
				c := owner
				if o.kind == "apply" {
					c = editor
				}
				ctx, cancel := context.WithTimeout(work, 5*time.Minute)
				outcomes[i] = runOp(ctx, c, space, o, applying)
				cancel()
				r := outcomes[i]
				if r.err != nil {
					t.Logf("%s %d: %v", o.kind, o.n, r.err)
				}
				finished.Add(1)
				select {
				case progress <- struct{}{}:
				default:
				}
			}
		})
	}
	for i := range ops {
		queue <- i
	}
	close(queue)
	wg.Wait()
	stopKiller()
	if err := <-killerDone; err != nil {
		t.Errorf("killer: %v", err)
	}
	workTime := time.Since(t0)

	// Now nothing is killed: read what Hub saved.
	check, cancelCheck := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancelCheck()
	counts, err := taskTitles(check, owner, space)
	if err != nil {
		t.Fatalf("read the tasks: %v", err)
	}
	r := judge(check, owner, editor, outcomes, counts)
	kills := k.all()
	workerKills, apiKills, midModel, midWrite, afterCommit, midApply, between, withApply := 0, 0, 0, 0, 0, 0, 0, 0
	for _, kl := range kills {
		if kl.what == "api" {
			apiKills++
			continue
		}
		workerKills++
		if kl.applies > 0 {
			withApply++
		}
		switch {
		case kl.midWrite:
			midWrite++
		case kl.afterCommit:
			afterCommit++
		case kl.model > 0:
			midModel++
		case kl.applies > 0:
			midApply++
		default:
			between++
		}
	}
	hit, applyHit := 0, 0
	var durations, untouched, applyTimes []time.Duration
	for _, o := range outcomes {
		durations = append(durations, o.end.Sub(o.start))
		if !o.applyStart.IsZero() {
			applyTimes = append(applyTimes, o.applyEnd.Sub(o.applyStart))
		}
		during := func(from, to time.Time) bool {
			for _, kl := range kills {
				if kl.what == "worker" && kl.at.After(from) && kl.at.Before(to) {
					return true
				}
			}
			return false
		}
		if during(o.start, o.end) {
			hit++
		} else {
			untouched = append(untouched, o.end.Sub(o.start))
		}
		if !o.applyStart.IsZero() && during(o.applyStart, o.applyEnd) {
			applyHit++
		}
	}
	quantiles := func(ds []time.Duration) string {
		if len(ds) == 0 {
			return "none"
		}
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		q := func(f float64) time.Duration { return ds[int(f*float64(len(ds)-1))].Round(100 * time.Millisecond) }
		return fmt.Sprintf("median %s, 90th percentile %s, longest %s", q(0.5), q(0.9), q(1))
	}
	var retryLines []string
	retries.Range(func(key, v any) bool {
		retryLines = append(retryLines, fmt.Sprintf("%s ×%d", key, v.(*atomic.Int32).Load()))
		return true
	})
	sort.Strings(retryLines)

	t.Logf("chaos report (seed %d, %s, %d CPUs):", cfg.seed, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU())
	t.Logf("  turns finished:   %d of %d (ended done)", r.turnsDone, cfg.turns)
	t.Logf("  Applies finished: %d of %d (every receipt succeeded)", r.appliesDone, cfg.applies)
	t.Logf("  writes doubled:   %d (task titles written more than once)", r.doubled)
	t.Logf("  writes lost:      %d (task titles missing, or a receipt/tool call not succeeded)", r.lost)
	t.Logf("  kills:            %d of the worker (%d with a write's transaction open, %d right after a write committed, %d more mid model call, %d more mid Apply request, %d between; %d in all with an Apply request in flight), %d of the api",
		workerKills, midWrite, afterCommit, midModel, midApply, between, withApply, apiKills)
	t.Logf("  operations hit by a worker kill while they ran: %d of %d; Apply requests hit by one: %d of %d", hit, len(ops), applyHit, cfg.applies)
	t.Logf("  stream frames misnumbered (gap or repeat): %d; replies whose streamed text ≠ saved text: %d", r.misnumbered, r.textDiffers)
	t.Logf("  client retries: %s", strings.Join(append(retryLines, "(none)")[:max(len(retryLines), 1)], ", "))
	t.Logf("  operation time (a turn, or a turn and its Apply): %s", quantiles(durations))
	t.Logf("  operation time when no kill hit it: %s", quantiles(untouched))
	t.Logf("  Apply request time: %s", quantiles(applyTimes))
	t.Logf("  total time %s (setup and work %s)", time.Since(t0).Round(time.Second), workTime.Round(time.Second))
	for _, p := range r.problems {
		t.Errorf("%s", p)
	}
	if r.turnsDone != cfg.turns || r.doubled != 0 || r.lost != 0 || r.appliesDone != cfg.applies {
		t.Errorf("want %d turns / 0 doubled / 0 lost / %d Applies, got %d / %d / %d / %d", cfg.turns, cfg.applies,
			r.turnsDone, r.doubled, r.lost, r.appliesDone)
	}
	if t.Failed() {
		t.Logf("last output of hub worker:\n%s", worker.tail())
		t.Logf("last output of hub api:\n%s", api.tail())
	}
}

// lastLine is the last line of a command's output (hub token create prints
// the token alone on its last line; the log goes to the same pipe).
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// runOp runs one turn or one Apply as a client would.
func runOp(ctx context.Context, c *client, space string, o op, applying *inFlightApplies) (r outcome) {
	r.op, r.start = o, time.Now()
	defer func() { r.end = time.Now() }()
	if o.kind == "apply" {
		defer applying.left.Add(-1)
	}
	var conv struct{ ID string }
	if _, err := c.call(ctx, "POST", "/api/assistant/conversations", map[string]any{"spaceId": space, "title": o.kind + " " + strconv.Itoa(o.n)}, &conv, true); err != nil {
		r.err = err
		return r
	}
	r.conv = conv.ID
	titles := o.titles()
	st, err := c.ask(ctx, conv.ID, fmt.Sprintf("add two tasks: %s and %s", titles[0], titles[1]))
	if err != nil {
		r.err = err
		return r
	}
	r.turnID, r.reply = st.TurnID, st.ReplyMessageID
	f, err := c.follow(ctx, st.TurnID)
	r.reconnects, r.misnumbered, r.streamed = f.reconnects, f.misnumbered, hubtest.Text(f.events)
	if n := len(f.events); n > 0 && f.events[n-1].Type == "done" {
		r.doneStatus, _ = f.events[n-1].Data["status"].(string)
	}
	if err != nil {
		r.err = err
		return r
	}
	var turn struct{ Status string }
	if _, err := c.call(ctx, "GET", "/api/assistant/turns/"+st.TurnID, nil, &turn, true); err != nil {
		r.err = err
		return r
	}
	r.turnStatus = turn.Status
	if o.kind != "apply" || r.turnStatus != "done" {
		return r
	}
	applying.begin()
	r.applyStart = time.Now()
	r.receipts, r.err = c.apply(ctx, conv.ID, st.ReplyMessageID)
	r.applyEnd = time.Now()
	applying.end()
	return r
}

// taskTitles counts the space's tasks by title, page by page.
func taskTitles(ctx context.Context, c *client, space string) (map[string]int, error) {
	counts := map[string]int{}
	for offset := 0; ; {
		var page struct {
			Tasks      []struct{ Title string }
			NextOffset *int
		}
		if _, err := c.call(ctx, "GET", fmt.Sprintf("/api/spaces/%s/tasks?limit=200&offset=%d", space, offset), nil, &page, true); err != nil {
			return nil, err
		}
		for _, tk := range page.Tasks {
			counts[tk.Title]++
		}
		if page.NextOffset == nil {
			return counts, nil
		}
		offset = *page.NextOffset
	}
}

// verdict is the run's figures.
type verdict struct {
	turnsDone, appliesDone int
	doubled, lost          int
	misnumbered            int
	textDiffers            int
	problems               []string
}

// judge compares what the clients were told and what Hub saved with what
// each op asked for.
func judge(ctx context.Context, owner, editor *client, outcomes []outcome, counts map[string]int) verdict {
	var v verdict
	problem := func(format string, args ...any) { v.problems = append(v.problems, fmt.Sprintf(format, args...)) }
	expected := map[string]bool{}
	for _, o := range outcomes {
		func() {
			v.misnumbered += o.misnumbered
			name := fmt.Sprintf("%s %d", o.kind, o.n)
			missing := 0
			for _, title := range o.titles() {
				expected[title] = true
				switch n := counts[title]; {
				case n == 0:
					missing++
					problem("%s: task %q is missing (turn %s)", name, title, o.turnID)
				case n > 1:
					v.doubled += n - 1
					problem("%s: task %q was written %d times (turn %s)", name, title, n, o.turnID)
				}
			}
			if o.err != nil {
				problem("%s: %v", name, o.err)
			}
			if o.misnumbered > 0 {
				problem("%s: %d stream frames out of sequence over %d reconnects", name, o.misnumbered, o.reconnects)
			}
			// A write is lost when its record is missing or its tool call or
			// receipt does not say it succeeded.
			succeeded := 0
			defer func() { v.lost += max(missing, 2-succeeded) }()
			if o.conv == "" || o.turnID == "" {
				return
			}
			c := owner
			if o.kind == "apply" {
				c = editor
			}
			msgs, err := c.messages(ctx, o.conv)
			if err != nil {
				problem("%s: messages: %v", name, err)
				return
			}
			var reply *message
			for i := range msgs {
				if msgs[i].ID == o.reply {
					reply = &msgs[i]
				}
			}
			if reply == nil {
				problem("%s: reply %s is not in the conversation", name, o.reply)
				return
			}
			if reply.Text != o.streamed {
				v.textDiffers++
				problem("%s: the stream gave %q, the saved reply is %q", name, o.streamed, reply.Text)
			}
			turnOK := o.doneStatus == "done" && o.turnStatus == "done" && reply.Status == "done"
			if !turnOK {
				problem("%s: turn %s ended with done frame %q, status %q, reply %q", name, o.turnID, o.doneStatus, o.turnStatus, reply.Status)
			}
			switch o.kind {
			case "turn":
				calls := 0
				for _, tc := range reply.ToolCalls {
					if tc.Status == "done" {
						calls++
					} else {
						problem("%s: tool call %s %s is %q", name, tc.ID, tc.Tool, tc.Status)
					}
				}
				if calls != 2 && len(reply.ToolCalls) == calls {
					problem("%s: %d tool calls, want 2", name, calls)
				}
				succeeded = min(calls, 2)
				if turnOK && calls == 2 && len(reply.ToolCalls) == 2 {
					v.turnsDone++
				}
			case "apply":
				ok := len(o.receipts) == 2
				for _, rc := range o.receipts {
					if rc.Status == "succeeded" {
						succeeded = min(succeeded+1, 2)
					} else {
						ok = false
						problem("%s: receipt %s is %q (%+v)", name, rc.CallID, rc.Status, rc.Error)
					}
				}
				if len(o.receipts) != 2 {
					problem("%s: %d receipts, want 2", name, len(o.receipts))
				}
				for _, p := range reply.Proposals {
					if p.Status != "applied" {
						ok = false
						problem("%s: proposal %s is %q after Apply", name, p.CallID, p.Status)
					}
				}
				if turnOK && ok {
					v.appliesDone++
				}
			}
		}()
	}
	for title, n := range counts {
		if !expected[title] {
			v.doubled += n
			problem("task %q (%d) was asked for by no operation", title, n)
		}
	}
	return v
}
