package assistant

import (
	"fmt"
	"slices"
	"strings"

	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// MaxOfferedTools is the most tool schemas one model request carries, the
// reserved tail included. It is a constant on purpose, stated once, with no
// setting or variable in front of it: a model shown more tools chooses
// worse (31/32 right with one tool offered, 18–21/32 with thirteen), and a
// prompt of too many schemas pushes the person's own message out of the
// context window. 24 sits below the 29-tool basket of the assistant Hub was
// specified from, so bounding can never widen what a model sees. See
// docs/offer.md.
const MaxOfferedTools = 24

// ViewFileTool opens an attached file; a message with files always gets it.
const ViewFileTool = "hub_view_file"

// reservedTools are held back before ranking and always offered when the
// person is granted them, counted inside MaxOfferedTools (never added on
// top: a tail added after the cut once let an offer reach 46). They are
// the model's way on when the ranking guessed wrong:
//   - hub_list_tasks and hub_list_people are the look-ups nearly every
//     request ends up needing: tasks are what most requests are about, and
//     a person's id is what every assignment needs ("what's on my plate",
//     "give it to Sam" name neither tool's words);
//   - hub_how_to loads a playbook and its tools for the rest of the turn;
//   - hub_find_tools searches everything the person is granted, the route
//     to any tool the ranking missed;
//   - hub_web_search and hub_read_web_page (registered only when the
//     operator configured a search provider) are where facts that change
//     come from, whatever the request's words: "who won yesterday" names
//     neither, and a model without them answers from memory.
//
// When the ranking puts one of them among the head's entries it is offered
// there, at its ranked position (the head is what the model favours); the
// rest sit at the tail in this order.
var reservedTools = [...]string{"hub_list_tasks", "hub_list_people", HowToTool, FindToolsTool, tools.WebSearchTool, tools.ReadWebPageTool}

// OfferInput is what a turn's tool offer is decided from.
type OfferInput struct {
	Registry *tools.Registry
	Role     workspace.Role
	Settings workspace.Settings
	Message  string
	Mentions []workspace.Ref
	// Path is the open page's path (it only breaks routing ties).
	Path string
	// AppNames are the names of the apps connected in the space.
	AppNames []string
	// Apps are the space's working MCP servers, whose tools are in
	// Registry: each is offered only when the message asks for it
	// (askedApps), and app tools are bounded by MaxAppTools.
	Apps      []AppOffer
	Playbooks []playbooks.Playbook
	// Added are tools hub_how_to and hub_find_tools made available earlier
	// in this turn (their results' AddToolsKey): kept in the offer for the
	// rest of the turn.
	Added []string
	// Ranker orders the rest by relevance; nil uses the default WordRanker.
	Ranker Ranker
	// Skills tells that the instructions list personal skills: then
	// hub_read_skill is reserved (always offered), else never offered.
	Skills bool
}

// OfferResult is a turn's offer.
type OfferResult struct {
	// Tools are the offered names, at most MaxOfferedTools, in the order
	// their schemas are written into the request.
	Tools []string
	// Guides are the preloaded playbooks for the message's context.
	Guides []playbooks.Playbook
	// Recipe is set for a simple todo request, in place of guides.
	Recipe string
	// Fallback tells that the ranking failed or found nothing and the
	// simple local word match filled the offer; FallbackReason says why,
	// for the run record and logs.
	Fallback       bool
	FallbackReason string
}

// BuildOffer decides which tools one model request shows: granted
// everything, shown a few (docs/offer.md).
//
// Only tools the person is granted (Offer, the grant filter) can appear,
// whatever the playbooks, Added or the ranker name. A simple todo request
// (playbooks.Route) gets exactly its five tools and a one-line recipe, plus
// anything Added. Otherwise the offer is at most MaxOfferedTools: the
// reserved tools are set aside first and counted inside the limit; the head
// takes the routed playbooks' tools (in the ranker's order, then the
// playbook's), then Added, then the ranker's matches for the person's
// words. When the head is too small for all of them, Added is kept first,
// then the routed tools, then the ranked ones, so what the model asked for
// is never crowded out. If the ranker fails, panics or finds nothing, the
// deliberately simple localMatch ranks instead and the rest of the granted
// tools, in registration order, fill the same limit. Every name appears
// once; the same input gives the same order.
func BuildOffer(in OfferInput) OfferResult {
	if in.Registry == nil {
		return OfferResult{Fallback: true, FallbackReason: "no tool registry"}
	}
	offerable := withoutUnlistedSkills(Offer(in.Registry, in.Role, in.Settings), in.Skills)
	settings := AsksAboutSettings(in.Message)
	if !settings {
		offerable = slices.DeleteFunc(offerable, func(n string) bool { return n == tools.UpdateSettingsTool })
	}
	offerable, askedTools := appGrant(offerable, in.Registry, in.Apps, askedApps(in.Message, in.Mentions, in.Apps), in.Added)
	defs := make([]*tools.Definition, 0, len(offerable))
	granted := make(map[string]bool, len(offerable))
	for _, name := range offerable {
		if d, ok := in.Registry.Get(name); ok && d != nil && !granted[name] {
			granted[name] = true
			defs = append(defs, d)
		}
	}
	isGranted := func(name string) bool { return granted[name] }
	added := keepGranted(in.Added, isGranted)

	kinds := mentionKinds(in.Mentions)
	routed := playbooks.Route(in.Playbooks, playbooks.RouteInput{
		Message: in.Message, MentionKinds: kinds, Path: in.Path, AppNames: in.AppNames, Available: isGranted,
	})
	if routed.Simple {
		names := dedupe(append(slices.Clone(routed.Tools), added...))
		return OfferResult{Tools: names[:min(len(names), MaxOfferedTools)], Recipe: routed.Recipe}
	}
	out := OfferResult{Guides: routed.Guides}

	// The reserved tools are decided before ranking, so nothing the ranking
	// does can crowd them out.
	reserved := map[string]bool{}
	var tail []string
	reserve := func(name string, when bool) {
		if when && granted[name] && !reserved[name] {
			reserved[name] = true
			tail = append(tail, name)
		}
	}
	for _, name := range reservedWith(in.Skills) {
		reserve(name, true)
	}
	// A message with attached files can always open them.
	reserve(ViewFileTool, slices.Contains(kinds, KindFile))
	// A message about the person's settings can always change them (held
	// for Apply); any other message is never offered the tool.
	reserve(tools.UpdateSettingsTool, settings)
	budget := MaxOfferedTools - len(tail) // for entries that are not reserved

	query := strings.TrimSpace(in.Message + " " + strings.Join(kinds, " "))
	ranker := in.Ranker
	if ranker == nil {
		ranker = defaultRanker
	}
	// The walk below takes at most MaxOfferedTools entries that are not
	// routed or added, so the ranking is read no further than that.
	ranked, reason := rankSafely(ranker, query, defs, isGranted, func(n string) bool { return reserved[n] },
		MaxOfferedTools+len(routed.Tools)+len(added))
	if reason != "" {
		out.Fallback, out.FallbackReason = true, reason
		ranked = fallbackOrder(query, defs)
	}

	routedTools := keepGranted(routed.Tools, isGranted)
	rank := make(map[string]int, len(ranked)) // each name's place in the ranking
	for i, name := range ranked {
		rank[name] = i
	}
	// The apps the person asked for come next at the head, their best
	// ranked tools first.
	byRank := func(a, b string) int { return rankOf(rank, a, len(ranked)) - rankOf(rank, b, len(ranked)) }
	slices.SortStableFunc(askedTools, byRank)
	routedTools = dedupe(append(routedTools, askedTools[:min(len(askedTools), MaxAskedAppTools)]...))
	slices.SortStableFunc(routedTools, byRank)

	keep := map[string]bool{}
	used := 0
	take := func(name string) bool {
		switch {
		case keep[name]:
		case reserved[name]:
			keep[name] = true
		case used < budget:
			keep[name] = true
			used++
		default:
			return false
		}
		return true
	}
	for _, name := range added {
		take(name)
	}
	for _, name := range routedTools {
		take(name)
	}
	for _, name := range ranked {
		if !take(name) {
			break
		}
	}

	for _, group := range [][]string{routedTools, added, ranked} {
		for _, name := range group {
			if keep[name] {
				out.Tools = append(out.Tools, name)
			}
		}
	}
	out.Tools = dedupe(append(out.Tools, tail...))
	return out
}

// rankOf is a name's place in the ranking; unranked names sort after every
// ranked one, keeping their own order.
func rankOf(rank map[string]int, name string, unranked int) int {
	if i, ok := rank[name]; ok {
		return i
	}
	return unranked
}

// rankSafely runs the ranker and keeps its first limit granted names, each
// once, so a ranker can reorder the offer but never widen it. A non-empty
// reason means the ranking cannot be used: it failed, panicked, or found
// nothing but reserved tools. Those are offered anyway, so that is finding
// nothing too: "I finished the report" matching only the playbook index in
// hub_how_to's description must not leave an offer of four.
func rankSafely(r Ranker, query string, defs []*tools.Definition, granted, reserved func(string) bool, limit int) (names []string, reason string) {
	defer func() {
		if p := recover(); p != nil {
			names, reason = nil, fmt.Sprintf("the ranker panicked: %v", p)
		}
	}()
	got, err := r.Rank(query, defs)
	if err != nil {
		return nil, "the ranker failed: " + err.Error()
	}
	seen := map[string]bool{}
	found := false
	for _, n := range got {
		if len(names) == limit {
			break
		}
		if granted(n) && !seen[n] {
			seen[n] = true
			names = append(names, n)
			found = found || !reserved(n)
		}
	}
	if !found {
		return nil, "the ranker found nothing"
	}
	return names, ""
}

// fallbackOrder is the offer's order when ranking cannot be used: what
// localMatch finds, then every other granted tool in registration order
// (the registry lists each area's reads first), to be cut to the limit.
func fallbackOrder(query string, defs []*tools.Definition) []string {
	names := localMatch(query, defs, len(defs))
	for _, d := range defs {
		if d != nil && d.Name != "" {
			names = append(names, d.Name)
		}
	}
	return dedupe(names)
}

func keepGranted(names []string, granted func(string) bool) []string {
	var out []string
	for _, n := range names {
		if granted(n) {
			out = append(out, n)
		}
	}
	return out
}

// dedupe keeps each name's first place.
func dedupe(names []string) []string {
	seen := map[string]bool{}
	out := names[:0:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

func mentionKinds(refs []workspace.Ref) []string {
	var kinds []string
	for _, r := range refs {
		if r.Kind != "" && !slices.Contains(kinds, r.Kind) {
			kinds = append(kinds, r.Kind)
		}
	}
	return kinds
}

// withoutUnlistedSkills leaves hub_read_skill out of an offer whose
// instructions list no skill: it would have nothing to read.
func withoutUnlistedSkills(names []string, skills bool) []string {
	if skills {
		return names
	}
	return slices.DeleteFunc(names, func(n string) bool { return n == tools.ReadSkillTool })
}

// reservedWith is the reserved tail, with hub_read_skill first when the
// instructions list skills: the model must be able to read one whatever
// the ranking made of the message ("write it my usual way" names no
// tool's words).
func reservedWith(skills bool) []string {
	if !skills {
		return reservedTools[:]
	}
	return append([]string{tools.ReadSkillTool}, reservedTools[:]...)
}
