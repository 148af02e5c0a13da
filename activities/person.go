package activities

import (
	"context"

	"hub/assistant"
	"hub/chat"
	"hub/workspace"
)

// personBlocks reads what the instructions say about the person and the
// space's apps: their persona, their enabled skills (the instructions list
// them, hub_read_skill reads them) and the connected apps of the
// conversation's space, which a guest is not told of (nil, and nothing is
// read for them).
func (a *Activities) personBlocks(ctx context.Context, turn chat.Turn, person workspace.Person, role workspace.Role, settings workspace.Settings) (assistant.Profile, error) {
	skills, err := a.Workspace.InstructionSkills(ctx, turn.PersonID)
	if err != nil {
		return assistant.Profile{}, err
	}
	p := assistant.Profile{Persona: person.Persona, Skills: assistant.SkillLines(skills)}
	if role == workspace.RoleGuest {
		return p, nil
	}
	conns, err := a.Workspace.ListConnections(ctx, workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}, turn.SpaceID)
	if err != nil {
		return assistant.Profile{}, err
	}
	p.Apps = &assistant.AppsState{Apps: conns, Writes: settings.ConnectedAppWrites}
	return p, nil
}

// skillRefs are the refs of the skills the instructions name, so a reply
// that names one links it.
func skillRefs(skills []assistant.SkillLine) []workspace.Ref {
	var out []workspace.Ref
	for i, k := range skills {
		if i == assistant.MaxListedSkills {
			break
		}
		out = append(out, workspace.Ref{Kind: workspace.KindSkill, ID: k.ID, Label: k.Name})
	}
	return out
}
