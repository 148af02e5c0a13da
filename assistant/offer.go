package assistant

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// MaxOfferedTools is the most tool schemas one model request carries, the
// reserved tail included: a model shown more tools chooses worse, and too
// many schemas push the person's message out of the context window. It is
// deliberately not configurable (docs/offer.md).
const MaxOfferedTools = 24

// ViewFileTool opens an attached file; a message with files always gets it.
const ViewFileTool = "hub_view_file"

// reservedTools are always offered when granted, inside MaxOfferedTools: the
// model's way on when the ranking guessed wrong ("give it to Sam" names neither
// list tool's words; "who won yesterday" no web tool's). One ranked into the
// head stays there; the rest sit at the tail in this order.
var reservedTools = [...]string{"hub_list_tasks", "hub_list_people", HowToTool, FindToolsTool, tools.WebSearchTool, tools.ReadWebPageTool}

// OfferInput is what a turn's tool offer is decided from.
type OfferInput struct {
	Registry  *tools.Registry
	Role      workspace.Role
	Settings  workspace.Settings
	Message   string
	Mentions  []workspace.Ref
	Path      string     // the open page's path (it only breaks routing ties)
	Page      string     // the page context (JSON): a view hub_read_surface reads reserves it, else it is never offered
	AppNames  []string   // the names of the apps connected in the space
	Apps      []AppOffer // the space's working MCP servers, whose tools are in Registry
	Playbooks []playbooks.Playbook
	// Added are tools hub_how_to and hub_find_tools made available earlier
	// in this turn (AddToolsKey), and the tools the turn's agent adds.
	Added []string
	// Without are tools the turn's agent goes without: never granted, so
	// never offered and refused if called.
	Without []string
	Ranker  Ranker // nil uses the default WordRanker
	// Skills tells that the instructions list personal skills: then
	// hub_read_skill is reserved, else never offered.
	Skills bool
	// Searchable tells that the space has a searchable file: then the
	// search tools are reserved.
	Searchable bool
}

// OfferResult is a turn's offer.
type OfferResult struct {
	Tools  []string             // the offered names, in the order their schemas are sent
	Guides []playbooks.Playbook // the preloaded playbooks for the message's context
	Recipe string               // set for a simple todo request, in place of guides
	// Fallback tells that the ranking failed or found nothing and
	// localMatch filled the offer; FallbackReason says why.
	Fallback       bool
	FallbackReason string
}

// BuildOffer decides which tools one model request shows: granted
// everything, shown a few (docs/offer.md). Only granted tools appear. Past
// the reserved tools, the head takes the routed playbooks' tools, then
// Added, then the ranked ones; when it is too small, Added is kept first,
// then the routed tools, so what the model asked for is never crowded out.
// The same input gives the same order.
func BuildOffer(in OfferInput) OfferResult {
	if in.Registry == nil {
		return OfferResult{Fallback: true, FallbackReason: "no tool registry"}
	}
	settings := AsksAboutSettings(in.Message)
	_, noSurface := tools.ParseSurface(in.Page)
	surface := noSurface == nil
	offerable := slices.DeleteFunc(Offer(in.Registry, in.Role, in.Settings), func(n string) bool {
		// Without listed skills, hub_read_skill would have nothing to read;
		// without a view on screen, hub_read_surface.
		return n == tools.ReadSkillTool && !in.Skills || n == tools.UpdateSettingsTool && !settings ||
			n == tools.ReadSurfaceTool && !surface
	})
	offerable, askedTools := appGrant(offerable, in.Registry, in.Apps, askedApps(in.Message, in.Mentions, in.Apps), in.Added)
	offerable = slices.DeleteFunc(offerable, func(n string) bool { return slices.Contains(in.Without, n) })
	defs := make([]*tools.Definition, 0, len(offerable))
	granted := make(map[string]bool, len(offerable))
	for _, name := range offerable {
		if d, ok := in.Registry.Get(name); ok && d != nil && !granted[name] {
			granted[name] = true
			defs = append(defs, d)
		}
	}
	isGranted := func(name string) bool { return granted[name] }
	added := slices.DeleteFunc(slices.Clone(in.Added), func(name string) bool { return !granted[name] })

	kinds := mentionKinds(in.Mentions)
	routed := playbooks.Route(in.Playbooks, playbooks.RouteInput{
		Message: in.Message, MentionKinds: kinds, Path: in.Path, AppNames: in.AppNames, Available: isGranted,
	})
	if routed.Simple {
		names := dedupe(append(slices.Clone(routed.Tools), added...))
		return OfferResult{Tools: names[:min(len(names), MaxOfferedTools)], Recipe: routed.Recipe}
	}
	out := OfferResult{Guides: routed.Guides}

	reserved := map[string]bool{}
	var tail []string
	reserve := func(name string, when bool) {
		if when && granted[name] && !reserved[name] {
			reserved[name] = true
			tail = append(tail, name)
		}
	}
	// hub_read_surface comes first: "move these to Friday" names no tool's
	// words, and the page the person is on is why it is offered.
	reserve(tools.ReadSurfaceTool, surface)
	// hub_read_skill next: "write it my usual way" names no tool's words.
	reserve(tools.ReadSkillTool, in.Skills)
	for _, name := range reservedTools {
		reserve(name, true)
	}
	reserve(ViewFileTool, slices.Contains(kinds, KindFile))
	reserve(tools.SearchFilesTool, in.Searchable)
	reserve(tools.FindPhraseTool, in.Searchable)
	reserve(tools.UpdateSettingsTool, settings)
	budget := MaxOfferedTools - len(tail) // for entries that are not reserved

	query := strings.TrimSpace(in.Message + " " + strings.Join(kinds, " "))
	// The walk below reads the ranking no further than this.
	ranked, reason := rankSafely(cmp.Or(in.Ranker, defaultRanker), query, defs, isGranted,
		func(n string) bool { return reserved[n] }, MaxOfferedTools+len(routed.Tools)+len(added))
	if reason != "" {
		out.Fallback, out.FallbackReason = true, reason
		ranked = fallbackOrder(query, defs)
	}

	// Each name's place counted from the end of the ranking, so an unranked
	// name (0) sorts after every ranked one, keeping their own order.
	rank := make(map[string]int, len(ranked))
	for i, name := range ranked {
		rank[name] = i - len(ranked)
	}
	byRank := func(a, b string) int { return rank[a] - rank[b] }
	// The asked apps' tools come next at the head, best ranked first.
	slices.SortStableFunc(askedTools, byRank)
	routedTools := dedupe(append(routed.Tools, askedTools[:min(len(askedTools), MaxAskedAppTools)]...))
	slices.SortStableFunc(routedTools, byRank)

	keep := map[string]bool{}
	used := 0
	take := func(name string) bool {
		if !keep[name] && !reserved[name] {
			if used >= budget {
				return false
			}
			used++
		}
		keep[name] = true
		return true
	}
	for _, name := range slices.Concat(added, routedTools) {
		take(name)
	}
	for _, name := range ranked {
		if !take(name) {
			break
		}
	}

	out.Tools = slices.DeleteFunc(slices.Concat(routedTools, added, ranked), func(n string) bool { return !keep[n] })
	out.Tools = dedupe(append(out.Tools, tail...))
	return out
}

// rankSafely runs the ranker and keeps its first limit granted names, each
// once, so a ranker can reorder the offer but never widen it. A non-empty
// reason means the ranking cannot be used: it failed, panicked, or found
// only reserved tools, which are offered anyway.
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
	for _, n := range got {
		if len(names) == limit {
			break
		}
		if granted(n) && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if !slices.ContainsFunc(names, func(n string) bool { return !reserved(n) }) {
		return nil, "the ranker found nothing"
	}
	return names, ""
}

// fallbackOrder is the offer's order when ranking cannot be used: what
// localMatch finds, then every other granted tool in registration order.
func fallbackOrder(query string, defs []*tools.Definition) []string {
	names := localMatch(query, defs, len(defs))
	for _, d := range defs {
		if d != nil && d.Name != "" {
			names = append(names, d.Name)
		}
	}
	return dedupe(names)
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

// settingsWords are what a message about the person's assistant settings says.
var settingsWords = regexp.MustCompile(`(?i)\b(settings?|write[ -]?policy|preview mode|needs[ -]me mode|immediate mode|default model|(use|switch to|change) (the |my )?model|reasoning effort|effort)\b`)

// AsksAboutSettings tells whether a message is about the person's
// assistant settings: only then is hub_update_settings offered, and then
// always.
func AsksAboutSettings(message string) bool { return settingsWords.MatchString(message) }

// MaxAppTools is the most connected-app tools one turn is granted.
const MaxAppTools = 80

// MaxAskedAppTools is how many tools of the apps a message asks for are
// put at the offer's head; the rest are ranked like any other.
const MaxAskedAppTools = 12

// AppOffer is a connected MCP server whose tools a turn may offer.
type AppOffer struct {
	ConnectionID string
	Name         string
	Tools        []string // Hub's names of its tools (mcp_…), in the registry
}

// anyApp is a request for connected apps' content in general ("search my connected apps").
var anyApp = regexp.MustCompile(`(?i)\b(connected apps?|all (my |our |the )?apps|search (my |our |the )?apps)\b`)

// askedApps are the apps a message asks for: named as a whole word or
// phrase in any case, or mentioned, or all of them for a request to search
// the connected apps. Having an app connected is not enough.
func askedApps(message string, mentions []workspace.Ref, apps []AppOffer) map[string]bool {
	asked := map[string]bool{}
	all := anyApp.MatchString(message)
	lower := strings.ToLower(message)
	for _, a := range apps {
		mentioned := slices.ContainsFunc(mentions, func(r workspace.Ref) bool {
			return r.Kind == workspace.KindConnection && r.ID == a.ConnectionID
		})
		if all || mentioned || namesApp(lower, strings.ToLower(strings.TrimSpace(a.Name))) {
			asked[a.ConnectionID] = true
		}
	}
	return asked
}

// namesApp tells whether text holds name with no letter or digit right before or after it.
func namesApp(text, name string) bool {
	if name == "" {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		before, after := ' ', ' '
		if i > 0 {
			before, _ = utf8.DecodeLastRuneInString(text[:i])
		}
		if end < len(text) {
			after, _ = utf8.DecodeRuneInString(text[end:])
		}
		if !playbooks.IsWordRune(before) && !playbooks.IsWordRune(after) {
			return true
		}
		from = i + 1
	}
}

// appGrant narrows the offerable names to the app tools a turn may have:
// an MCP server's tools only when the message asks for that app (or the
// help tools found them), and at most MaxAppTools app tools in registry
// order. It returns the kept names and the asked apps' tools among them.
func appGrant(names []string, reg *tools.Registry, apps []AppOffer, asked map[string]bool, found []string) (kept, askedTools []string) {
	owner := map[string]string{}
	for _, a := range apps {
		for _, n := range a.Tools {
			owner[n] = a.ConnectionID
		}
	}
	appTools := 0
	for _, n := range names {
		conn, isMCP := owner[n]
		if isMCP && !asked[conn] && !slices.Contains(found, n) {
			continue
		}
		if d, ok := reg.Get(n); ok && d.Area == tools.AreaApps {
			if appTools == MaxAppTools {
				continue
			}
			appTools++
		}
		kept = append(kept, n)
		if isMCP {
			askedTools = append(askedTools, n)
		}
	}
	return kept, askedTools
}
