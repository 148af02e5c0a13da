package assistant

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"hub/workspace"
)

// MaxSelectedTextChars bounds the selected text a client may send.
const MaxSelectedTextChars = 2000

// TurnContext is what goes in front of the person's message: today, what is
// on screen, and the records they mentioned. Only what is there is written.
type TurnContext struct {
	Now      time.Time
	Location *time.Location
	Mentions []workspace.Ref
	Page     string  // the client's "context" object, passed on as data, never as instructions
	Recipe   string  // the one-line recipe of a simple todo request
	Guides   []Guide // the playbooks the message preloads
	// Spaces are the spaces a turn may act in, its conversation's first,
	// when it may act in more than one.
	Spaces     []workspace.Space
	Unresolved []Unresolved // typed mentions that named no single record
	// Open, Selected and PageNotes are the page context's ids as resolved
	// in the space (ResolveScreen); Page then holds only ids that resolved.
	Open      *OpenItem
	Selected  []workspace.Ref
	PageNotes []string
	Changed   []workspace.ChangedRecord // records others changed since the person's last message, newest first
}

// MaxChangedLines bounds the "since your last message" note, the last line
// saying how many more there are.
const MaxChangedLines = 10

// ChangedNoteHeading opens the note on records others changed.
const ChangedNoteHeading = "Since the person's last message, others changed (read a record again before relying on what you knew of it):"

// Render writes the context block.
func (c TurnContext) Render() string {
	loc := cmp.Or(c.Location, time.UTC)
	now := c.Now.In(loc)
	_, week := now.ISOWeek()
	var b strings.Builder
	b.WriteString("<context>\n")
	fmt.Fprintf(&b, "Today: %s, %s (week %d, time zone %s)\n", now.Weekday(), now.Format(time.DateOnly), week, loc.String())
	if len(c.Mentions) > 0 {
		b.WriteString("Mentioned:\n")
		for _, m := range c.Mentions {
			fmt.Fprintf(&b, "- %s\n", Link(m))
		}
	}
	if len(c.Unresolved) > 0 {
		b.WriteString("Typed mentions not resolved (they stay as typed in the message):\n")
		for _, u := range c.Unresolved {
			fmt.Fprintf(&b, "- %s: %s\n", pageData(u.Typed), u.Reason)
		}
	}
	if c.Open != nil {
		fmt.Fprintf(&b, "Open item: %s", Link(c.Open.Ref))
		if len(c.Open.Facts) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(c.Open.Facts, ", "))
		}
		b.WriteString("\n")
	}
	if len(c.Selected) > 0 {
		fmt.Fprintf(&b, "Selected: %s\n", links(c.Selected))
	}
	if page := strings.TrimSpace(c.Page); page != "" && page != "{}" && page != "null" {
		fmt.Fprintf(&b, "On screen: %s\n", pageData(page))
	}
	for _, n := range c.PageNotes {
		fmt.Fprintf(&b, "Left out of the page: %s\n", n)
	}
	if len(c.Changed) > 0 {
		b.WriteString(ChangedNoteHeading + "\n")
		for i, ch := range c.Changed {
			if i == MaxChangedLines-1 && len(c.Changed) > MaxChangedLines {
				fmt.Fprintf(&b, "- and %d more\n", len(c.Changed)-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", changedLine(ch))
		}
	}
	if len(c.Spaces) > 1 {
		b.WriteString("Spaces you can act in (the first is this chat's; give a tool call \"space\", a name or id, to act in another):\n")
		for _, s := range c.Spaces {
			fmt.Fprintf(&b, "- %s, id %s, as %s\n", Link(workspace.Ref{Kind: "space", ID: s.ID, Label: s.Name}), s.ID, s.Role)
		}
	}
	if c.Recipe != "" {
		fmt.Fprintf(&b, "Recipe: %s\n", c.Recipe)
	}
	for _, g := range c.Guides {
		fmt.Fprintf(&b, "<guide name=%q>\n%s\n</guide>\n", g.Name, g.Text)
	}
	b.WriteString("</context>")
	return b.String()
}

// PagePath reads the open page's path from the client's context ("path"),
// which only breaks playbook routing ties.
func PagePath(page string) string {
	var v struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(page), &v) != nil {
		return ""
	}
	return v.Path
}

// pageData renders the client's context as one line of JSON with "<" and
// ">" escaped, so nothing a page holds can close the <context> block and
// speak as the system. Text that is not JSON goes as a JSON string.
func pageData(page string) string {
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(page)); err != nil {
		b, _ := json.Marshal(page) // a string always encodes
		return string(b)
	}
	var escaped bytes.Buffer
	json.HTMLEscape(&escaped, compact.Bytes())
	return escaped.String()
}

// labelEscaper backslash-escapes what would end a link's text early or
// open a tag: a title is data.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`)

// Link names a record for the model: its title as a link carrying the id.
func Link(r workspace.Ref) string {
	return fmt.Sprintf("[%s](hub://%s/%s)", labelEscaper.Replace(r.Label), r.Kind, url.PathEscape(r.ID))
}

// links names records as Links, comma-separated.
func links(refs []workspace.Ref) string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = Link(r)
	}
	return strings.Join(out, ", ")
}

// changedLine names a record someone else changed and who: "[Draft
// brief](hub://task/…) updated by Ken Ito".
func changedLine(c workspace.ChangedRecord) string {
	what, name := "changed", Link(workspace.Ref{Kind: c.Kind, ID: c.ID, Label: c.Title})
	switch c.Op {
	case workspace.OpCreated:
		what = "added"
	case workspace.OpDeleted:
		what, name = "deleted", "“"+labelEscaper.Replace(c.Title)+"”"
		if c.Kind == workspace.KindPerson {
			what = "removed from the space" // the person is still someone, elsewhere
		}
	}
	return fmt.Sprintf("%s %s by %s", name, what, labelEscaper.Replace(strings.Join(c.By, ", ")))
}
