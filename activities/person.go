package activities

import (
	"hub/assistant"
	"hub/workspace"
)

// personBlocks is what the instructions say about the person and the
// space's apps: their persona, their enabled skills (the instructions list
// them, hub_read_skill reads them) and the connected apps of the
// conversation's space, which a guest is not told of (ListConnections
// gives a guest none).
func personBlocks(person workspace.Person, role workspace.Role, settings workspace.Settings, apps turnApps) assistant.Profile {
	p := assistant.Profile{Persona: person.Persona, Skills: assistant.SkillLines(apps.skills)}
	if role == workspace.RoleGuest {
		return p
	}
	p.Apps = &assistant.AppsState{Apps: apps.conns, Writes: settings.ConnectedAppWrites}
	return p
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
