package api

import (
	"sync"

	"github.com/gin-gonic/gin"

	"hub/assistant"
	"hub/mcpapps"
)

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

// promptCatalog is built once: made of sample values and the binary's own
// builders, it cannot change while the process runs.
var promptCatalog = sync.OnceValue(func() []promptDTO {
	return toDTOs(assistant.Catalog(mcpapps.SampleTools()...), toPromptDTO)
})

func (s *Server) listPrompts(*gin.Context) (any, error) {
	return promptListDTO{Prompts: promptCatalog()}, nil
}
