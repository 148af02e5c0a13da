package activities

import (
	"context"
	"errors"
	"slices"

	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/tools"
	"hub/workspace"
)

// offerInput gathers what the turn's tool offer is decided from (Added
// left to the caller), and returns the apps and skills it read for the
// instructions. With refresh, stale MCP listings are listed again first
// (offerApps), so a server that failed just now is named as failing.
func (a *Activities) offerInput(ctx context.Context, turn chat.Turn, user chat.Message, role workspace.Role, settings workspace.Settings, refresh bool) (assistant.OfferInput, turnApps, error) {
	agent, err := a.turnAgent(ctx, turn)
	if err != nil {
		return assistant.OfferInput{}, turnApps{}, err
	}
	reg, appOffers, err := a.offerApps(ctx, turn.SpaceID, refresh && role != workspace.RoleGuest)
	if err != nil {
		return assistant.OfferInput{}, turnApps{}, err
	}
	conns, err := a.Workspace.ListConnections(ctx, workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}, turn.SpaceID)
	if err != nil {
		return assistant.OfferInput{}, turnApps{}, err
	}
	var appNames []string
	for _, c := range conns {
		appNames = append(appNames, c.Name)
	}
	skills, err := a.Workspace.InstructionSkills(ctx, turn.PersonID)
	if err != nil {
		return assistant.OfferInput{}, turnApps{}, err
	}
	searchable := false
	if a.Retrieval != nil {
		if searchable, err = a.Retrieval.HasFiles(ctx, turn.SpaceID); err != nil {
			return assistant.OfferInput{}, turnApps{}, err
		}
	}
	return assistant.OfferInput{
		Registry: reg, Apps: appOffers, Role: role, Settings: settings, Message: user.Text, Mentions: user.Mentions,
		Path: assistant.PagePath(user.PageContext), Page: user.PageContext, AppNames: appNames, Playbooks: a.Playbooks,
		Skills: len(skills) > 0, Searchable: searchable, Added: agent.Tools, Without: agent.WithoutTools,
	}, turnApps{conns: conns, skills: skills, agent: agent}, nil
}

// turnAgent is the agent the turn runs as (a zero Agent for the person's
// own turn). A deleted one ends the turn: its charter and tools are gone.
func (a *Activities) turnAgent(ctx context.Context, turn chat.Turn) (workspace.Agent, error) {
	if turn.AgentID == "" {
		return workspace.Agent{}, nil
	}
	agent, err := a.Workspace.GetAgent(ctx, turn.PersonID, turn.AgentID)
	if errors.Is(err, workspace.ErrNotFound) {
		return agent, temporal.NewNonRetryableApplicationError("the agent of this conversation was deleted", ErrTypeGone, err)
	}
	return agent, err
}

// turnApps are the connected apps of the turn's space as its person sees
// them, the person's enabled skills and the turn's agent (zero for none),
// read once for the offer and the instructions.
type turnApps struct {
	conns  []workspace.Connection
	skills []workspace.Skill
	agent  workspace.Agent
}

// addTools keeps tools a call made available in the turn's offer. What
// the offer needs is read before AddTools locks the turn: on SQLite the
// lock holds the only connection.
func (a *Activities) addTools(ctx context.Context, turn chat.Turn, role workspace.Role, settings workspace.Settings, names []string) error {
	if len(names) == 0 {
		return nil
	}
	user, err := a.Chat.GetMessage(ctx, turn.UserMessageID)
	if err != nil {
		return gone(err)
	}
	in, _, err := a.offerInput(ctx, turn, user, role, settings, false)
	if err != nil {
		return err
	}
	return a.Chat.AddTools(ctx, turn.ID, names, func(added []string) ([]string, error) {
		in.Added = append(slices.Clone(in.Added), added...) // the agent's, then the turn's
		return assistant.BuildOffer(in).Tools, nil
	})
}

// registryIn is the registry calls in a space run against: Hub's tools and
// the space's MCP servers' tools from their kept listings.
func (a *Activities) registryIn(ctx context.Context, spaceID string) (*tools.Registry, error) {
	if a.MCP == nil || spaceID == "" {
		return a.Tools, nil
	}
	defs, err := a.MCP.Definitions(ctx, spaceID)
	if err != nil {
		return nil, err
	}
	return a.Tools.With(defs...), nil
}

// offerApps are the space's working MCP servers for a turn's offer, with
// the registry that holds their tools. With refresh, a stale listing is
// listed again first; a server that fails offers nothing.
func (a *Activities) offerApps(ctx context.Context, spaceID string, refresh bool) (*tools.Registry, []assistant.AppOffer, error) {
	if a.MCP == nil {
		return a.Tools, nil, nil
	}
	list, err := a.MCP.Apps(ctx, spaceID, refresh)
	if err != nil {
		return nil, nil, err
	}
	var defs []*tools.Definition
	offers := make([]assistant.AppOffer, 0, len(list))
	for _, app := range list {
		o := assistant.AppOffer{ConnectionID: app.ID, Name: app.Name}
		for _, d := range app.Tools {
			o.Tools = append(o.Tools, d.Name)
		}
		defs = append(defs, app.Tools...)
		offers = append(offers, o)
	}
	return a.Tools.With(defs...), offers, nil
}
