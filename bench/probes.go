package bench

import (
	"context"
	"fmt"
	"time"
)

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
