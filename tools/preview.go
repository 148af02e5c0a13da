package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"hub/workspace"
)

// Preview says in words what a held call will change: the tool's own
// preview when it has one, else a readable one built from its action and
// fields, with ids the turn knows replaced by their titles. Never raw JSON.
func (d *Definition) Preview(ctx context.Context, env Env, input json.RawMessage) (string, error) {
	if d.preview != nil {
		return d.preview(ctx, env, input)
	}
	return ReadablePreview(d.Name, input, knownIn(ctx, env, input)), nil
}

// ReadablePreview renders a call as "Create tasks: title “Draft brief”, due
// date 2026-12-01". known maps ids to titles; an id it does not know is
// named by its kind ("a task"), never shown, and a revision is left out.
func ReadablePreview(tool string, input json.RawMessage, known map[string]string) string {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return Action(tool)
	}
	return readable(tool, v, known, nil)
}

// readable is ReadablePreview of a decoded input; ref names a workflow
// step's {"$ref": …} in words (nil: there are none). A top-level field the
// action names is left out ("Create tasks: “Draft brief”").
func readable(tool string, v any, known map[string]string, ref func(string) string) string {
	d := &describer{known: known, ref: ref, omit: map[string]bool{}}
	for _, w := range strings.Fields(strings.ToLower(Action(tool))) {
		d.omit[w] = true
	}
	parts := d.describe(v)
	if parts == "" {
		return Action(tool)
	}
	return Action(tool) + ": " + parts
}

// idLike matches Hub's ids (storage.NewID: a kind, "_", 16 base32 letters).
var idLike = regexp.MustCompile(`^([a-z]+)_[a-z2-7]{16}$`)

// IDPattern finds Hub ids in text, which names records by title, never by
// id (tests sweep for it).
var IDPattern = regexp.MustCompile(`\b[a-z]+_[a-z2-7]{16}\b`)

// knownIn is env.Known with the titles, read in the call's space, of the
// ids an input names that the turn does not know yet.
func knownIn(ctx context.Context, env Env, input json.RawMessage) map[string]string {
	var v any
	if env.Workspace == nil || json.Unmarshal(input, &v) != nil {
		return env.Known
	}
	var ids []string
	collectIDs(v, env.Known, &ids)
	if len(ids) == 0 {
		return env.Known
	}
	refs, err := env.Workspace.FindRefs(ctx, env.Actor, env.SpaceID, ids)
	if err != nil || len(refs) == 0 {
		return env.Known
	}
	known := make(map[string]string, len(env.Known)+len(refs))
	maps.Copy(known, env.Known)
	for id, r := range refs {
		known[id] = r.Label
	}
	return known
}

func collectIDs(v any, known map[string]string, ids *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			collectIDs(e, known, ids)
		}
	case []any:
		for _, e := range x {
			collectIDs(e, known, ids)
		}
	case string:
		if _, ok := known[x]; !ok && idLike.MatchString(x) && len(*ids) < 100 {
			*ids = append(*ids, x)
		}
	}
}

// Action names what a tool does, for people: "hub_create_tasks" is
// "Create tasks".
func Action(tool string) string {
	words := strings.Split(tool, "_")
	if len(words) > 1 && (words[0] == "hub" || words[0] == "apps") {
		words = words[1:]
	}
	s := strings.Join(words, " ")
	if s == "" {
		return tool
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

type describer struct {
	known map[string]string
	ref   func(string) string
	omit  map[string]bool // field names left out, at the top level only
}

func (d *describer) describe(v any) string {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok && len(x) == 1 && d.ref != nil {
			return d.ref(r)
		}
		if t := titleOf(x); t != "" {
			rest := maps.Clone(x)
			delete(rest, "title")
			delete(rest, "name")
			if s := d.describe(rest); s != "" {
				return t + " (" + s + ")"
			}
			return t
		}
		keys := slices.Sorted(maps.Keys(x))
		keys = slices.DeleteFunc(keys, func(k string) bool { return k == "revision" || k == "planHash" }) // bookkeeping
		omit := d.omit
		d.omit = nil
		var parts []string
		for _, k := range keys {
			if s := d.describe(x[k]); s != "" {
				if name := fieldName(k); name != "" && !omit[name] {
					s = name + " " + s
				}
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, ", ")
	case []any:
		var parts []string
		for _, e := range x {
			if s := d.describe(e); s != "" {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "; ")
	case string:
		if label, ok := d.known[x]; ok {
			return "“" + label + "”"
		}
		if m := idLike.FindStringSubmatch(x); m != nil {
			return workspace.WithArticle(m[1]) + " that was not found"
		}
		return "“" + x + "”"
	case nil:
		return ""
	default:
		return fmt.Sprint(x)
	}
}

func titleOf(m map[string]any) string {
	for _, k := range []string{"title", "name"} {
		if s, ok := m[k].(string); ok && s != "" {
			return "“" + s + "”"
		}
	}
	return ""
}

// fieldName turns "dueDate" into "due date".
func fieldName(k string) string {
	var b strings.Builder
	for i, r := range k {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte(' ')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	name := b.String()
	if name == "id" || name == "ids" {
		return "" // the record's title says it
	}
	return strings.TrimSuffix(strings.TrimSuffix(name, " id"), " ids")
}
