package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"hub/storage"
)

// Limits of agents (counts per person and per agent).
const (
	MaxAgentName    = 80
	MaxAgentPersona = 2_000 // the charter, in characters: it replaces the owner's persona line
	MaxAgentTools   = 50    // extra tools, and tools gone without, each
	MaxAgentSpaces  = 20    // as a turn's spaces (turns.MaxSpaces)
	MaxAgents       = 50
	// DefaultAgentPurpose is the usage bucket of an agent that names none.
	DefaultAgentPurpose = "agent"
)

// toolName is a tool's name as a provider takes it (OpenAI's function
// names): letters, digits, underscores and dashes.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// Agent is a person's agent: its turns run the turn workflow with Persona
// in place of the owner's persona, on Model and Effort ("": the owner's
// defaults), offered Hub's tools without WithoutTools plus Tools (app
// tools, checked like every tool), in Spaces (the first is where its
// conversations live), with every call checked against the owner's roles
// at that moment: an agent never acts with more than its owner. Its usage
// is counted under Purpose. Version counts its changes from 1.
type Agent struct {
	ID           string
	OwnerID      string
	Name         string
	Persona      string
	Model        string
	Effort       string
	Tools        []string
	WithoutTools []string
	Spaces       []string
	Purpose      string
	Enabled      bool
	Version      int
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// AgentPatch is what creating an agent sends (Name and Spaces required;
// Enabled nil means enabled) and what changing one sends: the set fields,
// at Version, which a change requires (an older one is ErrStale).
type AgentPatch struct {
	Version                               *int
	Name, Persona, Model, Effort, Purpose *string
	Tools, WithoutTools, Spaces           *[]string
	Enabled                               *bool
}

func toAgent(r storage.Agent) Agent {
	a := Agent{ID: r.ID, OwnerID: r.OwnerID, Name: r.Name, Persona: r.Persona, Model: r.Model, Effort: r.Effort,
		Purpose: r.Purpose, Enabled: r.Enabled, Version: r.Version, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	for _, f := range []struct {
		raw string
		to  *[]string
	}{{r.Tools, &a.Tools}, {r.WithoutTools, &a.WithoutTools}, {r.Spaces, &a.Spaces}} {
		*f.to = []string{}
		_ = json.Unmarshal([]byte(f.raw), f.to) // written by patchAgent only
	}
	return a
}

// agentNotFound is the answer for an agent that does not exist and for
// another person's: nobody learns that someone else's exists.
func agentNotFound() error { return fmt.Errorf("you have no agent with this id: %w", ErrNotFound) }

func agentNameTaken(name string) error {
	return fmt.Errorf("you already have an agent named %q: %w", name, ErrConflict)
}

// CreateAgent saves a new agent of the person. Its spaces must be ones the
// person can open now; a name they already use, in any case, is
// ErrConflict.
func (s *Service) CreateAgent(ctx context.Context, ownerID string, in AgentPatch) (Agent, error) {
	r := storage.Agent{ID: storage.NewID("agent"), OwnerID: ownerID, Enabled: in.Enabled == nil || *in.Enabled, Version: 1,
		Tools: "[]", WithoutTools: "[]", Purpose: DefaultAgentPurpose}
	if in.Name == nil {
		in.Name = new("")
	}
	if in.Spaces == nil {
		in.Spaces = &[]string{}
	}
	in.Version, in.Enabled = nil, nil
	if err := s.patchAgent(ctx, &r, in); err != nil {
		return Agent{}, err
	}
	r.CreatedAt = s.now()
	r.UpdatedAt = r.CreatedAt
	full := func(n int) error {
		return fmt.Errorf("you have %d agents, the most one person keeps; delete one first: %w", n, ErrConflict)
	}
	if err := insertNamed(ctx, s, "create agent", &storage.Person{}, ownerID, "owner_id", MaxAgents, full, agentNameTaken, &r, r.Name); err != nil {
		return Agent{}, err
	}
	return toAgent(r), nil
}

// ListAgents returns the person's agents by name.
func (s *Service) ListAgents(ctx context.Context, ownerID string) ([]Agent, error) {
	var rows []storage.Agent
	if err := s.q(ctx).Where("owner_id = ?", ownerID).Order("lower(name), id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	return mapRows(rows, toAgent), nil
}

// GetAgent returns one agent of the person (another's: ErrNotFound).
func (s *Service) GetAgent(ctx context.Context, ownerID, id string) (Agent, error) {
	r, err := s.agentRow(ctx, ownerID, id)
	if err != nil {
		return Agent{}, err
	}
	return toAgent(r), nil
}

// UpdateAgent changes the set fields, guarded by the patch's Version.
func (s *Service) UpdateAgent(ctx context.Context, ownerID, id string, p AgentPatch) (Agent, error) {
	r, err := s.agentRow(ctx, ownerID, id)
	if err != nil {
		return Agent{}, err
	}
	if p.Version == nil {
		return Agent{}, invalid("/version", "version is required: send the version you read (the agent is at version %d)", r.Version)
	}
	if *p.Version != r.Version {
		return Agent{}, staleAgent(r.Name, r.Version, *p.Version)
	}
	if err := s.patchAgent(ctx, &r, p); err != nil {
		return Agent{}, err
	}
	prev := r.Version
	r.Version, r.UpdatedAt = prev+1, s.now()
	err = updateNamed[storage.Agent](ctx, s, "agent", "owner_id", ownerID, id, r.Name, prev, agentNameTaken,
		map[string]any{"name": r.Name, "persona": r.Persona, "model": r.Model, "effort": r.Effort, "tools": r.Tools,
			"without_tools": r.WithoutTools, "spaces": r.Spaces, "purpose": r.Purpose, "enabled": r.Enabled,
			"version": r.Version, "updated_at": r.UpdatedAt})
	if err != nil {
		return Agent{}, err
	}
	return toAgent(r), nil
}

// staleAgent says a change was made against an older version.
func staleAgent(name string, current, sent int) error {
	return fmt.Errorf("agent %q is at version %d, not %d: it was changed since you read it; read it again and redo your change: %w",
		name, current, sent, ErrStale)
}

// DeleteAgent removes the agent; version, when set, must be the current one.
func (s *Service) DeleteAgent(ctx context.Context, ownerID, id string, version *int) error {
	r, err := s.agentRow(ctx, ownerID, id)
	if err != nil {
		return err
	}
	if version != nil && *version != r.Version {
		return staleAgent(r.Name, r.Version, *version)
	}
	if err := s.q(ctx).Delete(&storage.Agent{}, "id = ? AND owner_id = ?", id, ownerID).Error; err != nil {
		return fmt.Errorf("delete agent %s: %w", id, err)
	}
	return nil
}

func (s *Service) agentRow(ctx context.Context, ownerID, id string) (storage.Agent, error) {
	if BadText(id) {
		return storage.Agent{}, agentNotFound()
	}
	return takeOne[storage.Agent](s.q(ctx).Where("id = ? AND owner_id = ?", id, ownerID), agentNotFound(), "get agent "+id)
}

// patchAgent checks the set fields of p and copies them onto r; the
// spaces are checked against what the owner can open now.
func (s *Service) patchAgent(ctx context.Context, r *storage.Agent, p AgentPatch) error {
	var err error
	if p.Name != nil {
		if r.Name, err = requiredLine("/name", "an agent's name", "an agent needs a name", *p.Name, MaxAgentName); err != nil {
			return err
		}
	}
	if p.Persona != nil {
		v := strings.TrimSpace(*p.Persona)
		if err := CheckText("/persona", v); err != nil {
			return err
		}
		if n := utf8.RuneCountInString(v); n > MaxAgentPersona {
			return invalid("/persona", "an agent's persona has at most %d characters, not %d", MaxAgentPersona, n)
		}
		r.Persona = v
	}
	if p.Model != nil || p.Effort != nil {
		model, effort := r.Model, r.Effort
		if p.Model != nil {
			model = strings.TrimSpace(*p.Model)
		}
		if p.Effort != nil {
			effort = strings.TrimSpace(*p.Effort)
		}
		if err := s.CheckModelChoice("", model, effort); err != nil {
			return err
		}
		r.Model, r.Effort = model, effort
	}
	if p.Purpose != nil {
		if r.Purpose, err = checkPurpose(*p.Purpose); err != nil {
			return err
		}
		if r.Purpose == "" {
			r.Purpose = DefaultAgentPurpose
		}
	}
	for _, f := range []struct {
		path string
		in   *[]string
		to   *string
	}{{"/tools", p.Tools, &r.Tools}, {"/withoutTools", p.WithoutTools, &r.WithoutTools}} {
		if f.in == nil {
			continue
		}
		names, err := checkToolNames(f.path, *f.in)
		if err != nil {
			return err
		}
		*f.to = marshalList(names)
	}
	if p.Spaces != nil {
		spaces, err := s.agentSpaces(ctx, r.OwnerID, *p.Spaces)
		if err != nil {
			return err
		}
		r.Spaces = marshalList(spaces)
	}
	if p.Enabled != nil {
		r.Enabled = *p.Enabled
	}
	return nil
}

func marshalList(v []string) string {
	raw, _ := json.Marshal(v) // a []string always marshals
	return string(raw)
}

// checkToolNames trims names and drops repeats; each must be a tool name.
func checkToolNames(path string, in []string) ([]string, error) {
	if len(in) > MaxAgentTools {
		return nil, invalid(path, "at most %d tools, not %d", MaxAgentTools, len(in))
	}
	out := []string{}
	for i, n := range in {
		n = strings.TrimSpace(n)
		if !toolName.MatchString(n) {
			return nil, invalid(fmt.Sprintf("%s/%d", path, i), "a tool's name is 1 to 64 letters, digits, underscores or dashes")
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// agentSpaces checks an agent's spaces: at least one, each one the owner
// can open now; repeats are dropped.
func (s *Service) agentSpaces(ctx context.Context, ownerID string, ids []string) ([]string, error) {
	switch {
	case len(ids) == 0:
		return nil, invalid("/spaces", "an agent needs a space to work in: name at least one of yours")
	case len(ids) > MaxAgentSpaces:
		return nil, invalid("/spaces", "an agent works in at most %d spaces, not %d", MaxAgentSpaces, len(ids))
	}
	out := []string{}
	for i, id := range ids {
		at := fmt.Sprintf("/spaces/%d", i)
		if strings.TrimSpace(id) == "" {
			return nil, invalid(at, "a space id is required")
		}
		if slices.Contains(out, id) {
			continue
		}
		if _, err := s.Access(ctx, ownerID, id); err != nil {
			var nf *NotFoundError
			if errors.As(err, &nf) {
				return nil, &NotFoundError{Kind: "space", ID: id, Path: at}
			}
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}
