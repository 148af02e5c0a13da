package activities

import (
	"context"

	"hub/assistant"
	"hub/chat"
	"hub/hub"
)

// buildOffer decides the turn's tool offer from the person's message,
// mentions, open page and connected apps, keeping the tools added during
// the turn (hub_how_to, hub_find_tools).
func (a *Activities) buildOffer(ctx context.Context, turn chat.Turn, user chat.Message, role hub.Role, settings hub.Settings, added []string) (assistant.OfferResult, error) {
	var appNames []string
	conns, err := a.Hub.ListConnections(ctx, hub.Actor{PersonID: turn.PersonID, Via: hub.ViaAssistant}, turn.SpaceID)
	if err != nil {
		return assistant.OfferResult{}, err
	}
	for _, c := range conns {
		appNames = append(appNames, c.Name)
	}
	return assistant.BuildOffer(assistant.OfferInput{
		Registry: a.Tools, Role: role, Settings: settings, Message: user.Text, Mentions: user.Mentions,
		Path: assistant.PagePath(user.PageContext), AppNames: appNames, Playbooks: a.Playbooks, Added: added,
	}), nil
}

// addTools keeps tools a call made available in the turn's offer for the
// rest of the turn.
func (a *Activities) addTools(ctx context.Context, turn chat.Turn, role hub.Role, settings hub.Settings, names []string) error {
	if len(names) == 0 {
		return nil
	}
	user, err := a.Chat.GetMessage(ctx, turn.UserMessageID)
	if err != nil {
		return gone(err)
	}
	return a.Chat.AddTools(ctx, turn.ID, names, func(added []string) ([]string, error) {
		offer, err := a.buildOffer(ctx, turn, user, role, settings, added)
		return offer.Tools, err
	})
}
