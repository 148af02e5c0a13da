package activities

import (
	"strings"

	"hub/chat"
)

// MinOverlap is the shortest repeat of the reply so far (unless all of
// it) that a continued call's text loses: a shorter match is as likely to
// be the continuation's own words ("very, very").
const MinOverlap = 8

// continuable is the reply so far of a step a pause cut off, when a
// resumed call can go on from it (text, no tool call begun); else "": the
// step starts over.
func continuable(cur *chat.Step) string {
	if cur == nil || cur.FinishReason != chat.FinishInterrupted || len(cur.ToolCalls) > 0 || strings.TrimSpace(cur.Text) == "" {
		return ""
	}
	return cur.Text
}

// joiner joins a continued call's text to the reply so far, leaving out
// what the model repeats of it (overlap). It holds the continuation's text
// back only while it could still be such a repeat.
type joiner struct {
	partial string
	held    strings.Builder
	decided bool
	out     strings.Builder // what was let through
}

// Add takes a delta of the continuation and returns what to show now.
func (j *joiner) Add(delta string) string {
	if j.decided {
		j.out.WriteString(delta)
		return delta
	}
	j.held.WriteString(delta)
	h := j.held.String()
	if len(h) < len(j.partial) && strings.Contains(j.partial, h) {
		return "" // may still be a repeat
	}
	return j.decide()
}

// Flush ends the continuation and returns what was held back, less a repeat.
func (j *joiner) Flush() string {
	if j.decided {
		return ""
	}
	return j.decide()
}

// Out is the continuation as joined.
func (j *joiner) Out() string { return j.out.String() }

func (j *joiner) decide() string {
	j.decided = true
	h := j.held.String()
	rest := h[overlap(j.partial, h):]
	j.out.WriteString(rest)
	return rest
}

// overlap is how much of next's start repeats the end of partial: the
// longest such repeat of at least MinOverlap characters (or all of
// partial), else 0.
func overlap(partial, next string) int {
	for k := min(len(partial), len(next)); k > 0; k-- {
		if k < MinOverlap && k < len(partial) {
			return 0
		}
		if strings.HasSuffix(partial, next[:k]) {
			return k
		}
	}
	return 0
}
