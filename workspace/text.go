package workspace

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Text Hub stores must be UTF-8 without a NUL: Postgres refuses either
// (SQLSTATE 22021) where SQLite keeps them. Input from a person is refused
// where it enters; text from the model is cleaned (CleanText), since a turn
// must not fail over a stray byte.

const (
	msgNUL     = "must not contain a NUL character (\\u0000)"
	msgNotUTF8 = "must be valid UTF-8"
)

// BadText reports whether s holds a NUL or bytes that are not UTF-8.
func BadText(s string) bool {
	return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s)
}

// CheckText refuses text Hub cannot store alike on both engines, naming
// the field (path, a JSON pointer).
func CheckText(path, s string) error {
	switch {
	case strings.IndexByte(s, 0) >= 0:
		return invalid(path, "%s", msgNUL)
	case !utf8.ValidString(s):
		return invalid(path, "%s", msgNotUTF8)
	}
	return nil
}

// CheckLine trims a one-line field and refuses a line break, a control or
// bidi formatting character (LineControl), text Hub cannot store, or more
// than max characters; what names the field in the message ("the
// persona").
func CheckLine(path, what, raw string, max int) (string, error) {
	v := strings.TrimSpace(raw)
	if err := CheckText(path, v); err != nil {
		return "", err
	}
	if r, ok := LineControl(v); ok {
		if strings.ContainsRune("\r\n\v\f\u0085\u2028\u2029", r) {
			return "", invalid(path, "%s is one line, without line breaks", what)
		}
		return "", invalid(path, "%s must not contain control or text-direction characters (U+%04X)", what, r)
	}
	if n := utf8.RuneCountInString(v); n > max {
		return "", invalid(path, "%s has at most %d characters, not %d", what, max, n)
	}
	return v, nil
}

// requiredLine is CheckLine for a field that must not be empty (missing).
func requiredLine(path, what, missing, raw string, max int) (string, error) {
	v, err := CheckLine(path, what, raw, max)
	if err == nil && v == "" {
		err = invalid(path, "%s", missing)
	}
	return v, err
}

// LineControl finds the first character that has no place in a one-line
// label: a C0 or C1 control, DEL, U+2028, U+2029, or a bidi embedding,
// override or isolate, which makes a name read differently from what it
// is. NUL is CheckText's.
func LineControl(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r > 0 && r < 0x20, r >= 0x7f && r <= 0x9f,
			r == 0x2028, r == 0x2029,
			r >= 0x202a && r <= 0x202e,
			r >= 0x2066 && r <= 0x2069:
			return r, true
		}
	}
	return 0, false
}

// CleanText keeps what can be kept of text that must not be refused (the
// model's): NULs are dropped, bytes that are not UTF-8 become U+FFFD.
func CleanText(s string) string {
	if !BadText(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

// clip cuts text to at most n characters, ending in an ellipsis if cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// maxScanDepth bounds CheckJSONText's nesting; deeper documents are left to
// the JSON decoder, which refuses them.
const maxScanDepth = 10000

// CheckJSONText finds the first string of a JSON document, key or value,
// holding a NUL (raw or \u0000) or bytes that are not UTF-8, and refuses it
// by its JSON pointer ("/mentions/0/id"): Go's decoder would silently turn
// them into U+FFFD. Any other fault is the decoder's to report.
func CheckJSONText(doc []byte) error {
	if utf8.Valid(doc) && bytes.IndexByte(doc, 0) < 0 && !bytes.Contains(doc, []byte(`\u0000`)) {
		return nil
	}
	type frame struct {
		object  bool
		wantKey bool // in an object, the next string is a key
		key     string
		index   int
	}
	var stack []frame
	pointer := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(escapePointer(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	for i := 0; i < len(doc); {
		switch doc[i] {
		case '{', '[':
			if len(stack) >= maxScanDepth {
				return nil
			}
			stack = append(stack, frame{object: doc[i] == '{', wantKey: doc[i] == '{'})
			i++
		case '}', ']':
			if len(stack) == 0 {
				return nil
			}
			stack = stack[:len(stack)-1]
			i++
		case ',':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					stack[n-1].wantKey = true
				} else {
					stack[n-1].index++
				}
			}
			i++
		case '"':
			end, msg := scanString(doc, i)
			if end < 0 {
				return nil
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				var key string
				if json.Unmarshal(doc[i:end], &key) != nil {
					return nil
				}
				stack[n-1].key, stack[n-1].wantKey = CleanText(key), false
				if msg != "" {
					return invalid(pointer(), "a field name %s", msg)
				}
			} else if msg != "" {
				return invalid(pointer(), "%s", msg)
			}
			i = end
		default:
			i++
		}
	}
	return nil
}

// scanString reads the JSON string starting at doc[start] (a quote) and
// returns the index after its closing quote (-1 when it has none) and what
// is wrong with it ("" when nothing).
func scanString(doc []byte, start int) (end int, msg string) {
	for j := start + 1; j < len(doc); {
		c := doc[j]
		switch {
		case c == '"':
			return j + 1, msg
		case c == '\\':
			if j+5 < len(doc) && string(doc[j+1:j+6]) == "u0000" && msg == "" {
				msg = msgNUL
			}
			j += 2
		case c == 0:
			if msg == "" {
				msg = msgNUL
			}
			j++
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRune(doc[j:])
			if r == utf8.RuneError && size == 1 && msg == "" {
				msg = msgNotUTF8
			}
			j += size
		}
	}
	return -1, ""
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
