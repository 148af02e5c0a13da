package api

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"

	"hub/turns"
	"hub/workspace"
)

// agentDTO is one of the person's agents (workspace.Agent).
type agentDTO struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Persona      string    `json:"persona" doc:"The agent's charter: it replaces the owner's persona in the agent's turns."`
	Model        string    `json:"model" doc:"A catalog model (\"\": the owner's default)."`
	Effort       string    `json:"effort" doc:"The model's reasoning effort (\"\": the owner's default)."`
	Tools        []string  `json:"tools" doc:"Tools of the spaces' connected apps the agent's turns are offered besides Hub's, checked like every tool."`
	WithoutTools []string  `json:"withoutTools" doc:"Tools the agent's turns are never offered."`
	Spaces       []string  `json:"spaces" doc:"The spaces it works in, all of them the owner's; the first holds its conversations. Every call is checked against the owner's role at that moment."`
	Purpose      string    `json:"purpose" doc:"The usage bucket its model calls are counted under."`
	Enabled      bool      `json:"enabled"`
	Version      int       `json:"version" doc:"Send it back in a PATCH (or DELETE ?version=): a stale one is 409."`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

func toAgentDTO(a workspace.Agent) agentDTO {
	return agentDTO{ID: a.ID, Name: a.Name, Persona: a.Persona, Model: a.Model, Effort: a.Effort, Tools: a.Tools,
		WithoutTools: a.WithoutTools, Spaces: a.Spaces, Purpose: a.Purpose, Enabled: a.Enabled, Version: a.Version,
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
}

type agentListDTO struct {
	Agents []agentDTO `json:"agents"`
}

func (s *Server) listAgents(c *gin.Context) (any, error) {
	agents, err := s.Workspace.ListAgents(c.Request.Context(), person(c).ID)
	return agentListDTO{Agents: toDTOs(agents, toAgentDTO)}, err
}

type createAgentRequest struct {
	Name         string   `json:"name"`
	Persona      string   `json:"persona"`
	Model        string   `json:"model"`
	Effort       string   `json:"effort"`
	Tools        []string `json:"tools"`
	WithoutTools []string `json:"withoutTools"`
	Spaces       []string `json:"spaces"`
	Purpose      string   `json:"purpose" doc:"A lower-case name like morning-brief (\"\": agent)."`
	Enabled      *bool    `json:"enabled"` // absent or null: enabled
}

func (s *Server) createAgent(c *gin.Context, req createAgentRequest) (any, error) {
	a, err := s.Workspace.CreateAgent(c.Request.Context(), person(c).ID, workspace.AgentPatch{Name: &req.Name, Persona: &req.Persona,
		Model: &req.Model, Effort: &req.Effort, Tools: &req.Tools, WithoutTools: &req.WithoutTools, Spaces: &req.Spaces,
		Purpose: &req.Purpose, Enabled: req.Enabled})
	return toAgentDTO(a), err
}

type updateAgentRequest struct {
	Version      Optional[int]      `json:"version" openapi:"nonnull"`
	Name         Optional[string]   `json:"name" openapi:"nonnull"`
	Persona      Optional[string]   `json:"persona"`
	Model        Optional[string]   `json:"model"`
	Effort       Optional[string]   `json:"effort"`
	Tools        Optional[[]string] `json:"tools"`
	WithoutTools Optional[[]string] `json:"withoutTools"`
	Spaces       Optional[[]string] `json:"spaces" openapi:"nonnull"`
	Purpose      Optional[string]   `json:"purpose"`
	Enabled      Optional[bool]     `json:"enabled" openapi:"nonnull"`
}

// updateAgent changes the set fields; null clears persona, model, effort,
// tools, withoutTools and purpose (as "" or [] does).
func (s *Server) updateAgent(c *gin.Context, req updateAgentRequest) (any, error) {
	var err error
	p := workspace.AgentPatch{Version: nonNull(&err, req.Version, "/version"), Name: nonNull(&err, req.Name, "/name"),
		Spaces: nonNull(&err, req.Spaces, "/spaces"), Enabled: nonNull(&err, req.Enabled, "/enabled"),
		Persona: patchValue(req.Persona), Model: patchValue(req.Model), Effort: patchValue(req.Effort),
		Tools: patchValue(req.Tools), WithoutTools: patchValue(req.WithoutTools), Purpose: patchValue(req.Purpose)}
	if err != nil {
		return nil, err
	}
	a, err := s.Turns.UpdateAgent(c.Request.Context(), person(c), c.Param("agentId"), p)
	return toAgentDTO(a), err
}

func (s *Server) deleteAgent(c *gin.Context) (any, error) {
	version, err := versionQuery(c)
	if err != nil {
		return nil, err
	}
	return nil, s.Turns.DeleteAgent(c.Request.Context(), person(c), c.Param("agentId"), version)
}

type startAgentTurnRequest struct {
	Text           string           `json:"text" openapi:"required" doc:"The work asked of the agent: at most 20,000 characters."`
	ConversationID string           `json:"conversationId" doc:"One of the agent's conversations to continue; absent: a new one in the agent's first space."`
	Mentions       []mentionRequest `json:"mentions" doc:"Records the message mentions, by kind and id in the conversation's space."`
	Context        json.RawMessage  `json:"context"`
	Files          []string         `json:"files" doc:"Ids of the conversation's space's files the model gets with this message (at most 8, 50 MiB in all)."`
	// ReferenceContext is as a person's turn's.
	ReferenceContext string `json:"referenceContext" doc:"Information for the agent's model alone (at most 8,000 characters), never shown in the transcript."`
	Tier             string `json:"tier" doc:"A model class (a catalog model's tier) for this message in place of the agent's model."`
}

// startAgentTurn starts a turn of the agent: the turn workflow with the
// agent's charter, model, tools and spaces, every call checked against the
// owner's roles (turns.Service.Start).
func (s *Server) startAgentTurn(c *gin.Context, req startAgentTurnRequest) (any, error) {
	mentions := toDTOs(req.Mentions, func(m mentionRequest) turns.Mention { return turns.Mention(m) })
	started, err := s.Turns.Start(c.Request.Context(), person(c), turns.Message{AgentID: c.Param("agentId"),
		ConversationID: req.ConversationID, Text: req.Text, Mentions: mentions, Context: req.Context, Files: req.Files,
		ReferenceContext: req.ReferenceContext, Tier: req.Tier})
	return toTurnStartedDTO(started), err
}
