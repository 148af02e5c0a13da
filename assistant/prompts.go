package assistant

import (
	"fmt"
	"strings"
	"time"

	"hub/chat"
	"hub/llm"
	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// Prompt is one text Hub sends a model, as its builder makes it with sample
// values, and the size it must stay within.
type Prompt struct {
	Name        string // stable, e.g. "instructions.preview"
	Description string // when it is sent and why
	Text        string
	// Budget is the most tokens (EstimateTokens) the text may take: every
	// token sent with each request is one less for the person's history.
	Budget int
}

// Tokens is the text's estimated size.
func (p Prompt) Tokens() int { return EstimateTokens(p.Text) }

// Budgets of the catalog's prompts, in estimated tokens.
const (
	// InstructionsBudget bounds the system message: under 5% of DefaultContextWindow.
	InstructionsBudget = 800
	// ContextBudget bounds the sample context block; guides come on top.
	ContextBudget = 300
	// NoteBudget bounds a one-line note or nudge: it must be read at a
	// glance and never crowd out what it is about.
	NoteBudget = 80
	// CharterBudget bounds an agent's charter block: its 2,000 characters.
	CharterBudget = 600
	// ToolBudget bounds one tool's name, description and schema: a longer
	// description is a manual, which belongs in a playbook.
	ToolBudget = 700
	// ScreenBudget bounds what the context says of the screen and the
	// mentions beyond the sample context.
	ScreenBudget = 250
	// ChangedBudget bounds the "since your last message" note at its
	// longest (MaxChangedLines lines).
	ChangedBudget = 350
	// AppToolBudget bounds one connected MCP server's tool as offered, at
	// the longest description and schema a listing keeps.
	AppToolBudget = 2_000
	// PlaybookBudget bounds one playbook's text: two go with a message.
	PlaybookBudget = 1_000
	// SummarizeBudget bounds summarize_file's request around the file's
	// text (at most MaxSummarizeChars characters, on top).
	SummarizeBudget = 250
	// TestSkillBudget bounds test_skill's request at its limits: a skill's
	// longest instructions and the longest sample input.
	TestSkillBudget = 2_800
)

// Budgets of the person's blocks of the system message, each measured at
// its limits: they go with every request, so each is bounded by what is
// listed, never by what the person saved.
const (
	// TypicalInstructionsBudget bounds the system message of a typical
	// turn: the playbook names, a persona, three skills and three apps.
	TypicalInstructionsBudget = 1_000
	// SkillsBudget bounds the skills block at MaxListedSkills skills.
	SkillsBudget = 1_800
	// AppsBudget bounds the apps block at MaxListedApps failing apps.
	AppsBudget = 1_500
)

// sampleNow is the sample date prompts are built with: a fixed Monday, so
// the catalog reads the same every time.
var sampleNow = time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)

// Catalog lists every prompt Hub sends the model, each built by its real
// builder with sample values. appTools are connected apps' tools as offered
// (mcpapps.SampleTools), which this package cannot build.
func Catalog(appTools ...*tools.Definition) []Prompt {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil { // no zone database: the sample is still a valid context
		berlin = time.UTC
	}
	// A playbook that fails to parse (its own tests catch it) leaves the playbooks out, not the catalog.
	books, _ := playbooks.All()
	out := []Prompt{}
	for _, policy := range []string{workspace.PolicyImmediate, workspace.PolicyPreview, workspace.PolicyNeedsMe} {
		out = append(out, Prompt{
			Name:        "instructions." + policy,
			Description: "The system message under write policy " + policy + ": who the assistant works for, how to work, which writes run now, the time zone. The same for every message of a conversation, so a provider's prompt cache reuses it.",
			Text:        Instructions(Profile{FirstName: "Mira", SpaceName: "Acme Legal", Role: string(workspace.RoleEditor), WritePolicy: policy, TimeZone: berlin.String(), Web: true}),
			Budget:      InstructionsBudget,
		})
	}
	out = append(out, personPrompts(berlin.String(), playbooks.Index(books))...)
	out = append(out,
		Prompt{
			Name:        "context",
			Description: "The <context> block in front of the person's message: today, the records they mentioned, what is on screen.",
			Text: TurnContext{Now: sampleNow, Location: berlin,
				Mentions: []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft brief"}, {Kind: "person", ID: "person_2", Label: "Ken Ito"}},
				Page:     `{"view":"board","filters":{"status":"todo"},"selected":["task_1"],"selectedText":"Quarterly numbers are due Friday"}`,
			}.Render(),
			Budget: ContextBudget,
		},
		Prompt{
			Name: "context.screen",
			Description: "In the <context> block: the open item as a link with its status, due date, priority, project and people; the selected records; " +
				"typed mentions that named no single record (the text stays as typed); ids of the page that named nothing the person can open, left out.",
			Text: TurnContext{Now: sampleNow, Location: berlin,
				Unresolved: []Unresolved{
					{Typed: "@task:Call Ken", Reason: "2 tasks have this name; ask which one is meant, or look them up"},
					{Typed: "@people:Mira Chan", Reason: "no person of this space has this name, alone or with the words after it; look it up by other words if needed"},
				},
				Open: &OpenItem{Ref: workspace.Ref{Kind: "task", ID: "task_1", Label: "Draft brief"}, Facts: []string{"status doing", "due 2026-03-06", "priority high",
					"project " + Link(workspace.Ref{Kind: "project", ID: "project_1", Label: "Launch"}), "people " + Link(workspace.Ref{Kind: "person", ID: "person_2", Label: "Ken Ito"}) + " (assignee)"}},
				Selected:  []workspace.Ref{{Kind: "task", ID: "task_3", Label: "Call Ken"}, {Kind: "task", ID: "task_4", Label: "Book room"}},
				Page:      `{"path":"/tasks","surface":{"kind":"board","selectedIds":["task_3","task_4"],"visibleIds":["task_1","task_3","task_4"]}}`,
				PageNotes: []string{"/surface/visibleIds: 2 of 5 ids name no record the person can open in this space"},
			}.Render(),
			Budget: ContextBudget + ScreenBudget,
		},
		Prompt{
			Name: "context.changed",
			Description: "In the <context> block: the records of this conversation someone else changed since the person's last message, " +
				"newest first, at most 10 lines (the last one counting the rest), from the change log.",
			Text:   TurnContext{Now: sampleNow, Location: berlin, Changed: sampleChanges(14)}.Render(),
			Budget: ContextBudget + ChangedBudget,
		},
		note("final-step", "Goes with the turn's last, tools-off model request: answer now with what the tools returned.", FinalStepNote),
		note("held-write", "In the result of a write held for Apply, so the model reports it as proposed, never as done.", HeldWriteNote),
		note("tool-unfinished", "The result of a tool call that never finished (a crash or a stop), so the model does not guess its outcome.",
			ToolMessage(chat.ToolCall{Status: chat.CallPending})),
		Prompt{
			Name:        "history-writes",
			Description: "Added to an earlier reply in history: the writes it made, with their records as links, so later calls still have the ids.",
			Text: WritesNote([]chat.ToolCall{
				{Tool: "hub_create_tasks", Status: chat.CallDone, Summary: "Added 2 tasks: “Draft brief” and “Call Ken”.",
					Refs: []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft brief"}, {Kind: "task", ID: "task_2", Label: "Call Ken"}}},
				{Tool: "hub_update_tasks", Status: chat.CallHeld, Summary: "Move “Draft brief” to Friday.",
					Refs: []workspace.Ref{{Kind: "task", ID: "task_1", Label: "Draft brief"}}},
			}, tools.NewRegistry(tools.CreateTasks, tools.UpdateTasks)),
			Budget: NoteBudget * 2,
		},
		note("nudge.lookup", "Sent back once when a reply promises a lookup before any tool ran.", NudgeLookup),
		note("nudge.tool-call-as-text", "Sent back once when a reply writes a tool call as text.", NudgeToolCallAsText),
		note("nudge.announced-write", "Sent back once when a reply announces a change it did not make.", NudgeAnnouncedWrite),
		note("nudge.held-done", "Sent back once when a reply reports a write held for Apply as done.", NudgeHeldDone),
		note("nudge.cite", "Sent back once when a reply quotes a passage a search found this turn but cites no passage's link.", NudgeCite),
		note("search", "The instructions' citation contract in a space with searchable files (the search tools are then offered).", SearchNote),
		note("continue", "Follows the reply so far when a paused model call runs again on Resume: the model continues it rather than starting over.", ContinueNote),
		note("web.on", "The instructions' line on facts that change when a search provider is configured: they come from hub_web_search and hub_read_web_page.", WebNote(true)),
		note("web.off", "The instructions' line in its place when no search provider is configured (the web tools are then not offered).", WebNote(false)),
		note("verify", "Sent back when a verify hook finds part of the request missing (at most twice a turn).",
			VerifyNote("the due date of “Buy milk”")),
		note("history.attached-files", "Ends an earlier message of the person's that had files attached: its files as links, not sent again.",
			AttachedNote([]workspace.Ref{{Kind: KindFile, ID: "file_1", Label: "plan.pdf"}, {Kind: KindFile, ID: "file_2", Label: "whiteboard.png"}})),
		note("reply.files-not-seen", "Ends a reply whose model refused some attached files (or whose files were deleted since): the person reads what the answer did not draw on.",
			llm.PartsNote([]string{"plan.pdf", "whiteboard.png"})),
	)
	out = append(out, completionPrompts()...)
	reg := tools.Hub(nil)
	// The web tools' schemas do not depend on the search provider.
	reg.Add(tools.WebSearch(nil))
	reg.Add(tools.ReadWebPage(nil))
	// Nor do the search tools' on the store.
	reg.Add(tools.SearchFiles(nil))
	reg.Add(tools.FindPhrase(nil))
	toolPrompt := func(d *tools.Definition, description string, budget int) Prompt {
		return Prompt{Name: "tool." + d.Name, Description: description, Budget: budget,
			Text: ToolText(llm.Tool{Name: d.Name, Description: d.Description, Parameters: d.Schema})}
	}
	for _, d := range reg.Granted(workspace.RoleOwner) {
		out = append(out, toolPrompt(d, "The tool's name, description and input schema, as offered to the model.",
			ToolBudget))
	}
	for _, d := range appTools {
		out = append(out, toolPrompt(d, "A connected MCP server's tool as offered to the model, "+
			"at the longest a listing keeps: Hub's words on what it is (read-only, or a change that waits for Apply) "+
			"around the server's own description and input schema.", AppToolBudget))
	}
	for _, b := range books {
		out = append(out, Prompt{
			Name:        "playbook." + b.Name,
			Description: "Playbook “" + b.Title + "”: preloaded as a guide when a message is about " + b.When + ", or read with hub_how_to.",
			Text:        b.Body,
			Budget:      PlaybookBudget,
		})
	}
	return out
}

// completionPrompts are the requests of the completions (POST
// /api/completions), each built by its real builder.
func completionPrompts() []Prompt {
	return []Prompt{
		{
			Name: "completion.summarize_file",
			Description: fmt.Sprintf("summarize_file: the file's name and text (its first %d characters, not counted here) after instructions asking for a summary and keywords as JSON; "+
				"the summary (at most %d characters) and keywords (at most %d) are saved on the file.", MaxSummarizeChars, MaxSummaryChars, MaxKeywords),
			Text:   RequestText(SummarizeRequest("Q3 report.pdf", "Revenue grew 12% in the third quarter, led by the Berlin office.")),
			Budget: SummarizeBudget,
		},
		{
			Name:        "completion.test_model",
			Description: "test_model: the fixed question a catalog model is asked to check that it answers (the settings screen's \"check this model\").",
			Text:        RequestText(TestModelRequest()),
			Budget:      NoteBudget,
		},
		{
			Name: "completion.test_skill",
			Description: fmt.Sprintf("test_skill: a skill's instructions (at most %d characters) framed as a trial without tools, then the sample input (at most %d characters) as the person's message; measured at both limits.",
				workspace.MaxSkillInstructions, MaxSkillSampleChars),
			Text: RequestText(TestSkillRequest(strings.Repeat("Skill name ", workspace.MaxSkillName/11),
				strings.Repeat("Write the weekly report: done, next, blocked. ", workspace.MaxSkillInstructions/46),
				strings.Repeat("Here are my notes for this week. ", MaxSkillSampleChars/33))),
			Budget: TestSkillBudget,
		},
	}
}

// note is a catalog entry of a one-line note or nudge.
func note(name, description, text string) Prompt {
	return Prompt{Name: name, Description: description, Text: text, Budget: NoteBudget}
}

// sampleChanges are n records changed by others, for the catalog.
func sampleChanges(n int) []workspace.ChangedRecord {
	out := make([]workspace.ChangedRecord, n)
	for i := range out {
		op := []string{workspace.OpUpdated, workspace.OpCreated, workspace.OpDeleted}[i%3]
		out[i] = workspace.ChangedRecord{Kind: "task", ID: fmt.Sprintf("task_%02dabcdefghijklmn", i), Title: fmt.Sprintf("Quarterly report part %d", i+1),
			Op: op, By: []string{"Ken Ito"}}
	}
	return out
}

// personPrompts are the catalog's entries for the person's blocks of the
// system message: a typical turn's instructions, and each block at its
// limits.
func personPrompts(zone, index string) []Prompt {
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
			Name:        "instructions.charter",
			Description: "An agent's turn: its charter (at most 2,000 characters, as its owner wrote it) stands where the person's persona line stands, after a first line naming the agent and the person it works for.",
			Text:        CharterBlock("Mira", strings.Repeat("Prepare my day from the tasks due. ", workspace.MaxAgentPersona/35)),
			Budget:      CharterBudget,
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
