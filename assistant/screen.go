package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"hub/workspace"
)

// PageLookup resolves the ids a page context carries, in the active space (workspace.Service).
type PageLookup interface {
	FindRefs(ctx context.Context, actor workspace.Actor, spaceID string, ids []string) (map[string]workspace.Ref, error)
	GetTask(ctx context.Context, actor workspace.Actor, spaceID, id string) (workspace.Task, error)
}

// pageOpenKeys are the fields that name the open item, by id or as
// {"kind"?, "id"}, at the top level or in "surface".
var pageOpenKeys = []string{"open", "openId"}

// Screen is what the person's screen shows, with every id resolved in the
// active space: ids that name nothing there are left out and said so.
type Screen struct {
	// Page is the page context as the model reads it: the open item taken
	// out (it is Open) and the id lists holding only ids that resolved.
	Page     string
	Open     *OpenItem       // the open item, if its id resolved
	Selected []workspace.Ref // the selected records that resolved, in order
	Notes    []string        // what was left out, by field, never by id
	Refs     []workspace.Ref // every record the screen names
}

// OpenItem is the record open on screen and what a person sees of it.
type OpenItem struct {
	Ref   workspace.Ref
	Facts []string // "status todo", "due 2026-03-06", "project [Launch](hub://project/…)"
}

// ResolveScreen resolves a page context's ids in the space, for the person:
// a supplied id is an exact lookup key, never evidence of access, so an id
// of another space or of nothing is dropped with a note. A page context
// that is not a JSON object is passed on as it is.
func ResolveScreen(ctx context.Context, l PageLookup, actor workspace.Actor, spaceID, page string) (Screen, error) {
	out := Screen{Page: page}
	var top map[string]json.RawMessage
	if json.Unmarshal([]byte(page), &top) != nil || top == nil {
		return out, nil
	}
	surface := pageSurface(top)
	objs := []struct {
		at  string
		obj map[string]json.RawMessage
	}{{"", top}, {"/surface", surface}}

	// Every id first, so one lookup resolves them all.
	type field struct {
		obj     map[string]json.RawMessage // the object holding it
		at, key string                     // the object's pointer, the field's key
		kind    string                     // an open item's kind, when given
		ids     []string                   // as sent; one for an open item
	}
	var ids []string
	var opens, lists []field
	for _, o := range objs { // a nil surface has no fields
		for _, key := range pageOpenKeys {
			raw, ok := o.obj[key]
			if !ok {
				continue
			}
			var id, kind string // an id, or {"kind"?, "id"}
			var obj struct{ Kind, ID string }
			if json.Unmarshal(raw, &id) != nil && json.Unmarshal(raw, &obj) == nil {
				id, kind = obj.ID, obj.Kind
			}
			opens = append(opens, field{obj: o.obj, at: o.at, key: key, kind: kind, ids: []string{id}})
			ids = append(ids, id)
		}
		for _, key := range pageIDLists {
			var entries []json.RawMessage
			if raw, ok := o.obj[key]; !ok || json.Unmarshal(raw, &entries) != nil {
				continue
			}
			f := field{obj: o.obj, at: o.at, key: key, ids: []string{}}
			for _, e := range entries {
				var id string
				_ = json.Unmarshal(e, &id) // not a string: "", which resolves to nothing
				f.ids = append(f.ids, id)
			}
			lists = append(lists, f)
			ids = append(ids, f.ids...)
		}
	}
	if len(opens) == 0 && len(lists) == 0 {
		return out, nil
	}
	found, err := l.FindRefs(ctx, actor, spaceID, ids)
	if err != nil {
		return Screen{}, err
	}
	addRef := func(r workspace.Ref) {
		if !slices.ContainsFunc(out.Refs, func(x workspace.Ref) bool { return x.Kind == r.Kind && x.ID == r.ID }) {
			out.Refs = append(out.Refs, r)
		}
	}

	for _, f := range opens {
		delete(f.obj, f.key)
		ref, ok := found[f.ids[0]]
		if !ok || (f.kind != "" && f.kind != ref.Kind) {
			out.Notes = append(out.Notes, fmt.Sprintf("the open item (%s/%s) names no record the person can open in this space", f.at, f.key))
			continue
		}
		if out.Open != nil {
			continue // one open item; a second field naming one is redundant
		}
		item, err := openItem(ctx, l, actor, spaceID, ref)
		if err != nil {
			return Screen{}, err
		}
		out.Open = &item
		addRef(ref)
	}
	for _, f := range lists {
		kept := []string{}
		for _, id := range f.ids {
			ref, ok := found[id]
			if !ok {
				continue
			}
			kept = append(kept, id)
			addRef(ref)
			if (f.key == "selectedIds" || f.key == "selected") && !slices.ContainsFunc(out.Selected, func(x workspace.Ref) bool { return x.ID == ref.ID }) {
				out.Selected = append(out.Selected, ref)
			}
		}
		if dropped := len(f.ids) - len(kept); dropped > 0 {
			out.Notes = append(out.Notes, fmt.Sprintf("%s/%s: %d of %d ids name no record the person can open in this space", f.at, f.key, dropped, len(f.ids)))
		}
		f.obj[f.key], _ = json.Marshal(kept) // strings always encode
	}
	out.Page = string(marshalPage(top, surface))
	return out, nil
}

// openItem describes the open record: a task with its status, due date,
// priority, project and assignee; another record with its status or role.
func openItem(ctx context.Context, l PageLookup, actor workspace.Actor, spaceID string, ref workspace.Ref) (OpenItem, error) {
	item := OpenItem{Ref: ref}
	if ref.Kind != workspace.KindTask {
		if ref.Detail != "" {
			word := "status"
			if ref.Kind == workspace.KindPerson {
				word = "role"
			}
			item.Facts = append(item.Facts, word+" "+ref.Detail)
		}
		return item, nil
	}
	t, err := l.GetTask(ctx, actor, spaceID, ref.ID)
	if err != nil {
		return OpenItem{}, err
	}
	item.Facts = append(item.Facts, "status "+t.Status)
	if t.DueDate != "" {
		item.Facts = append(item.Facts, "due "+t.DueDate)
	}
	if t.Priority != "" && t.Priority != workspace.PriorityNone {
		item.Facts = append(item.Facts, "priority "+t.Priority)
	}
	linked, err := l.FindRefs(ctx, actor, spaceID, []string{t.ProjectID, t.AssigneeID})
	if err != nil {
		return OpenItem{}, err
	}
	if p, ok := linked[t.ProjectID]; ok {
		item.Facts = append(item.Facts, "project "+Link(p))
	}
	if p, ok := linked[t.AssigneeID]; ok {
		item.Facts = append(item.Facts, "people "+Link(p)+" (assignee)")
	}
	return item, nil
}

// MaxPageIDs bounds each list of record ids the page context carries
// (docs/decisions.md, "Page context limits").
const MaxPageIDs = 100

// PageTruncatedKey is the field BoundPageContext adds to a page context it
// cut, so the model knows the screen holds more than it reads.
const PageTruncatedKey = "truncatedByHub"

// pageIDLists are the fields that hold record ids, as clients send them
// and as Hub's own sample context writes them (prompts.go).
var pageIDLists = []string{"selectedIds", "visibleIds", "selected", "visible"}

// BoundPageContext holds the page context a client sends with a turn (a
// JSON object) to its limits (docs/api.md, "Page context"), at its top
// level and in its "surface" object; one within the limits comes back byte
// for byte. It cuts rather than refuses, so a large selection never costs
// the person their message.
func BoundPageContext(page []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(page, &top); err != nil || top == nil {
		return nil, errors.New("the page context must be a JSON object")
	}
	cuts := boundPageFields(top, "", nil)
	topCuts := len(cuts)
	surface := pageSurface(top) // nil, with no fields to cut, when there is none
	cuts = boundPageFields(surface, "/surface", cuts)
	if len(cuts) == 0 {
		return page, nil
	}
	if len(cuts) == topCuts {
		surface = nil // uncut: kept as sent
	}
	top[PageTruncatedKey], _ = json.Marshal(cuts)
	return marshalPage(top, surface), nil
}

// pageSurface is a page context's "surface" object, nil when it has none.
func pageSurface(top map[string]json.RawMessage) map[string]json.RawMessage {
	var surface map[string]json.RawMessage
	if raw, ok := top["surface"]; !ok || json.Unmarshal(raw, &surface) != nil {
		return nil
	}
	return surface
}

// marshalPage writes a page context back with its surface, if not nil. It
// cannot fail: every value is a decoded or freshly encoded JSON value.
func marshalPage(top, surface map[string]json.RawMessage) []byte {
	if surface != nil {
		top["surface"], _ = json.Marshal(surface)
	}
	b, _ := json.Marshal(top)
	return b
}

// boundPageFields cuts the bounded fields of one object in place and
// returns cuts with a note per cut. Fields of another type than expected
// are left as they are: they are data the model reads, like the rest.
func boundPageFields(obj map[string]json.RawMessage, at string, cuts []string) []string {
	var text string // an absent field does not unmarshal
	if json.Unmarshal(obj["selectedText"], &text) == nil && utf8.RuneCountInString(text) > MaxSelectedTextChars {
		obj["selectedText"], _ = json.Marshal(string([]rune(text)[:MaxSelectedTextChars]) + "…")
		cuts = append(cuts, fmt.Sprintf("%s/selectedText: cut to its first %d of %d characters",
			at, MaxSelectedTextChars, utf8.RuneCountInString(text)))
	}
	for _, key := range pageIDLists {
		var ids []json.RawMessage
		if json.Unmarshal(obj[key], &ids) != nil || len(ids) <= MaxPageIDs {
			continue
		}
		obj[key], _ = json.Marshal(ids[:MaxPageIDs])
		cuts = append(cuts, fmt.Sprintf("%s/%s: cut to its first %d of %d ids", at, key, MaxPageIDs, len(ids)))
	}
	return cuts
}
