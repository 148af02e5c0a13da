package api

import (
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
// what a client needs: an operationId, a success answer, and the error
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
				if status[0] == '2' {
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
