package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/template"
)

// templateData is what reply templates see.
type templateData struct {
	// Groups are the lastUser regex's captures; Groups 0 is the whole match.
	Groups []string
	// LastUser is the text of the last user message.
	LastUser string
	// LastAssistant is the text of the last assistant message: a reply so
	// far that the request asks to continue, say.
	LastAssistant string
	// LastToolResult is the raw content of the last tool message.
	LastToolResult string
	// LastToolSummary is that result's "summary" (Hub's tool results are
	// {"summary": ...} or {"error": {"code", "message"}}), else its error
	// message, else the raw content.
	LastToolSummary string
	// LastToolError is the error message of the last tool result, if it
	// was an error; empty otherwise.
	LastToolError string
}

// templateFuncs: json quotes a value as JSON (for rawArguments), trim trims
// spaces, tail is a text's last n characters (all of a shorter one: a
// continuation that repeats the end of the reply so far), find the first
// match of a regular expression in a text ("" for none: a reply citing a
// link from a tool result).
var templateFuncs = template.FuncMap{
	"json": jsonText,
	"trim": strings.TrimSpace,
	"tail": tail,
	"find": func(pattern, s string) (string, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return "", err
		}
		return re.FindString(s), nil
	},
}

func tail(n int, s string) string {
	r := []rune(s)
	if n < 0 || n >= len(r) {
		return s
	}
	return string(r[len(r)-n:])
}

func newTemplate(name, text string) (*template.Template, error) {
	return template.New(name).Funcs(templateFuncs).Option("missingkey=error").Parse(text)
}

func execTemplate(name, text string, data templateData) (string, error) {
	t, err := newTemplate(name, text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// summarizeToolResult reads Hub's tool-result shape: {"summary": "..."} or
// {"error": {"code", "message"}}. It returns the summary (falling back to the
// error message, then to the raw text) and the error message if any.
func summarizeToolResult(content string) (summary, errMsg string) {
	var body struct {
		Summary *string `json:"summary"`
		Error   *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(content), &body); err != nil {
		return content, ""
	}
	if body.Error != nil {
		errMsg = body.Error.Message
		if errMsg == "" {
			errMsg = body.Error.Code
		}
	}
	switch {
	case body.Summary != nil:
		return *body.Summary, errMsg
	case errMsg != "":
		return errMsg, errMsg
	default:
		return content, ""
	}
}

// renderJSONStrings re-emits a JSON value with every string value (not
// object keys) replaced by f(value), keeping key order. It is how argument
// templates are rendered: the rendered text is JSON-escaped, so a capture
// containing quotes cannot break the arguments.
func renderJSONStrings(src json.RawMessage, f func(string) (string, error)) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(src))
	dec.UseNumber()
	var out bytes.Buffer
	// For each open container: is it an object, and is the next string in it a key?
	type frame struct{ object, wantKey bool }
	var stack []frame
	needComma := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].wantKey
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:top]
			needComma = true
			if top > 0 && stack[top-1].object {
				stack[top-1].wantKey = true
			}
			continue
		}
		if needComma {
			out.WriteByte(',')
		}
		needComma = false
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{', wantKey: v == '{'})
			continue
		case string:
			if !isKey {
				if v, err = f(v); err != nil {
					return nil, err
				}
			}
			q, _ := jsonText(v) // a string always encodes
			out.WriteString(q)
		case json.Number:
			out.WriteString(v.String())
		case bool:
			fmt.Fprint(&out, v)
		case nil:
			out.WriteString("null")
		}
		if isKey {
			out.WriteByte(':')
			stack[top].wantKey = false
			continue
		}
		needComma = true
		if top >= 0 && stack[top].object {
			stack[top].wantKey = true
		}
	}
	return out.Bytes(), nil
}

// jsonText encodes v as JSON without encoding/json's HTML escaping, so
// "a < b" stays readable in the arguments the model "sent".
func jsonText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n"), err
}
