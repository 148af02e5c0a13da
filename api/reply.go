package api

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// replyFunc is the handler of a route whose answer is one JSON value: the
// value, or the error respondError answers.
type replyFunc func(*gin.Context) (any, error)

// replying serves h: its value as JSON with status (204: no body), its
// error through respondError.
func replying(status int, h replyFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		v, err := h(c)
		switch {
		case err != nil:
			respondError(c, err)
		case status == http.StatusNoContent:
			c.Status(status)
		default:
			c.JSON(status, v)
		}
	}
}

// handling serves a handler that writes its own answer, answering its
// error through respondError (an event stream, once started, returns none).
func handling(h func(*gin.Context) error) gin.HandlerFunc {
	return func(c *gin.Context) {
		if err := h(c); err != nil {
			respondError(c, err)
		}
	}
}

// withBody is a reply that decodes the request's JSON body into a B before
// h runs.
func withBody[B any](h func(*gin.Context, B) (any, error)) replyFunc {
	return func(c *gin.Context) (any, error) {
		var req B
		if err := decode(c, &req); err != nil {
			return nil, err
		}
		return h(c, req)
	}
}

// toDTOs converts each of in with to; none is [], never null.
func toDTOs[T, D any](in []T, to func(T) D) []D {
	out := make([]D, len(in))
	for i, v := range in {
		out[i] = to(v)
	}
	return out
}
