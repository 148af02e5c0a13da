package assistant

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"hub/tools"
	"hub/workspace"
)

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

// anyApp is a request for connected apps' content in general ("search my
// connected apps").
var anyApp = regexp.MustCompile(`(?i)\b(connected apps?|all (my |our |the )?apps|search (my |our |the )?apps)\b`)

// askedApps are the apps a message asks for: named as a whole word or
// phrase in any case, or mentioned, or all of them for a request to search
// the connected apps. Having an app connected is not enough.
func askedApps(message string, mentions []workspace.Ref, apps []AppOffer) map[string]bool {
	asked := map[string]bool{}
	if len(apps) == 0 {
		return asked
	}
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

// namesApp tells whether text holds name with no letter or digit right
// before or after it.
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
		if !isWordRune(before) && !isWordRune(after) {
			return true
		}
		from = i + 1
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

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
