package mcpapps

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestKeepSkipsWhatCannotBeOffered(t *testing.T) {
	for _, tc := range []struct {
		tool *mcp.Tool
		why  string
	}{
		{&mcp.Tool{Name: "", InputSchema: json.RawMessage(`{"type":"object"}`)}, "no usable name"},
		{&mcp.Tool{Name: "arr", InputSchema: json.RawMessage(`{"type":"array"}`)}, "not an object schema"},
		{&mcp.Tool{Name: "str", InputSchema: json.RawMessage(`"object"`)}, "not an object schema"},
		{&mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`)}, "larger than"},
	} {
		_, why := keep(tc.tool)
		if !strings.Contains(why, tc.why) {
			t.Errorf("%s: %q, want %q", tc.tool.Name, why, tc.why)
		}
	}
	lt, why := keep(&mcp.Tool{Name: "ok", Description: strings.Repeat("d", 2*MaxDescription), InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "Okay"}})
	if why != "" || !lt.ReadOnly || lt.Title != "Okay" || len([]rune(lt.Description)) != MaxDescription {
		t.Fatalf("%+v %q", lt, why)
	}
}
