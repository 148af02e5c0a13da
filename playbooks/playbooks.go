// Package playbooks holds the assistant's Markdown playbooks (*.md in this
// folder, embedded in the binary) and parses them. A playbook tells the
// model how to work in one request area and which tools it needs there;
// routing decides which playbooks a message preloads.
//
// Front matter is `key: value` lines between `---` fences: name, title and
// when are required; tools, match, paths, mentions, requires and include
// are optional (lists are comma-separated).
package playbooks

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
)

//go:embed *.md
var files embed.FS

// Playbook is one parsed playbook.
type Playbook struct {
	Name     string   // what hub_how_to takes
	Title    string   // a short heading
	When     string   // the index line: when to load it
	Tools    []string // shown while it is loaded
	Match    *regexp.Regexp
	Paths    []string // open paths that preload it
	Mentions []string // mention kinds that preload it
	Requires []string // tools the build must have, or it is not offered
	Include  string   // a shared playbook appended to this one
	Body     string   // the Markdown after the front matter
}

// All parses every shipped playbook, sorted by name. An error names the file and the line.
func All() ([]Playbook, error) { return Load(files) }

// Load parses every *.md file at the root of fsys.
func Load(fsys fs.FS) ([]Playbook, error) {
	names, err := fs.Glob(fsys, "*.md")
	if err != nil {
		return nil, err
	}
	var out []Playbook
	seen := map[string]string{}
	for _, n := range names {
		raw, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		p, err := Parse(n, string(raw))
		if err != nil {
			return nil, err
		}
		if other, dup := seen[p.Name]; dup {
			return nil, fmt.Errorf("%s: name %q is also used by %s", n, p.Name, other)
		}
		seen[p.Name] = n
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Playbook) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Parse reads one playbook file.
func Parse(file, text string) (Playbook, error) {
	var p Playbook
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return p, fmt.Errorf("%s:1: a playbook starts with a --- line and its front matter", file)
	}
	end := strings.Index(text[4:], "\n---")
	if end < 0 {
		return p, fmt.Errorf("%s: the front matter has no closing --- line", file)
	}
	head, body := text[4:4+end], text[4+end+4:]
	p.Body = strings.TrimSpace(strings.TrimPrefix(body, "\n"))
	texts := map[string]*string{"name": &p.Name, "title": &p.Title, "when": &p.When, "include": &p.Include}
	lists := map[string]*[]string{"tools": &p.Tools, "paths": &p.Paths, "mentions": &p.Mentions, "requires": &p.Requires}
	for i, line := range strings.Split(head, "\n") {
		lineNo := i + 2
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return p, fmt.Errorf("%s:%d: expected key: value, got %q", file, lineNo, line)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case texts[key] != nil:
			*texts[key] = value
		case lists[key] != nil:
			*lists[key] = list(value)
		case key == "match":
			re, err := regexp.Compile("(?i)" + value)
			if err != nil {
				return p, fmt.Errorf("%s:%d: match is not a valid regular expression: %v", file, lineNo, err)
			}
			p.Match = re
		default:
			return p, fmt.Errorf("%s:%d: unknown front matter key %q", file, lineNo, key)
		}
	}
	for _, req := range []struct{ key, value string }{{"name", p.Name}, {"title", p.Title}, {"when", p.When}} {
		if req.value == "" {
			return p, fmt.Errorf("%s: front matter needs %s", file, req.key)
		}
	}
	return p, nil
}

func list(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
