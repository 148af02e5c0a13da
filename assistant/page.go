package assistant

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxPageIDs bounds each list of record ids the page context carries: at
// most 100 selected and 100 visible (docs/decisions.md, "Page context
// limits").
const MaxPageIDs = 100

// PageTruncatedKey is the field BoundPageContext adds to a page context it
// cut: a list of what was cut and from how much, so the model knows the
// screen holds more than it reads.
const PageTruncatedKey = "truncatedByHub"

// pageIDLists are the fields that hold record ids: selectedIds and
// visibleIds as clients send them, and "selected" and "visible" as Hub's
// own sample context writes them (prompts.go).
var pageIDLists = []string{"selectedIds", "visibleIds", "selected", "visible"}

// BoundPageContext holds the page context a client sends with a turn (a
// JSON object) to its limits (docs/api.md, "Page context"), at its top
// level and in its "surface" object: "selectedText" keeps its first MaxSelectedTextChars characters and
// ends in "…", and each list of ids keeps its first MaxPageIDs. A context it
// cut gains PageTruncatedKey (replacing one the client sent) naming each cut
// by its JSON pointer; a context within the limits comes back byte for byte.
//
// It cuts rather than refuses: the person's message is what they meant to
// send, and a large selection on their screen must not cost them it
// (docs/decisions.md, "Page context limits").
func BoundPageContext(page []byte) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(page, &top); err != nil || top == nil {
		return nil, errors.New("the page context must be a JSON object")
	}
	var cuts []string
	if err := boundPageFields(top, "", &cuts); err != nil {
		return nil, err
	}
	if raw, ok := top["surface"]; ok {
		var surface map[string]json.RawMessage
		if json.Unmarshal(raw, &surface) == nil && surface != nil {
			before := len(cuts)
			if err := boundPageFields(surface, "/surface", &cuts); err != nil {
				return nil, err
			}
			if len(cuts) > before {
				b, err := json.Marshal(surface)
				if err != nil {
					return nil, fmt.Errorf("page context: %w", err)
				}
				top["surface"] = b
			}
		}
	}
	if len(cuts) == 0 {
		return page, nil
	}
	b, err := json.Marshal(cuts)
	if err != nil {
		return nil, fmt.Errorf("page context: %w", err)
	}
	top[PageTruncatedKey] = b
	out, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("page context: %w", err)
	}
	return out, nil
}

// boundPageFields cuts the bounded fields of one object in place and adds a
// note per cut to cuts. Fields of another type than expected are left as
// they are: they are data the model reads, like the rest.
func boundPageFields(obj map[string]json.RawMessage, at string, cuts *[]string) error {
	if raw, ok := obj["selectedText"]; ok {
		var text string
		if json.Unmarshal(raw, &text) == nil {
			if n := utf8.RuneCountInString(text); n > MaxSelectedTextChars {
				b, err := json.Marshal(string([]rune(text)[:MaxSelectedTextChars]) + "…")
				if err != nil {
					return fmt.Errorf("page context: %w", err)
				}
				obj["selectedText"] = b
				*cuts = append(*cuts, fmt.Sprintf("%s/selectedText: cut to its first %d of %d characters", at, MaxSelectedTextChars, n))
			}
		}
	}
	for _, key := range pageIDLists {
		var ids []json.RawMessage
		if raw, ok := obj[key]; !ok || json.Unmarshal(raw, &ids) != nil || len(ids) <= MaxPageIDs {
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
