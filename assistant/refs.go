package assistant

import (
	"sort"
	"strings"

	"hub/chat"
	"hub/tools"
)

// Humanize replaces the ids of known records in display text with their
// titles: people read titles, and a summary that still names an id shows
// the record's title instead.
func Humanize(text string, known map[string]string) string {
	if text == "" || len(known) == 0 {
		return text
	}
	ids := make([]string, 0, len(known))
	for id := range known {
		if strings.Contains(text, id) {
			ids = append(ids, id)
		}
	}
	// Longest first, so an id that contains another is replaced whole.
	sort.Slice(ids, func(i, j int) bool { return len(ids[i]) > len(ids[j]) })
	for _, id := range ids {
		text = strings.ReplaceAll(text, id, "“"+known[id]+"”")
	}
	return text
}

// WritesNote renders the writes an earlier reply made, with their records
// as links, so a later model call still has the ids ("Added 1 task: [Buy
// milk](hub://task/task_…)").
func WritesNote(calls []chat.ToolCall, reg *tools.Registry) string {
	if reg == nil {
		return ""
	}
	var lines []string
	for _, c := range calls {
		if c.Status != chat.CallDone && c.Status != chat.CallHeld && c.Status != chat.CallApplied {
			continue
		}
		if d, ok := reg.Get(c.Tool); !ok || !d.IsWrite {
			continue
		}
		if len(c.Refs) == 0 || c.Summary == "" {
			continue
		}
		line := c.Summary
		switch c.Status {
		case chat.CallHeld:
			line = "Proposed (waiting for Apply): " + line
		case chat.CallApplied:
			line = "Proposed, then applied by the person: " + line
		}
		var links []string
		for _, r := range c.Refs {
			links = append(links, Link(r))
		}
		lines = append(lines, line+" Records: "+strings.Join(links, ", "))
	}
	return strings.Join(lines, "\n")
}
