package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// A Postgres refusal of text that got past the edge is the caller's input:
// 400, not 500.
func TestClassifyBadTextFromPostgresIsA400(t *testing.T) {
	for _, code := range []string{"22021", "22P05"} {
		err := fmt.Errorf("create task: %w", &pgconn.PgError{Code: code, Message: "invalid byte sequence for encoding \"UTF8\": 0x00"})
		status, detail := classify(err)
		require.Equal(t, http.StatusBadRequest, status, code)
		require.Equal(t, codeInvalid, detail.Code)
		require.NotContains(t, detail.Message, "0x00", "the database's words stay in the log")
	}
}

// The route fuzz (e2e/fuzz_routes_test.go) reads the routes from
// /api/openapi.json: every /api route the router has must be listed there,
// or a route added beside s.handle would go unfuzzed.
func TestOpenAPIListsEveryRoute(t *testing.T) {
	engine := New(Deps{}).(*gin.Engine)
	listed := map[string]bool{}
	rec := httptest.NewRecorder()
	engine.ServeHTTP(rec, httptest.NewRequest("GET", "/api/openapi.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	for p, ops := range doc.Paths {
		for m := range ops {
			listed[strings.ToUpper(m)+" "+p] = true
		}
	}
	for _, r := range engine.Routes() {
		if !strings.HasPrefix(r.Path, "/api/") || r.Path == "/api/openapi.json" {
			continue
		}
		require.True(t, listed[r.Method+" "+openapiPath(r.Path)], "%s %s is not in /api/openapi.json", r.Method, r.Path)
	}
}
