package assistant

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

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
// level and in its "surface" object. A context it cut gains
// PageTruncatedKey; one within the limits comes back byte for byte. It cuts
// rather than refuses, so a large selection never costs the person their
// message.
func BoundPageContext(page []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(page, &top); err != nil || top == nil {
		return nil, errors.New("the page context must be a JSON object")
	}
	var cuts []string
	if err := boundPageFields(top, "", &cuts); err != nil {
		return nil, err
	}
	topCuts := len(cuts)
	surface := pageSurface(top) // nil, with no fields to cut, when there is none
	if err := boundPageFields(surface, "/surface", &cuts); err != nil {
		return nil, err
	}
	if len(cuts) == 0 {
		return page, nil
	}
	if len(cuts) == topCuts {
		surface = nil // uncut: kept as sent
	}
	b, err := json.Marshal(cuts)
	if err != nil {
		return nil, fmt.Errorf("page context: %w", err)
	}
	top[PageTruncatedKey] = b
	return marshalPage(top, surface)
}

// pageSurface is a page context's "surface" object, nil when it has none.
func pageSurface(top map[string]json.RawMessage) map[string]json.RawMessage {
	var surface map[string]json.RawMessage
	if raw, ok := top["surface"]; !ok || json.Unmarshal(raw, &surface) != nil {
		return nil
	}
	return surface
}

// marshalPage writes a page context back with its surface, if not nil.
func marshalPage(top, surface map[string]json.RawMessage) ([]byte, error) {
	if surface != nil {
		b, err := json.Marshal(surface)
		if err != nil {
			return nil, fmt.Errorf("page context: %w", err)
		}
		top["surface"] = b
	}
	b, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("page context: %w", err)
	}
	return b, nil
}

// boundPageFields cuts the bounded fields of one object in place and adds a
// note per cut to cuts. Fields of another type than expected are left as
// they are: they are data the model reads, like the rest.
func boundPageFields(obj map[string]json.RawMessage, at string, cuts *[]string) error {
	var text string // an absent field does not unmarshal
	if json.Unmarshal(obj["selectedText"], &text) == nil && utf8.RuneCountInString(text) > MaxSelectedTextChars {
		b, err := json.Marshal(string([]rune(text)[:MaxSelectedTextChars]) + "…")
		if err != nil {
			return fmt.Errorf("page context: %w", err)
		}
		obj["selectedText"] = b
		*cuts = append(*cuts, fmt.Sprintf("%s/selectedText: cut to its first %d of %d characters",
			at, MaxSelectedTextChars, utf8.RuneCountInString(text)))
	}
	for _, key := range pageIDLists {
		var ids []json.RawMessage
		if json.Unmarshal(obj[key], &ids) != nil || len(ids) <= MaxPageIDs {
			continue
		}
		b, err := json.Marshal(ids[:MaxPageIDs])
		if err != nil {
			return fmt.Errorf("page context: %w", err)
		}
		obj[key] = b
		*cuts = append(*cuts, fmt.Sprintf("%s/%s: cut to its first %d of %d ids", at, key, MaxPageIDs, len(ids)))
	}
	return nil
}
