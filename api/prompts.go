package api

import (
	"sync"

	"github.com/gin-gonic/gin"

	"hub/assistant"
	"hub/mcpapps"
)

// promptDTO is one prompt of GET /api/prompts.
type promptDTO struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Text        string `json:"text"`
	Tokens      int    `json:"tokens"`
	Budget      int    `json:"budget"`
}

func toPromptDTO(p assistant.Prompt) promptDTO {
	return promptDTO{Name: p.Name, Description: p.Description, Text: p.Text, Tokens: p.Tokens(), Budget: p.Budget}
}

type promptListDTO struct {
	Prompts []promptDTO `json:"prompts"`
}

// promptCatalog is built once: the catalog is made of sample values and the
// binary's own builders, so it cannot change while the process runs.
var promptCatalog = sync.OnceValue(func() []promptDTO {
	return toDTOs(assistant.Catalog(mcpapps.SampleTools()...), toPromptDTO)
})

// listPrompts shows every prompt Hub sends the model, built by its real
// builder with sample values, with its estimated size in tokens and its
// budget, so a person can read what the model is told.
func (s *Server) listPrompts(*gin.Context) (any, error) {
	return promptListDTO{Prompts: promptCatalog()}, nil
}
