package stream

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"hub/notify"
	"hub/storage"
)

// Channel is the Postgres channel frames of every log are announced on.
const Channel = "hub_frames"

// notifyPayload is "<origin> <log>": a stored frame's adds its number and
// frameSuffix.
func notifyPayload(origin, log string) string { return origin + " " + log }

// maxPayload is the longest payload Postgres takes (< 8000 bytes).
const maxPayload = 7999

// maxCarried bounds the frame a notification carries, to keep Postgres's
// shared notification queue small (docs/architecture.md, "Frames").
const maxCarried = 2048

// frameTime is a frame's stored time, as Postgres keeps it (microseconds).
func frameTime() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// frameSuffix is what follows the frame's number in its notification,
// " <created, Unix ns> <type> <data>", or "" when it would not fit (20
// bytes are kept for the number).
func frameSuffix(origin string, row *storage.Frame) string {
	suffix := " " + strconv.FormatInt(row.CreatedAt.UnixNano(), 10) + " " + row.Type + " " + row.Data
	if len(row.Data) > maxCarried || len(notifyPayload(origin, row.Log))+1+20+len(suffix) > maxPayload {
		return ""
	}
	return suffix
}

// parseNotification reads a payload of Channel: its origin and log, and
// the frame when it carries one.
func parseNotification(payload string) (origin, log string, f Frame, carried bool) {
	fields := strings.SplitN(payload, " ", 6)
	if len(fields) < 2 {
		return "", "", Frame{}, false
	}
	origin, log = fields[0], fields[1]
	if len(fields) < 6 {
		return origin, log, Frame{}, false
	}
	seq, serr := strconv.ParseInt(fields[2], 10, 64)
	created, cerr := strconv.ParseInt(fields[3], 10, 64)
	if serr != nil || cerr != nil || fields[4] == "" || !json.Valid([]byte(fields[5])) {
		return origin, log, Frame{}, false
	}
	return origin, log, Frame{Seq: seq, Type: fields[4], Data: json.RawMessage(fields[5]),
		CreatedAt: time.Unix(0, created).UTC()}, true
}

// register has the process's notifier wake this Bus's followers, once.
func (b *Bus) register() {
	b.listen.Do(func() {
		b.n.Listen(Channel, notify.Handler{Notified: b.notified, Connected: b.wakeAll, Poll: b.poll})
	})
}

// notified hands over a notification's frame, or wakes its log; this
// Bus's own are skipped (handed over already).
func (b *Bus) notified(payload string) {
	origin, log, f, carried := parseNotification(payload)
	switch {
	case origin == "" || origin == b.origin:
	case carried:
		b.handOver(log, f)
	default:
		b.wake(log)
	}
}

// headBatch bounds the logs named in one read of heads.
const headBatch = 500

// poll is the safety net: a followed turn quiet for half a poll interval
// is read anew, and one query reads the heads of the logs with a head,
// waking those whose head moved.
func (b *Bus) poll(ctx context.Context) {
	quiet := b.n.PollInterval() / 2
	var heads []string
	b.mu.Lock()
	for log, t := range b.logs {
		switch {
		case !t.turn:
			heads = append(heads, log)
		case time.Since(t.fresh) > quiet:
			b.wakeLog(log, t)
		}
	}
	b.mu.Unlock()
	for chunk := range slices.Chunk(heads, headBatch) {
		var rows []storage.FrameHead
		if err := b.db.Q(ctx).Where("log IN ?", chunk).Find(&rows).Error; err != nil {
			return
		}
		b.mu.Lock()
		for _, h := range rows {
			if t := b.logs[h.Log]; t != nil && h.Seq > t.polled {
				t.polled = h.Seq
				b.wakeLog(h.Log, t)
			}
		}
		b.mu.Unlock()
	}
}
