package api

import (
	"strings"

	"github.com/gin-gonic/gin"

	"hub/hub"
)

const personKey = "hub.person"

// authenticate requires a full bearer token and puts its person on the
// request.
func (s *Server) authenticate(c *gin.Context) {
	p, err := s.Hub.Authenticate(c.Request.Context(), bearer(c), "")
	if err != nil {
		respondError(c, err)
		return
	}
	c.Set(personKey, p)
	c.Next()
}

func bearer(c *gin.Context) string {
	h := c.GetHeader("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

func person(c *gin.Context) hub.Person {
	p, _ := c.Get(personKey)
	return p.(hub.Person)
}

func actor(c *gin.Context) hub.Actor {
	return hub.Actor{PersonID: person(c).ID, Via: hub.ViaREST}
}
