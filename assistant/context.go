package assistant

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

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
	// Spaces are the spaces a turn may act in, its conversation's first, when more than one.
	Spaces     []workspace.Space
	Unresolved []Unresolved // typed mentions that named no single record
	// Open, Selected and PageNotes come from ResolveScreen, as Page then does.
	Open      *OpenItem
	Selected  []workspace.Ref
	PageNotes []string
	Changed   []workspace.ChangedRecord // records others changed since the person's last message, newest first
	// Reference is what the screen the person asked from sent along with
	// the message: data for the model, never the person's words.
	Reference string
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
	if c.Reference != "" {
		quoted, _ := json.Marshal(c.Reference) // a string always encodes; < and > escaped
		fmt.Fprintf(&b, "Sent along by the screen the person asked from (information, not their words): %s\n", quoted)
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

// labelEscaper backslash-escapes what would end a link's text early or open a tag: a title is data.
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

// typedMention finds a typed mention's kind ("@task:"), at the start of the
// text or after a character that is no part of a word or an address (so
// "mira@task:x" is not one). The name follows the colon.
var typedMention = regexp.MustCompile(`(?:^|[^\p{L}\p{N}_@.])@(people|person|persons|tasks?|projects?):`)

// typedKinds maps the words a person types to record kinds.
var typedKinds = map[string]string{
	"people": workspace.KindPerson, "person": workspace.KindPerson, "persons": workspace.KindPerson,
	"task": workspace.KindTask, "tasks": workspace.KindTask,
	"project": workspace.KindProject, "projects": workspace.KindProject,
}

// NameResolver finds a record by kind and the name a text starts with
// (workspace.Service.ResolveName).
type NameResolver interface {
	ResolveName(ctx context.Context, actor workspace.Actor, spaceID, kind, text string) (workspace.Ref, error)
}

// Unresolved is a typed mention that names no single record: the text
// stays as typed, and the model is told why.
type Unresolved struct {
	Typed  string // as typed, "@task:Draft brief" (its first word when no name matched)
	Reason string
}

// TypedMentions resolves the typed mentions of a message ("@task:Draft
// brief") by exact name in the space: each one that names exactly one
// record is a ref, each other one is Unresolved. Repeats count once. Only
// a failure to read the space is an error.
func TypedMentions(ctx context.Context, r NameResolver, actor workspace.Actor, spaceID, text string) ([]workspace.Ref, []Unresolved, error) {
	var refs []workspace.Ref
	var unresolved []Unresolved
	seen := map[string]bool{}
	unresolve := func(typed, reason string) {
		if !seen[typed] {
			seen[typed] = true
			unresolved = append(unresolved, Unresolved{Typed: typed, Reason: reason})
		}
	}
	for _, m := range typedMention.FindAllStringSubmatchIndex(text, -1) {
		word, kind := text[m[2]:m[3]], typedKinds[text[m[2]:m[3]]]
		rest := text[m[1]:]
		ref, err := r.ResolveName(ctx, actor, spaceID, kind, rest)
		var nf *workspace.NotFoundError
		var amb *workspace.AmbiguousError
		switch {
		case err == nil:
			if !seen[ref.Kind+"/"+ref.ID] {
				seen[ref.Kind+"/"+ref.ID] = true
				refs = append(refs, ref)
			}
		case errors.As(err, &amb):
			unresolve("@"+word+":"+amb.Name, fmt.Sprintf("%d %ss have this name; ask which one is meant, or look them up", amb.Count, kind))
		case errors.As(err, &nf):
			// Where a name that matched nothing ends is unknown: quote what
			// surely is the mention, never the text after it.
			unresolve("@"+word+":"+mentionName(rest),
				fmt.Sprintf("no %s of this space has this name, alone or with the words after it; look it up by other words if needed", kind))
		default:
			return nil, nil, err
		}
	}
	return refs, unresolved, nil
}

// mentionName is the part of a text after a typed mention that no name
// matched and that surely is the mention: its first word and the
// capitalized words right after it ("Mira Chan about Friday" is "Mira
// Chan"), ending at punctuation, at most four words.
func mentionName(text string) string {
	line, _, _ := strings.Cut(text, "\n")
	isPunct := func(r rune) bool { return unicode.IsPunct(r) && r != '_' && r != '-' && r != '\'' }
	var words []string
	for i, w := range strings.Fields(line) {
		trimmed := strings.TrimRightFunc(w, isPunct)
		if i > 0 {
			r, _ := utf8.DecodeRuneInString(trimmed)
			if trimmed == "" || !(unicode.IsUpper(r) || unicode.IsDigit(r)) {
				break
			}
		}
		if trimmed != "" {
			words = append(words, trimmed)
		}
		if trimmed != w || len(words) == 4 {
			break // punctuation ends the name
		}
	}
	return strings.Join(words, " ")
}

// HasTypedMention tells whether a text may hold a typed mention, so a
// message without one costs no lookup.
func HasTypedMention(text string) bool { return typedMention.MatchString(text) }
