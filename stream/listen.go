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

// Channel is the Postgres channel frames are announced on. One channel for
// every log keeps the listener to one LISTEN; the payload names the log.
const Channel = "hub_frames"

// notifyPayload is "<origin> <log>", far below NOTIFY's 8000-byte limit. A
// notification that only wakes (Ended, Reopen) carries no more; a stored
// frame's adds its number and, when it fits, the frame (frameSuffix).
func notifyPayload(origin, log string) string { return origin + " " + log }

// maxPayload is the longest payload Postgres takes: it must be shorter
// than 8000 bytes.
const maxPayload = 7999

// maxCarried bounds the frame a notification carries. Text deltas are
// coalesced to about 1 KiB and tool frames are a few hundred bytes, so
// nearly every frame travels in its notification; a larger one (a big
// proposal) is only announced and read from the table. The bound keeps
// Postgres's notification queue — shared by every listener, truncated only
// as far as the slowest has read, and a full queue fails every publish —
// at a few KiB per frame (docs/architecture.md, "Frames").
const maxCarried = 2048

// frameTime is a frame's stored time: Postgres keeps microseconds, so a
// frame handed over in memory or in a notification carries the time a
// read of the table would give.
func frameTime() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// frameSuffix is what follows the frame's number in its notification:
// " <created, Unix ns> <type> <data>", so the followers in other processes
// take the frame without reading it; or nothing when the payload would
// not fit (the followers then read the table). The number itself (20
// bytes at most) is filled in by publishSQL.
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
	seq, err := strconv.ParseInt(fields[2], 10, 64)
	if err != nil {
		return origin, log, Frame{}, false
	}
	created, err := strconv.ParseInt(fields[3], 10, 64)
	if err != nil || fields[4] == "" || !json.Valid([]byte(fields[5])) {
		return origin, log, Frame{}, false
	}
	return origin, log, Frame{Seq: seq, Type: fields[4], Data: json.RawMessage(fields[5]),
		CreatedAt: time.Unix(0, created).UTC()}, true
}

// register has the process's notifier wake this Bus's followers: a
// notification on Channel hands its frame over or wakes its log, the
// listener's (re)connect wakes every log, and the poll wakes those it
// finds behind (see poll). Once, with the first follower.
func (b *Bus) register() {
	b.listen.Do(func() {
		b.n.Listen(Channel, notify.Handler{Notified: b.notified, Connected: b.wakeAll, Poll: b.poll})
	})
}

// notified handles a notification on Channel. A notification either
// carries a frame, which followers take only when it is the next one they
// need (see handOver), or is a wake-up, after which they re-read the table
// after the last number they delivered. This process's own notifications
// are skipped: Publish handed their frames over already. One lost (the
// listener away) leaves a gap that the next frame carried shows, or the
// reconnect's wakeAll, or the poll.
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

// poll is the safety net. A followed turn that had neither a read started
// nor a frame handed over within the last half poll interval is read anew
// (its followers poll it together, and a turn whose frames flow is not
// read): only a read sees it gone or swept. The logs with a head cannot
// end: one query reads the heads of all of them, and those whose head
// moved since the last poll are read, however many clients follow.
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
		// A failed read is tried again at the next poll.
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
