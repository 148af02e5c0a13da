package activities

import (
	"context"

	"hub/assistant"
	"hub/tools"
)

// registryIn is the registry calls in a space run against: Hub's tools and
// the tools of the space's MCP servers, from their kept listings (nothing
// is asked of the servers here). A held MCP write is found by its name
// again at Apply, as long as its server is connected.
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
// the registry that holds their tools. With refresh (the turn's start), a
// stale listing is listed again first, each server within its timeout; a
// server that fails is recorded as failing (the instructions, read after
// this, name it) and offers nothing: the turn goes on without it.
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
