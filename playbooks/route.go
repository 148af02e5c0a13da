package playbooks

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Points a playbook scores for a message (docs/offer.md, "Routing"); the
// open path only breaks ties.
const (
	// MatchPoints: the message holds a word of the playbook's match.
	MatchPoints = 2
	// StrongMatchPoints: it holds two or more different words of it, or a
	// phrase: more than one word used in passing.
	StrongMatchPoints = 3
	// MentionPoints: the person @-mentioned a record of a kind the
	// playbook covers; a mention is chosen, so it weighs as a match word.
	MentionPoints = 2
	// MaxGuides is how many playbooks a message preloads by score; more
	// would crowd the message's context and the offer.
	MaxGuides = 2
)

// Names of the playbooks routing treats specially.
const (
	MapName   = "map"   // the map of Hub, never preloaded
	AppsName  = "apps"  // a third guide when a message names a connected app
	TasksName = "tasks" // the one playbook a simple todo request may route to
)

// SimpleTodoTools are the exactly five tools a simple todo request is
// offered: the write, the three look-ups a title may need, and hub_how_to
// as the way out if the request was not as simple as it looked.
var SimpleTodoTools = []string{"hub_how_to", "hub_create_tasks", "hub_list_tasks", "hub_list_people", "hub_list_projects"}

// SimpleTodoRecipe is the one-line recipe a simple todo request gets in
// place of the tasks playbook.
const SimpleTodoRecipe = "Add it with one hub_create_tasks call: the title in the person's words without the \"remind me to\"; a due date (YYYY-MM-DD, from today's date in the context) only if they gave one; look up a project or person first only if they named one."

// MaxSimpleTodoChars bounds a simple todo request: past a short sentence
// there is usually more going on than one task.
const MaxSimpleTodoChars = 200

// RouteInput is what routing reads from a message.
type RouteInput struct {
	Message      string
	MentionKinds []string // the kinds of the records the person @-mentioned
	Path         string   // the open page's path; it only breaks ties
	AppNames     []string // the names of the apps connected in this space
	// Available tells whether a tool can be offered to this person; nil: every tool is.
	Available func(tool string) bool
}

// Routed is what a message preloads.
type Routed struct {
	Guides []Playbook // the preloaded playbooks, best first
	// Tools are the guides' available tools in guide order, each once; for
	// a simple todo request, exactly SimpleTodoTools.
	Tools  []string
	Simple bool // a simple todo request: Recipe replaces the guides
	Recipe string
}

// Route picks the playbooks a message preloads: the best MaxGuides that
// score, ties going to the open path and then name order, and the apps
// playbook as a third for a message naming a connected app. The map and a
// playbook whose requires are not available are never routed. A simple
// todo request gets no guide but SimpleTodoRecipe and SimpleTodoTools.
func Route(all []Playbook, in RouteInput) Routed {
	available := in.Available
	if available == nil {
		available = func(string) bool { return true }
	}
	type scored struct {
		p     Playbook
		score int // twice the points, plus one when the path is covered: the path only breaks ties
	}
	usable := Usable(all, available)
	var cands []scored
	for _, p := range usable {
		s := 2 * (matchScore(p, in.Message) + mentionScore(p, in.MentionKinds))
		if p.Name == MapName || s == 0 {
			continue
		}
		if coversPath(p.Paths, in.Path) {
			s++
		}
		cands = append(cands, scored{p: p, score: s})
	}
	slices.SortStableFunc(cands, func(a, b scored) int { return b.score - a.score })
	namesApp := namesApp(in.Message, in.AppNames)
	if isSimpleTodo(in, namesApp) && len(cands) == 1 && cands[0].p.Name == TasksName && allAvailable(SimpleTodoTools, available) {
		return Routed{Simple: true, Recipe: SimpleTodoRecipe, Tools: append([]string(nil), SimpleTodoTools...)}
	}
	var out Routed
	for _, c := range cands[:min(len(cands), MaxGuides)] {
		out.Guides = append(out.Guides, c.p)
	}
	if namesApp && !slices.ContainsFunc(out.Guides, func(g Playbook) bool { return g.Name == AppsName }) {
		if apps, ok := Named(usable, AppsName); ok {
			out.Guides = append(out.Guides, apps)
		}
	}
	for _, g := range out.Guides {
		for _, t := range g.Tools {
			if available(t) && !slices.Contains(out.Tools, t) {
				out.Tools = append(out.Tools, t)
			}
		}
	}
	return out
}

// Usable returns the playbooks whose requires are all available, in order.
func Usable(all []Playbook, available func(tool string) bool) []Playbook {
	var out []Playbook
	for _, p := range all {
		if available == nil || allAvailable(p.Requires, available) {
			out = append(out, p)
		}
	}
	return out
}

// Named finds a playbook by name, ignoring case and surrounding space.
func Named(all []Playbook, name string) (Playbook, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, p := range all {
		if p.Name == name {
			return p, true
		}
	}
	return Playbook{}, false
}

// Index is one line per playbook, "name: when", for the instructions and
// hub_how_to's description: the model's table of contents.
func Index(all []Playbook) string {
	var b strings.Builder
	for _, p := range all {
		b.WriteString("- " + p.Name + ": " + p.When + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func allAvailable(tools []string, available func(string) bool) bool {
	return !slices.ContainsFunc(tools, func(t string) bool { return !available(t) })
}

// matchScore is MatchPoints for one distinct match word, StrongMatchPoints
// for two or more or for a phrase.
func matchScore(p Playbook, message string) int {
	if p.Match == nil {
		return 0
	}
	found := p.Match.FindAllString(message, -1)
	if len(found) == 0 {
		return 0
	}
	distinct := map[string]bool{}
	for _, f := range found {
		if len(strings.Fields(f)) > 1 {
			return StrongMatchPoints
		}
		distinct[strings.ToLower(f)] = true
	}
	if len(distinct) >= 2 {
		return StrongMatchPoints
	}
	return MatchPoints
}

// mentionScore counts once however many records of the kind are mentioned.
func mentionScore(p Playbook, kinds []string) int {
	for _, k := range kinds {
		if slices.ContainsFunc(p.Mentions, func(m string) bool { return strings.EqualFold(k, m) }) {
			return MentionPoints
		}
	}
	return 0
}

// coversPath tells whether one of a playbook's paths appears in the open
// path as whole segments: "/tasks" covers "/spaces/s1/tasks/t9" but not
// "/taskset".
func coversPath(paths []string, open string) bool {
	have := "/" + segments(open) + "/"
	return slices.ContainsFunc(paths, func(p string) bool {
		want := segments(p)
		return want != "" && strings.Contains(have, "/"+want+"/")
	})
}

// segments is a path's segments, lower-cased and joined by single slashes,
// without its query or fragment: "/Spaces//s1/?x" is "spaces/s1".
func segments(p string) string {
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	return strings.Join(strings.FieldsFunc(strings.ToLower(p), func(r rune) bool { return r == '/' }), "/")
}

// simpleTodoOpener is how a simple todo request begins ("remind me to …").
var simpleTodoOpener = regexp.MustCompile(`(?i)^(please\s+)?(remind me (to|about|that)|add (a |an )?(task|to-?do|reminder)( to| called| for| that|:)?|(new )?(task|to-?do|reminder):)\s*\S`)

// anotherRequest marks a second request chained on ("…, then post it"),
// which needs more than five tools.
var anotherRequest = regexp.MustCompile(`(?i)\b(then|also|after that|afterwards|and (add|create|make|delete|remove|update|change|move|assign|post|send|tell|list|show|rename|mark|share|notify))\b`)

// isSimpleTodo is the rule for a simple todo request as the message reads;
// Route also requires that no playbook but tasks scores for it and that
// all five tools are available.
func isSimpleTodo(in RouteInput, namesApp bool) bool {
	msg := strings.TrimSpace(in.Message)
	return simpleTodoOpener.MatchString(msg) && utf8.RuneCountInString(msg) <= MaxSimpleTodoChars &&
		!strings.ContainsAny(msg, "\n?") && len(in.MentionKinds) == 0 && !namesApp &&
		!anotherRequest.MatchString(msg) && sentences(msg) == 1
}

// sentences counts the sentences of a one-line message: a '.', '!' or ';'
// followed by a space and a letter starts another ("Call Dr. Lee" counts
// two, which only costs a bigger offer).
func sentences(s string) int {
	n := 1
	for i := 0; i+2 < len(s); i++ {
		if strings.IndexByte(".!;", s[i]) >= 0 && s[i+1] == ' ' {
			if next, _ := utf8.DecodeRuneInString(s[i+2:]); unicode.IsLetter(next) {
				n++
			}
		}
	}
	return n
}
