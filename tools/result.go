package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// MaxResultChars bounds what one tool result shows the model: a list is cut
// at whole items with a note saying where to continue; anything else keeps
// its start and its end, so an error or a result's last fields survive.
const MaxResultChars = 6000

// ModelText renders a successful result as the JSON text the model reads,
// cut to max characters.
func ModelText(res Result, max int) string {
	body := map[string]any{"summary": res.Summary}
	if res.Data != nil {
		body["data"] = res.Data
	}
	text := mustJSON(body)
	if utf8.RuneCountInString(text) <= max {
		return text
	}
	if cut, ok := fitList(res, max); ok {
		return cut
	}
	return HeadAndTail(text, max)
}

// ErrorText renders a tool error as the JSON text the model reads.
func ErrorText(e *Error) string {
	if e != nil {
		c := *e
		c.Message = WithoutIDs(c.Message)
		c.Issues = slices.Clone(e.Issues)
		for i := range c.Issues {
			c.Issues[i].Message = WithoutIDs(c.Issues[i].Message)
		}
		e = &c
	}
	return HeadAndTail(mustJSON(map[string]any{"error": e}), MaxResultChars)
}

// fitList handles data holding exactly one list (as {"tasks": [...], ...}):
// it keeps as many whole items as fit and says how many were left out.
func fitList(res Result, max int) (string, bool) {
	raw, err := json.Marshal(res.Data)
	if err != nil {
		return "", false
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return "", false
	}
	listKey := ""
	var items []json.RawMessage
	for k, v := range obj {
		var arr []json.RawMessage
		// A null field (a nil slice) is not a list; it unmarshals as one.
		if len(v) > 0 && v[0] == '[' && json.Unmarshal(v, &arr) == nil {
			if listKey != "" {
				return "", false // more than one list: not a simple list
			}
			listKey, items = k, arr
		}
	}
	if listKey == "" {
		return "", false
	}
	offset := 0
	v, paged := obj["offset"]
	if paged {
		_ = json.Unmarshal(v, &offset)
	}
	_, hasNext := obj["nextOffset"]
	// At least one whole item: a first item alone too long is cut head and
	// tail like any text.
	for n := len(items) - 1; n >= 1; n-- {
		obj[listKey] = mustRaw(items[:n])
		if paged || hasNext { // continue where the cut is
			obj["nextOffset"] = mustRaw(offset + n)
		}
		obj["truncated"] = mustRaw(fmt.Sprintf("showing %d of the %d items in this result; call again with offset %d for the rest", n, len(items), offset+n))
		text := mustJSON(map[string]any{"summary": res.Summary, "data": obj})
		if utf8.RuneCountInString(text) <= max {
			return text, true
		}
	}
	return "", false
}

// HeadAndTail keeps the start and the end of text with a marker where the
// middle was cut; the result has at most max characters.
func HeadAndTail(text string, max int) string {
	r := []rune(text)
	if len(r) <= max {
		return text
	}
	marker := fmt.Sprintf("\n…[%d characters cut]…\n", len(r)-max)
	keep := max - utf8.RuneCountInString(marker)
	if keep < 2 {
		return string(r[:max])
	}
	head := keep * 2 / 3
	tail := keep - head
	return string(r[:head]) + marker + string(r[len(r)-tail:])
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf(`{"error":{"code":%q,"message":%q}}`, CodeFailed, "the result could not be encoded")
	}
	return string(b)
}

func mustRaw(v any) json.RawMessage { return json.RawMessage(mustJSON(v)) }
