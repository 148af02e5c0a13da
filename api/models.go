package api

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"hub/llm"
)

// modelDTO is one model a person may choose. Endpoints, their base URLs
// and their keys (and the names of the variables holding them) are the
// operator's and never shown (docs/decisions.md, "Models a person
// chooses").
type modelDTO struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	ContextWindow int       `json:"contextWindow"`
	Efforts       []string  `json:"efforts"`
	Images        bool      `json:"images"`
	Files         bool      `json:"files"`
	Price         llm.Price `json:"price" doc:"US dollars per million tokens."`
	Default       bool      `json:"default"`
}

// modelListDTO is the catalog and the id of its default model.
type modelListDTO struct {
	Models  []modelDTO `json:"models"`
	Default string     `json:"default" doc:"The id of the catalog's default model."`
}

func (s *Server) listModels(c *gin.Context) {
	def := s.Models.Default().ID
	out := make([]modelDTO, 0, len(s.Models.Models))
	for _, m := range s.Models.Models {
		efforts := m.Efforts
		if efforts == nil {
			efforts = []string{}
		}
		out = append(out, modelDTO{ID: m.ID, Name: m.Name, ContextWindow: m.ContextWindow, Efforts: efforts,
			Images: m.Images, Files: m.Files, Price: m.Price, Default: m.ID == def})
	}
	c.JSON(http.StatusOK, modelListDTO{Models: out, Default: def})
}
