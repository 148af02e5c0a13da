package api

import (
	"github.com/gin-gonic/gin"

	"hub/llm"
)

// modelDTO is one model a person may choose; its endpoint and keys are
// the operator's and never shown.
type modelDTO struct {
	ID            string    `json:"id"`
	Name          string    `json:"name"`
	ContextWindow int       `json:"contextWindow"`
	Efforts       []string  `json:"efforts"`
	Images        bool      `json:"images"`
	Files         bool      `json:"files"`
	Price         llm.Price `json:"price" doc:"US dollars per million tokens."`
	Default       bool      `json:"default"`
	Tier          string    `json:"tier" doc:"The model's class, as a message's tier names it (\"\": none)."`
}

type modelListDTO struct {
	Models  []modelDTO `json:"models"`
	Default string     `json:"default" doc:"The id of the catalog's default model."`
}

func (s *Server) listModels(*gin.Context) (any, error) {
	def := s.Models.Default().ID
	return modelListDTO{Default: def, Models: toDTOs(s.Models.Models, func(m llm.Model) modelDTO {
		return modelDTO{ID: m.ID, Name: m.Name, ContextWindow: m.ContextWindow, Efforts: nonNilStrings(m.Efforts),
			Images: m.Images, Files: m.Files, Price: m.Price, Default: m.ID == def, Tier: m.Tier}
	})}, nil
}
