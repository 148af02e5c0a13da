package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Preview says in words what a held call will change: the tool's own
// preview when it has one, else a readable one built from its action and
// fields, with ids the turn knows replaced by their titles. Never raw JSON.
func (d *Definition) Preview(ctx context.Context, env Env, input json.RawMessage) (string, error) {
	if d.preview != nil {
		return d.preview(ctx, env, input)
	}
	return ReadablePreview(d.Name, input, env.Known), nil
}

// ReadablePreview renders a call as "Create tasks: title “Draft brief”, due
// date 2026-12-01". known maps ids to titles.
func ReadablePreview(tool string, input json.RawMessage, known map[string]string) string {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return Action(tool)
	}
	parts := describe(v, known)
	if parts == "" {
		return Action(tool)
	}
	return Action(tool) + ": " + parts
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

func describe(v any, known map[string]string) string {
	switch x := v.(type) {
	case map[string]any:
		if t := titleOf(x); t != "" {
			rest := map[string]any{}
			for k, val := range x {
				if k != "title" && k != "name" {
					rest[k] = val
				}
			}
			if d := describe(rest, known); d != "" {
				return t + " (" + d + ")"
			}
			return t
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var parts []string
		for _, k := range keys {
			if d := describe(x[k], known); d != "" {
				parts = append(parts, fieldName(k)+" "+d)
			}
		}
		return strings.Join(parts, ", ")
	case []any:
		var parts []string
		for _, e := range x {
			if d := describe(e, known); d != "" {
				parts = append(parts, d)
			}
		}
		return strings.Join(parts, "; ")
	case string:
		if label, ok := known[x]; ok {
			return "“" + label + "”"
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
	return strings.TrimSuffix(strings.TrimSuffix(b.String(), " id"), " ids")
}
