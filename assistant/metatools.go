package assistant

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"hub/playbooks"
	"hub/tools"
)

// The meta tools' names: the model's way to whatever the offer left out.
const (
	HowToTool     = "hub_how_to"
	FindToolsTool = "hub_find_tools"
)

// AddToolsKey is the key, in the Data of a hub_how_to or hub_find_tools
// result, of the tool names the call made available for the rest of the
// turn (OfferInput.Added).
const AddToolsKey = "addTools"

// maxFoundTools is how many tools one hub_find_tools call returns: few
// enough not to undo the bounded offer.
const maxFoundTools = 8

// maxFoundDescription bounds each found tool's one-line description.
const maxFoundDescription = 160

// HowToInput is hub_how_to's input.
type HowToInput struct {
	Name string `json:"name" jsonschema:"minLength=1,maxLength=100" jsonschema_description:"The playbook's name, or map for the map of Hub."`
}

// HowToData is hub_how_to's result data.
type HowToData struct {
	Playbook string   `json:"playbook"`
	Title    string   `json:"title"`
	Recipe   string   `json:"recipe"`
	AddTools []string `json:"addTools"`
}

// FindToolsInput is hub_find_tools' input.
type FindToolsInput struct {
	Query string `json:"query" jsonschema:"minLength=1,maxLength=200" jsonschema_description:"What the tool should do, in a few words (e.g. post update channel)."`
}

// FoundTool is one tool hub_find_tools found.
type FoundTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

// FindToolsData is hub_find_tools' result data.
type FindToolsData struct {
	Tools    []FoundTool `json:"tools"`
	AddTools []string    `json:"addTools"`
}

// MetaTools makes hub_how_to and hub_find_tools over the given playbooks and
// registry; register them into that registry afterwards, once every tool
// hub_how_to's playbooks require is in it.
func MetaTools(all []playbooks.Playbook, reg *tools.Registry) []*tools.Definition {
	registered := func(name string) bool { return name == HowToTool || name == FindToolsTool || reg.Has(name) }
	howTo := tools.Define(tools.Spec{
		Name: HowToTool, Area: "help", NoSpace: true,
		Description: "Load a playbook: how to handle one kind of request, with its tools, which are then offered for the rest of this turn. Use it when the tools offered do not fit the request. Playbooks:\n" +
			playbooks.Index(playbooks.Usable(all, registered)),
	}, func(ctx context.Context, env tools.Env, in HowToInput) (tools.Result, error) {
		reg := cmp.Or(env.Registry, reg) // the one the call was dispatched from, with its space's MCP tools
		usable := playbooks.Usable(all, reg.Has)
		p, ok := playbooks.Named(usable, in.Name)
		if !ok {
			var names []string
			for _, u := range usable {
				names = append(names, u.Name)
			}
			return tools.Result{}, &tools.Error{Code: tools.CodeNotFound, Path: "/name",
				Message: fmt.Sprintf("there is no playbook called %q; the playbooks are %s", strings.TrimSpace(in.Name), strings.Join(names, ", "))}
		}
		recipe := p.Body
		if inc, ok := playbooks.Named(all, p.Include); ok { // no playbook is named ""
			recipe += "\n\n" + inc.Body
		}
		add := []string{}
		for _, t := range p.Tools {
			if d, ok := reg.Get(t); ok && reg.Permits(ctx, env, d) == nil { // what the caller may be offered
				add = append(add, t)
			}
		}
		return tools.Result{Summary: fmt.Sprintf("Read the %s playbook.", p.Title),
			Data: HowToData{Playbook: p.Name, Title: p.Title, Recipe: recipe, AddTools: add}}, nil
	})
	findTools := tools.Define(tools.Spec{
		Name: FindToolsTool, Area: "help", NoSpace: true,
		Description: fmt.Sprintf("Search every tool you may use by what it does, when none offered fits the request. Returns up to %d tools with a line each; they are then offered for the rest of this turn.", maxFoundTools),
	}, func(_ context.Context, env tools.Env, in FindToolsInput) (tools.Result, error) {
		reg := cmp.Or(env.Registry, reg)
		defs := slices.DeleteFunc(reg.Offerable(env.Role, env.Settings), func(d *tools.Definition) bool {
			return d.Name == HowToTool || d.Name == FindToolsTool
		})
		data := FindToolsData{Tools: []FoundTool{}, AddTools: []string{}}
		for _, name := range localMatch(in.Query, defs, maxFoundTools) {
			d, _ := reg.Get(name)
			data.Tools = append(data.Tools, FoundTool{Name: name, Description: oneLine(d.Description)})
			data.AddTools = append(data.AddTools, name)
		}
		if len(data.Tools) == 0 {
			return tools.Result{Summary: fmt.Sprintf("No tool matches “%s”; nothing was added.", strings.TrimSpace(in.Query)), Data: data}, nil
		}
		return tools.Result{Summary: fmt.Sprintf("Found %d %s: %s.", len(data.Tools), tools.Plural(len(data.Tools), "tool", "tools"),
			strings.Join(data.AddTools, ", ")), Data: data}, nil
	})
	return []*tools.Definition{howTo, findTools}
}

// AddedTools reads the names under AddToolsKey from a tool result's Data,
// whether a struct, a map, or the JSON it was saved as.
func AddedTools(data any) []string {
	var raw []byte
	switch v := data.(type) { // json.RawMessage marshals as itself
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	default:
		raw, _ = json.Marshal(v) // nil on failure, which reads as none
	}
	var probe map[string]json.RawMessage
	var names []string
	if json.Unmarshal(raw, &probe) != nil || json.Unmarshal(probe[AddToolsKey], &names) != nil {
		return nil
	}
	return names
}

// oneLine is a description's first sentence, cut to maxFoundDescription.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if utf8.RuneCountInString(s) > maxFoundDescription {
		s = strings.TrimSpace(string([]rune(s)[:maxFoundDescription-1])) + "…"
	}
	return s
}
