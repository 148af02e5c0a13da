package assistant

import (
	"fmt"
	"strings"

	"hub/playbooks"
	"hub/workspace"
)

// personPrompts are the catalog's entries for the person's blocks of the
// system message (instructions_person.go): a typical turn's instructions
// with all of them, and each block at its limits.
func personPrompts(zone string) []Prompt {
	index := ""
	if books, err := playbooks.All(); err == nil { // as Catalog: a failure leaves them out
		index = playbooks.Index(books)
	}
	typical := Profile{Playbooks: index, FirstName: "Mira", SpaceName: "Acme Legal", Role: string(workspace.RoleEditor),
		WritePolicy: workspace.PolicyImmediate, TimeZone: zone, Persona: "I work as a lawyer for small companies",
		Skills: []SkillLine{
			{ID: "skill_0a1b2c3d4e5f6g7h", Name: "Client email", Description: "How I answer a client: short, formal, no legalese, and a next step with a date."},
			{ID: "skill_1b2c3d4e5f6g7h8i", Name: "Weekly report", Description: "The Friday status report for the partners: done, next, blocked."},
			{ID: "skill_2c3d4e5f6g7h8i9j", Name: "Contract review", Description: "What I check first in a contract and how I list the findings."},
		},
		Apps: &AppsState{Writes: true, Apps: []workspace.Connection{
			{Name: "Alerts", Kind: workspace.ConnectionWebhook, Enabled: true, Failure: "it answered 410 Gone"},
			{Name: "Partners channel", Kind: workspace.ConnectionWebhook, Enabled: true},
			{Name: "Team updates", Kind: workspace.ConnectionWebhook, Enabled: true},
		}},
	}
	var skills []SkillLine
	for i := range MaxListedSkills {
		skills = append(skills, SkillLine{ID: fmt.Sprintf("skill_%016d", i),
			Name:        strings.Repeat("Skill name ", workspace.MaxSkillName/11),
			Description: strings.Repeat("When a request is about this ", workspace.MaxSkillDescription/29)})
	}
	var apps []workspace.Connection
	for i := range MaxListedApps + 3 {
		apps = append(apps, workspace.Connection{Name: fmt.Sprintf("%02d ", i) + strings.Repeat("Team channel ", workspace.MaxConnectionName/13),
			Kind: workspace.ConnectionWebhook, Enabled: true, Failure: "it answered 503 Service Unavailable"})
	}
	return []Prompt{
		{
			Name:        "instructions.typical",
			Description: "The system message of a typical turn: the playbook names, a persona line, three personal skills and three connected apps (one failing). It changes only when the person or the space's apps change, so a provider's prompt cache reuses it from one message to the next.",
			Text:        Instructions(typical),
			Budget:      TypicalInstructionsBudget,
		},
		{
			Name:        "instructions.persona",
			Description: "The persona line of the system message: the person's one sentence about their work (at most 200 characters), named as theirs.",
			Text:        PersonaBlock("Mira", strings.Repeat("I advise small companies ", workspace.MaxPersona/25)),
			Budget:      NoteBudget,
		},
		{
			Name:        "instructions.skills",
			Description: fmt.Sprintf("The skills block of the system message at its limits: %d enabled skills (the most listed) with the longest names and descriptions, read with hub_read_skill.", MaxListedSkills),
			Text:        SkillsBlock(skills),
			Budget:      SkillsBudget,
		},
		{
			Name:        "instructions.apps",
			Description: fmt.Sprintf("The connected-apps block of the system message at its limits: %d apps named (the rest through hub_list_connections), each failing (failing ones past those named on one line), that any other app is not connected and that a change waits for Apply. A guest gets none of it.", MaxListedApps),
			Text:        AppsBlock(string(workspace.RoleEditor), &AppsState{Apps: apps, Writes: true}),
			Budget:      AppsBudget,
		},
	}
}
