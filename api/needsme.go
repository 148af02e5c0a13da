package api

import (
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
)

type needsMeDTO struct {
	CallID         string    `json:"callId"`
	Tool           string    `json:"tool"`
	Preview        string    `json:"preview"`
	ConversationID string    `json:"conversationId"`
	MessageID      string    `json:"messageId"`
	SpaceID        string    `json:"spaceId"`
	CreatedAt      time.Time `json:"createdAt"`
}

type needsMeListDTO struct {
	Items []needsMeDTO `json:"items"`
}

// needsMe lists the person's writes held for the Needs me list, oldest
// first.
func (s *Server) needsMe(c *gin.Context) (any, error) {
	calls, err := s.Chat.HeldCalls(c.Request.Context(), person(c).ID, chat.HeldForNeedsMe)
	return needsMeListDTO{Items: toDTOs(calls, func(h chat.HeldCall) needsMeDTO {
		return needsMeDTO{CallID: h.ID, Tool: h.Tool, Preview: h.Summary, ConversationID: h.ConversationID,
			MessageID: h.MessageID, SpaceID: h.SpaceID, CreatedAt: h.CreatedAt}
	})}, err
}
