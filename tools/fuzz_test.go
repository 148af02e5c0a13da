package tools_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"hub/dbtest"
	"hub/tools"
	"hub/workspace"
)

// echoInput exercises nested objects, arrays and every JSON type.
type echoInput struct {
	Text  string            `json:"text,omitempty" jsonschema:"maxLength=50"`
	Count int               `json:"count,omitempty" jsonschema:"minimum=0,maximum=10"`
	Ratio float64           `json:"ratio,omitempty"`
	Flag  bool              `json:"flag,omitempty"`
	Items []echoItem        `json:"items,omitempty" jsonschema:"maxItems=5"`
	Tags  map[string]string `json:"tags,omitempty"`
}

type echoItem struct {
	Title string `json:"title" jsonschema:"minLength=1"`
	Due   string `json:"due,omitempty" jsonschema:"format=date"`
}

var echo = tools.Define(tools.Spec{Name: "echo", Area: "test", Description: "Echoes its input."},
	func(ctx context.Context, env tools.Env, in echoInput) (tools.Result, error) {
		return tools.Result{Summary: "echoed", Data: in}, nil
	})

var knownCodes = []string{
	tools.CodeUnknownTool, tools.CodeInvalidPayload, tools.CodeNotFound, tools.CodeForbidden,
	tools.CodeStale, tools.CodeRefused, tools.CodeVetoed, tools.CodeFailed,
}

// FuzzDispatch feeds Dispatch arbitrary names, arguments and roles: it must
// never panic, and every answer must be a result or a structured error the
// model can read.
func FuzzDispatch(f *testing.F) {
	fx := newFixture(f, dbtest.SQLite(f))
	reg := tools.Hub(nil)
	reg.Add(echo)
	offered := []string{"hub_list_tasks", "hub_create_tasks", "echo"}
	roles := []workspace.Role{workspace.RoleOwner, workspace.RoleEditor, workspace.RoleGuest, workspace.RoleViewer, "", "admin"}

	for _, seed := range []struct {
		name, args string
		role       uint8
	}{
		{"hub_list_tasks", `{}`, 0},
		{"hub_list_tasks", `{"status":"todo","query":"50% off_","limit":2,"offset":1}`, 3},
		{"hub_create_tasks", `{"tasks":[{"title":"Draft brief","dueDate":"2026-03-31"}]}`, 0},
		{"hub_create_tasks", `{"tasks":[{"titl":"x","dueDate":3}],"x":1}`, 0},
		{"hub_create_tasks", `{"tasks":[{"title":"x","projectId":"proj_nope"}]}`, 1},
		{"hub_create_tasks", `{"tasks":[{"title":"viewer"}]}`, 3},
		{"hub_create_tasks", `{"tasks":[{"title":"x","dueDate":"2026-02-30"}]}`, 2},
		{"echo", `{"text":"hi","count":3,"ratio":0.5,"flag":true,"items":[{"title":"a","due":"2026-01-01"}],"tags":{"k":"v"}}`, 0},
		{"echo", `{"count":1.0}`, 0},
		{"echo", `{"count":1e400}`, 0},
		{"echo", `{"items":[{}],"tags":{"k":1}}`, 5},
		{"echo", `[]`, 0},
		{"echo", `null`, 0},
		{"echo", `{"a/b~c":1}`, 0},
		{"echo", "{\"text\":\"\xff\"}", 0},
		{"echo", ``, 4},
		{"hub_delete_tasks", `{}`, 0},
		{"", ``, 0},
		{"unoffered", `{`, 0},
	} {
		f.Add(seed.name, seed.args, seed.role)
	}

	f.Fuzz(func(t *testing.T, name, args string, role uint8) {
		env := tools.Env{Workspace: fx.svc, Actor: fx.owner, SpaceID: fx.acme, Role: roles[int(role)%len(roles)]}
		if env.Role == workspace.RoleViewer {
			env.Actor = fx.viewer
		}
		res, terr := reg.Dispatch(t.Context(), env, tools.Call{Name: name, Arguments: args, Offered: offered})
		if !slices.Contains(offered, name) {
			if terr == nil || terr.Code != tools.CodeUnknownTool {
				t.Fatalf("an unoffered name %q ran: %+v %+v", name, res, terr)
			}
			return
		}
		if terr != nil {
			if !slices.Contains(knownCodes, terr.Code) {
				t.Fatalf("unknown error code %q", terr.Code)
			}
			if terr.Message == "" {
				t.Fatalf("an error without a message: %+v", terr)
			}
			if terr.Path != "" && !strings.HasPrefix(terr.Path, "/") {
				t.Fatalf("not a JSON pointer: %q", terr.Path)
			}
			for _, is := range terr.Issues {
				if is.Message == "" || (is.Path != "" && !strings.HasPrefix(is.Path, "/")) {
					t.Fatalf("a bad issue: %+v", is)
				}
			}
			text := tools.ErrorText(terr)
			if utf8.RuneCountInString(text) > tools.MaxResultChars {
				t.Fatalf("error text of %d characters", utf8.RuneCountInString(text))
			}
			if utf8.RuneCountInString(text) < tools.MaxResultChars && !json.Valid([]byte(text)) {
				t.Fatalf("error text is not JSON: %s", text)
			}
			return
		}
		d, _ := reg.Get(name)
		if d.IsWrite && !env.Role.CanWrite() {
			t.Fatalf("a %q wrote with %s", env.Role, name)
		}
		if res.Summary == "" {
			t.Fatal("a result without a summary")
		}
		text := tools.ModelText(res, tools.MaxResultChars)
		if utf8.RuneCountInString(text) > tools.MaxResultChars {
			t.Fatalf("result text of %d characters", utf8.RuneCountInString(text))
		}
	})
}

// FuzzHeadAndTail: the cut never exceeds its limit and never splits a
// character.
func FuzzHeadAndTail(f *testing.F) {
	f.Add("hello world", 5)
	f.Add(strings.Repeat("é", 100), 40)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, text string, max int) {
		if max < 0 || max > 1<<16 || !utf8.ValidString(text) {
			t.Skip()
		}
		out := tools.HeadAndTail(text, max)
		if n := utf8.RuneCountInString(out); n > max && n > utf8.RuneCountInString(text) {
			t.Fatalf("%d characters, limit %d", n, max)
		}
		if utf8.RuneCountInString(text) <= max && out != text {
			t.Fatal("a short text changed")
		}
		if !utf8.ValidString(out) {
			t.Fatal("split a character")
		}
	})
}
