package assistant

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"hub/llm"
	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

// The tool-selection evaluation (docs/offer.md): labelled requests, each
// with the tools its offer must hold, measured without a model (EvalOffer)
// and through one (EvalSelect).

//go:embed testdata/offer_eval.json
var offerEvalJSON []byte

// EvalCase is one labelled request.
type EvalCase struct {
	Request  string   `json:"request"`
	Expect   []string `json:"expect"`             // the tools that must be offered
	Mentions []string `json:"mentions,omitempty"` // the kinds of records the person @-mentioned
	Apps     []string `json:"apps,omitempty"`     // the names of the space's connected apps
	Skills   bool     `json:"skills,omitempty"`   // the instructions list the person's skills
	Files    bool     `json:"files,omitempty"`    // the space has searchable files
	Path     string   `json:"path,omitempty"`
	// Page is the message's page context as a client sends it.
	Page json.RawMessage `json:"page,omitempty"`
	Note string          `json:"note,omitempty"`
}

// EvalSet is the labelled set as stored.
type EvalSet struct {
	Cases []EvalCase `json:"cases"`
}

// OfferEvalSet returns the shipped labelled set.
func OfferEvalSet() (EvalSet, error) { return ParseEvalSet(offerEvalJSON) }

// ParseEvalSet reads a labelled set, refusing a case without a request or an expected tool.
func ParseEvalSet(raw []byte) (EvalSet, error) {
	var s EvalSet
	if err := json.Unmarshal(raw, &s); err != nil {
		return EvalSet{}, fmt.Errorf("offer eval set: %w", err)
	}
	for i, c := range s.Cases {
		if strings.TrimSpace(c.Request) == "" || len(c.Expect) == 0 {
			return EvalSet{}, fmt.Errorf("offer eval set: case %d needs a request and an expected tool", i+1)
		}
	}
	return s, nil
}

// EvalRow is one expected tool of one case.
type EvalRow struct {
	Request   string
	Expected  string
	Position  int // 1-based place in the offer; 0: not offered, -1: not registered (skipped)
	OfferSize int
	Fallback  bool
}

// EvalReport is the evaluation of one registry.
type EvalReport struct {
	Rows []EvalRow
	// Hits counts expected tools offered, Counted those registered, Skipped the others.
	Hits, Counted, Skipped int
}

// Recall is recall@MaxOfferedTools: expected tools offered over expected tools registered.
func (r EvalReport) Recall() float64 { return share(r.Hits, r.Counted) }

// share is part over whole, 0 for nothing.
func share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// EvalOffer builds each case's offer as a turn would (an owner, every
// write area and connected-app writes allowed, so grants leave nothing
// out) and reports where each expected tool landed.
func EvalOffer(cases []EvalCase, reg *tools.Registry, all []playbooks.Playbook) EvalReport {
	var rep EvalReport
	for _, c := range cases {
		var mentions []workspace.Ref
		for i, k := range c.Mentions {
			mentions = append(mentions, workspace.Ref{Kind: k, ID: fmt.Sprintf("%s_%d", k, i+1), Label: k})
		}
		offer := BuildOffer(OfferInput{
			Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true},
			Message: c.Request, Mentions: mentions, Path: c.Path, AppNames: c.Apps, Playbooks: all,
			Skills: c.Skills, Searchable: c.Files, Page: string(c.Page),
		})
		for _, want := range c.Expect {
			row := EvalRow{Request: c.Request, Expected: want, OfferSize: len(offer.Tools), Fallback: offer.Fallback}
			if _, ok := reg.Get(want); !ok {
				row.Position = -1
				rep.Skipped++
			} else {
				rep.Counted++
				row.Position = slices.Index(offer.Tools, want) + 1
				if row.Position > 0 {
					rep.Hits++
				}
			}
			rep.Rows = append(rep.Rows, row)
		}
	}
	return rep
}

// EvalRegistry is the registry the evaluation runs against: every Hub tool
// and the meta tools, then distractors synthetic tools of other apps, so
// the offer is chosen from a haystack the size of a real assistant's.
func EvalRegistry(all []playbooks.Playbook, distractors int) *tools.Registry {
	reg := tools.Hub(nil)
	reg.Add(tools.SearchFiles(nil))
	reg.Add(tools.FindPhrase(nil))
	for _, d := range slices.Concat(MetaTools(all, reg), SyntheticTools(distractors)) {
		reg.Add(d)
	}
	return reg
}

// syntheticApp is an app of the synthetic haystack and what it holds,
// five objects as "one/many/fields".
type syntheticApp struct {
	name, title string
	objects     []string
}

// syntheticApps are realistic neighbours for Hub's tools, whose words
// overlap Hub's on purpose: unrelated words would flatter the ranking.
var syntheticApps = []syntheticApp{
	{"jira", "Jira", []string{"issue/issues/title, description, assignee, due date, priority and labels", "sprint/sprints/name, goal, start and end date", "epic/epics/name, summary and status", "board/boards/name, columns and filter", "comment/comments/text and author"}},
	{"linear", "Linear", []string{"issue/issues/title, description, assignee, priority, estimate and state", "cycle/cycles/name, start and end date", "project/projects/name, lead, target date and status", "team/teams/name, key and members", "label/labels/name and color"}},
	{"asana", "Asana", []string{"task/tasks/name, notes, assignee, due date and section", "project/projects/name, owner, color and status", "section/sections/name and order", "portfolio/portfolios/name and owner", "goal/goals/title, owner and progress"}},
	{"trello", "Trello", []string{"card/cards/name, description, members, due date and labels", "list/lists/name and position", "board/boards/name, members and visibility", "checklist/checklists/name and items", "attachment/attachments/name and URL"}},
	{"clickup", "ClickUp", []string{"task/tasks/name, description, assignees, due date, priority and status", "space/spaces/name and features", "folder/folders/name", "goal/goals/name, owners and targets", "time entry/time entries/duration, task and description"}},
	{"slack", "Slack", []string{"message/messages/channel, text and thread", "channel/channels/name, topic and members", "reminder/reminders/text and time", "user/users/name, title and status", "reaction/reactions/emoji and message"}},
	{"teams", "Microsoft Teams", []string{"message/messages/channel, text and mentions", "channel/channels/name and description", "meeting/meetings/subject, attendees and time", "team/teams/name and members", "tab/tabs/name and app"}},
	{"discord", "Discord", []string{"message/messages/channel, content and embeds", "channel/channels/name, topic and category", "role/roles/name, color and permissions", "member/members/nickname and roles", "event/events/name, time and location"}},
	{"gmail", "Gmail", []string{"email/emails/to, subject, body and attachments", "draft/drafts/to, subject and body", "label/labels/name and color", "thread/threads/subject and messages", "filter/filters/criteria and action"}},
	{"outlook", "Outlook", []string{"email/emails/to, subject, body and importance", "event/events/subject, attendees, start and end", "contact/contacts/name, email and phone", "folder/folders/name", "rule/rules/conditions and actions"}},
	{"gcal", "Google Calendar", []string{"event/events/title, attendees, start, end and location", "calendar/calendars/name and time zone", "reminder/reminders/time and method", "room/rooms/name and capacity", "availability/availabilities/people and time range"}},
	{"drive", "Google Drive", []string{"file/files/name, folder and content", "folder/folders/name and parent", "permission/permissions/person, role and file", "comment/comments/text and file", "revision/revisions/file and time"}},
	{"dropbox", "Dropbox", []string{"file/files/path and content", "folder/folders/path", "shared link/shared links/file and expiry", "team member/team members/name, email and role", "paper doc/paper docs/title and content"}},
	{"notion", "Notion", []string{"page/pages/title, parent and content", "database/databases/title and properties", "database row/database rows/properties", "block/blocks/type and text", "comment/comments/text and page"}},
	{"confluence", "Confluence", []string{"page/pages/title, space and body", "space/spaces/key, name and description", "blog post/blog posts/title and body", "attachment/attachments/name and page", "label/labels/name and page"}},
	{"salesforce", "Salesforce", []string{"lead/leads/name, company, email and status", "opportunity/opportunities/name, amount, stage and close date", "account/accounts/name, industry and owner", "contact/contacts/name, email, phone and account", "case/cases/subject, priority and status"}},
	{"hubspot", "HubSpot", []string{"contact/contacts/name, email and lifecycle stage", "deal/deals/name, amount, pipeline and stage", "company/companies/name, domain and owner", "ticket/tickets/subject, priority and pipeline", "note/notes/text and record"}},
	{"pipedrive", "Pipedrive", []string{"deal/deals/title, value, person and stage", "person/persons/name, email and organization", "organization/organizations/name and address", "activity/activities/type, subject, due date and person", "pipeline/pipelines/name and stages"}},
	{"zendesk", "Zendesk", []string{"ticket/tickets/subject, requester, assignee, priority and status", "user/users/name, email and role", "macro/macros/title and actions", "view/views/title and conditions", "article/articles/title and body"}},
	{"intercom", "Intercom", []string{"conversation/conversations/contact, assignee and state", "contact/contacts/name, email and tags", "tag/tags/name", "article/articles/title and body", "team/teams/name and admins"}},
	{"stripe", "Stripe", []string{"invoice/invoices/customer, items, due date and status", "customer/customers/name, email and address", "payment/payments/amount, currency and customer", "refund/refunds/payment and amount", "subscription/subscriptions/customer, plan and status"}},
	{"quickbooks", "QuickBooks", []string{"invoice/invoices/customer, lines and due date", "bill/bills/vendor, lines and due date", "expense/expenses/amount, account and payee", "vendor/vendors/name and email", "report/reports/type and period"}},
	{"github", "GitHub", []string{"issue/issues/title, body, assignees and labels", "pull request/pull requests/title, head, base and reviewers", "repository/repositories/name, visibility and description", "release/releases/tag, name and notes", "workflow run/workflow runs/workflow, branch and status"}},
	{"gitlab", "GitLab", []string{"issue/issues/title, description, assignee and milestone", "merge request/merge requests/title, source, target and reviewers", "pipeline/pipelines/ref and status", "milestone/milestones/title, start and due date", "project/projects/name, path and visibility"}},
	{"bamboohr", "BambooHR", []string{"employee/employees/name, job title, department and manager", "time off request/time off requests/person, dates and type", "department/departments/name and head", "review/reviews/person, reviewer and period", "job opening/job openings/title, department and status"}},
	{"mixpanel", "Mixpanel", []string{"report/reports/name, events and period", "dashboard/dashboards/name and reports", "event/events/name and properties", "funnel/funnels/name and steps", "cohort/cohorts/name and criteria"}},
	{"figma", "Figma", []string{"file/files/name, project and pages", "frame/frames/name and file", "comment/comments/text, file and position", "component/components/name and library", "project/projects/name and team"}},
	{"miro", "Miro", []string{"board/boards/name, description and sharing", "sticky note/sticky notes/text, color and position", "frame/frames/title and board", "card/cards/title, description and assignee", "connector/connectors/start and end items"}},
	{"mailchimp", "Mailchimp", []string{"campaign/campaigns/subject, audience and content", "audience/audiences/name and contacts", "subscriber/subscribers/email, name and tags", "template/templates/name and content", "automation/automations/name, trigger and emails"}},
	{"zoom", "Zoom", []string{"meeting/meetings/topic, start time, duration and attendees", "recording/recordings/meeting and files", "webinar/webinars/topic, time and panelists", "user/users/name, email and type", "room/rooms/name and location"}},
}

// syntheticVerbs describe what each verb does to an object of an app: text
// is a format of the app's title (%[1]s) and the object's names, one (%[2]s)
// and many (%[3]s), and fields (%[4]s).
var syntheticVerbs = []struct {
	verb    string
	isWrite bool
	text    string
}{
	{"list", false, "List %[3]s in %[1]s with their ids and %[4]s. Filter by words; page with a cursor."},
	{"get", false, "Get one %[1]s %[2]s by id with its %[4]s."},
	{"search", false, "Search %[1]s %[3]s by words in their %[4]s."},
	{"create", true, "Create a %[2]s in %[1]s: %[4]s."},
	{"update", true, "Change a %[1]s %[2]s by id: %[4]s. Only the fields given change."},
	{"delete", true, "Delete a %[1]s %[2]s by id. It cannot be undone."},
	{"archive", true, "Archive a %[1]s %[2]s so it no longer shows in lists."},
	{"export", false, "Export %[1]s %[3]s as CSV or JSON with their %[4]s."},
	{"share", true, "Share a %[1]s %[2]s with people by email, as viewers or editors."},
	{"comment", true, "Add a comment to a %[1]s %[2]s, optionally mentioning people."},
}

// SyntheticTools makes n distinct tools of other apps (jira_create_issue,
// …), interleaved app by app so any n draws from all of them; past the
// combinations, names get a numbered suffix. They are ranked, never run.
func SyntheticTools(n int) []*tools.Definition {
	out := make([]*tools.Definition, 0, max(n, 0))
	schema := json.RawMessage(`{"type":"object"}`)
	for round := 0; len(out) < n; round++ {
		suffix := ""
		if round > 0 {
			suffix = fmt.Sprintf("_%d", round+1)
		}
		for oi := 0; oi < 5 && len(out) < n; oi++ {
			for _, v := range syntheticVerbs {
				for _, app := range syntheticApps {
					if len(out) == n {
						break
					}
					o := strings.SplitN(app.objects[oi], "/", 3) // one, many, fields
					name := app.name + "_" + v.verb + "_" + strings.ReplaceAll(o[0], " ", "_") + suffix
					out = append(out, &tools.Definition{Schema: schema, Spec: tools.Spec{
						Name: name, Area: app.name, Description: fmt.Sprintf(v.text, app.title, o[0], o[1], o[2]), IsWrite: v.isWrite,
					}})
				}
			}
		}
	}
	return out
}

// SelectModel is the model an evaluation sends requests to.
type SelectModel interface {
	Stream(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error)
}

// SelectRow is one case sent through a model: which tools it called.
type SelectRow struct {
	Request string
	Expect  []string
	Called  []string
	Hit     bool   // it called one of the expected tools
	Err     string // the call failed
}

// SelectReport is the second evaluation tier: the labelled set through a
// real model, with the offer and the instructions a turn would send.
type SelectReport struct {
	Rows       []SelectRow
	Hits, Runs int
}

// EvalSelect sends each case's first model request, as an owner's turn
// would, and records the tools the model called. Nothing runs: only the
// choice is measured.
func EvalSelect(ctx context.Context, m SelectModel, cases []EvalCase, reg *tools.Registry, all []playbooks.Playbook) SelectReport {
	var rep SelectReport
	instructions := Instructions(Profile{FirstName: "Sam", SpaceName: "Demo", Role: string(workspace.RoleOwner),
		WritePolicy: workspace.PolicyImmediate, TimeZone: "UTC", Playbooks: playbooks.Index(all)})
	for _, c := range cases {
		offer := BuildOffer(OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true},
			Message: c.Request, Path: c.Path, Page: string(c.Page), AppNames: c.Apps, Playbooks: all, Searchable: c.Files})
		guides := make([]Guide, len(offer.Guides))
		for i, g := range offer.Guides {
			guides[i] = Guide{Name: g.Name, Text: g.Body}
		}
		tc := TurnContext{Now: time.Now(), Page: string(c.Page), Recipe: offer.Recipe, Guides: guides}
		req := llm.Request{Tools: ToolSchemas(reg, offer.Tools), Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: instructions},
			{Role: llm.RoleUser, Content: tc.Render() + "\n\n" + c.Request},
		}}
		row := SelectRow{Request: c.Request, Expect: c.Expect}
		res, err := m.Stream(ctx, req, nil)
		if err != nil {
			row.Err = err.Error()
		}
		for _, tc := range res.ToolCalls {
			row.Called = append(row.Called, tc.Name)
			row.Hit = row.Hit || slices.Contains(c.Expect, tc.Name)
		}
		rep.Runs++
		if row.Hit {
			rep.Hits++
		}
		rep.Rows = append(rep.Rows, row)
	}
	return rep
}

// String is a one-line summary.
func (r SelectReport) String() string {
	return fmt.Sprintf("called an expected tool in %d of %d cases (%.1f%%)", r.Hits, r.Runs, 100*share(r.Hits, r.Runs))
}
