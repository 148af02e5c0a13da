package api

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

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

// Path ids and query values with bad bytes are answered before any
// handler (none of these reaches the database: Deps has none).
func TestBadBytesInPathAndQueryAreRefusedAtTheEdge(t *testing.T) {
	engine := New(Deps{})
	for _, tc := range []struct {
		target       string
		status       int
		code, path   string
		messageShows string
	}{
		{"/api/spaces/%FF/tasks", 404, codeNotFound, "", "no space has this id"},
		{"/api/spaces/a%00b/tasks/x", 404, codeNotFound, "", "no space has this id"},
		{"/api/spaces/sp/tasks/%C0%AF", 404, codeNotFound, "", "no record has this id"},
		{"/api/assistant/turns/%00", 404, codeNotFound, "", "no turn has this id"},
		{"/api/assistant/turns/%ED%A0%80/stream", 404, codeNotFound, "", "no turn has this id"},
		{"/api/spaces?q=%FF", 400, codeInvalid, "/q", "UTF-8"},
		{"/api/assistant/conversations?spaceId=%00", 400, codeInvalid, "/spaceId", "NUL"},
		{"/api/spaces?ok=1&a%2Fb=%00", 400, codeInvalid, "/a~1b", "NUL"},
		{"/api/spaces?%FF=1", 400, codeInvalid, "/\uFFFD", "name"},
		{"/api/spaces?a=%ZZ", 400, codeInvalid, "", "query string"},
		{"/api/nope/%FF", 404, codeNotFound, "", "no such endpoint"},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/", nil)
		req.URL, _ = url.Parse(tc.target)
		engine.ServeHTTP(rec, req)
		require.Equal(t, tc.status, rec.Code, "%s: %s", tc.target, rec.Body)
		var body errorBody
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), tc.target)
		require.Equal(t, tc.code, body.Error.Code, tc.target)
		require.Equal(t, tc.path, body.Error.Path, tc.target)
		require.Contains(t, body.Error.Message, tc.messageShows, tc.target)
	}
}
