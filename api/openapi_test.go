package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/require"

	"hub/openapi"
)

// committedDocument is the document as committed, for clients generated
// without running Hub (scripts/client-check.sh reads it).
var committedDocument = filepath.Join("..", "docs", "openapi.json")

// Every route the router has is in the document, and nothing else: a route
// added without its entry in the table (routes.go) fails here.
func TestOpenAPIDocumentHasEveryRouteOfTheRouter(t *testing.T) {
	engine := New(Deps{}).(*gin.Engine)
	var served []string
	for _, r := range engine.Routes() {
		served = append(served, r.Method+" "+openapiPath(r.Path))
	}
	doc := documentOf(t)
	var described []string
	for p, item := range doc.Paths {
		for m := range item {
			described = append(described, strings.ToUpper(m)+" "+p)
		}
	}
	slices.Sort(served)
	slices.Sort(described)
	require.Equal(t, served, described)
}

// /api/openapi.json serves exactly the committed docs/openapi.json, so a
// client generated from the file is generated from what Hub serves.
// HUB_UPDATE_OPENAPI=1 writes the file anew.
func TestOpenAPIDocumentIsTheCommittedOne(t *testing.T) {
	rec := httptest.NewRecorder()
	New(Deps{}).ServeHTTP(rec, httptest.NewRequest("GET", "/api/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	want, err := OpenAPIDocument()
	require.NoError(t, err)
	require.Equal(t, string(want), rec.Body.String())
	if os.Getenv("HUB_UPDATE_OPENAPI") == "1" {
		require.NoError(t, os.WriteFile(committedDocument, want, 0o644))
	}
	got, err := os.ReadFile(committedDocument)
	require.NoError(t, err)
	require.Equal(t, string(want), string(got),
		"docs/openapi.json is not the document Hub serves: run HUB_UPDATE_OPENAPI=1 go test ./api -run TestOpenAPIDocumentIsTheCommittedOne and commit it")
}

// The document is a valid OpenAPI 3.1 document, and each operation has
// what a client needs: an operationId, a success answer (a 2xx, or a
// redirect for a browser's navigation), and the error
// body on each 4xx.
func TestOpenAPIDocumentIsValid(t *testing.T) {
	raw, err := OpenAPIDocument()
	require.NoError(t, err)
	d, err := libopenapi.NewDocument(raw)
	require.NoError(t, err)
	v, errs := validator.NewValidator(d)
	require.Empty(t, errs)
	valid, verrs := v.ValidateDocument()
	for _, e := range verrs {
		t.Errorf("%s: %s", e.Message, e.Reason)
	}
	require.True(t, valid)

	doc := documentOf(t)
	for p, item := range doc.Paths {
		for m, op := range item {
			success := false
			for status, resp := range op.Responses {
				// 302: the browser sign-in's redirects, which answer nothing else.
				if status[0] == '2' || status == "302" {
					success = true
				}
				if status[0] == '4' {
					require.NotEmpty(t, resp.Ref, "%s %s %s: an error answer is a shared one", m, p, status)
				}
			}
			require.True(t, success, "%s %s has no success answer", m, p)
			if strings.Contains(p, "{") {
				require.Contains(t, op.Responses, "404", "%s %s has path ids", m, p)
			}
		}
	}
}

func documentOf(t *testing.T) *openapi.Document {
	d, err := buildDocument((&Server{}).routes())
	require.NoError(t, err)
	return d
}

// Every object schema a request body reaches says what it holds: its
// properties, or an explicit additionalProperties schema. An object with
// neither is what openapi-typescript types as Record<string, never>, which
// a typed client cannot send anything in without a cast (as the page
// context once was).
func TestRequestBodiesHaveNoUntypedObjects(t *testing.T) {
	raw, err := OpenAPIDocument()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	components := doc["components"].(map[string]any)["schemas"].(map[string]any)
	seen := map[string]bool{}
	var walk func(where string, s any)
	walk = func(where string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if ref, ok := m["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !seen[name] {
				seen[name] = true
				walk(name, components[name])
			}
			return
		}
		isObject := m["type"] == "object"
		if types, ok := m["type"].([]any); ok {
			isObject = slices.Contains(types, any("object"))
		}
		props, _ := m["properties"].(map[string]any)
		_, extra := m["additionalProperties"].(map[string]any)
		if isObject && len(props) == 0 && !extra {
			t.Errorf("%s: an object with no properties and no additionalProperties schema", where)
		}
		for name, p := range props {
			walk(where+"/"+name, p)
		}
		walk(where+"/items", m["items"])
		if extra {
			walk(where+"/additionalProperties", m["additionalProperties"])
		}
		for i, o := range asList(m["oneOf"]) {
			walk(fmt.Sprintf("%s/oneOf/%d", where, i), o)
		}
	}
	bodies := 0
	for path, item := range doc["paths"].(map[string]any) {
		for method, op := range item.(map[string]any) {
			body, ok := op.(map[string]any)["requestBody"].(map[string]any)
			if !ok {
				continue
			}
			for ctype, media := range body["content"].(map[string]any) {
				bodies++
				walk(fmt.Sprintf("%s %s (%s)", strings.ToUpper(method), path, ctype), media.(map[string]any)["schema"])
			}
		}
	}
	require.Greater(t, bodies, 10, "request bodies found")
	require.True(t, seen["StartTurnRequest"], "the turn's request was walked")
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
