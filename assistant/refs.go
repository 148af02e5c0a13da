package assistant

import (
	"sort"
	"strings"

	"hub/chat"
	"hub/tools"
)

// Humanize replaces the ids of known records in display text with their
// titles.
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
// as links, so a later model call still has the ids. An applied call says
// what Apply did, and one whose Apply stopped partway what was done and
// where it stopped.
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
		refs, line := c.Refs, c.Summary
		switch r := c.Receipt; {
		case c.Status == chat.CallApplied:
			if r != nil && r.Summary != "" {
				line = r.Summary
			}
			line = "Proposed, then applied by the person: " + line
		case c.Status == chat.CallHeld && r != nil && r.Status == chat.ReceiptFailed && len(r.Refs) > 0:
			refs = r.Refs
			line = "Proposed; the person's Apply did part of it: " + r.Summary + " " + r.ErrorMessage
		case c.Status == chat.CallHeld:
			line = "Proposed (waiting for Apply): " + line
		}
		if len(refs) == 0 || c.Summary == "" {
			continue
		}
		lines = append(lines, line+" Records: "+links(refs))
	}
	return strings.Join(lines, "\n")
}
