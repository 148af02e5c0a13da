package api

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgconn"

	"hub/workspace"
)

// refuseBadBytes refuses a NUL or bytes that are not UTF-8 in path ids and
// the query, the same on both engines: they would reach Postgres as a 500
// and be stored by SQLite (docs/decisions.md, "Bad bytes at the edge";
// JSON bodies are checked in decode). A path id with them is 404 (no record
// has such an id); a query value or name with them, or a query that cannot
// be parsed, is 400 at "/<name>". An unmatched path is left to NoRoute.
func refuseBadBytes(c *gin.Context) {
	if c.FullPath() == "" {
		c.Next()
		return
	}
	for _, p := range c.Params {
		if workspace.BadText(p.Value) {
			respondError(c, newError(http.StatusNotFound, codeNotFound, "", "no "+paramNoun(p.Key)+" has this id"))
			return
		}
	}
	query, err := url.ParseQuery(c.Request.URL.RawQuery)
	if err != nil {
		respondError(c, badRequest("", "the query string cannot be read: write it as name=value pairs joined by &, percent-encoded"))
		return
	}
	for name, values := range query {
		if workspace.BadText(name) {
			respondError(c, badRequest("/"+escapePointer(workspace.CleanText(name)), "a query parameter name must be valid UTF-8 without a NUL character"))
			return
		}
		for _, v := range values {
			if err := workspace.CheckText("/"+escapePointer(name), v); err != nil {
				respondError(c, err)
				return
			}
		}
	}
	c.Next()
}

// paramNoun names what a path parameter identifies, for the 404 message.
func paramNoun(param string) string {
	if noun, ok := strings.CutSuffix(param, "Id"); ok && noun != "" {
		return noun
	}
	return "record"
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// badTextError is Postgres refusing text (22021: a NUL or bytes that are
// not UTF-8; 22P05: a character the encoding cannot hold): the caller's
// input that got past the edge, so a 400, not a 500.
func badTextError(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "22021" || pg.Code == "22P05")
}
