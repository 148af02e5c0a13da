package activities

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"hub/assistant"
	"hub/chat"
	"hub/llm"
	"hub/playbooks"
	"hub/stream"
	"hub/tools"
	"hub/workspace"
)

// MaxSteps is how many model requests one turn makes at most; the last one
// is tools-off, for a final answer, so a turn always ends with one.
const MaxSteps = 8

// PrepareTurn decides the tool offer, renders the instructions and
// context, saves them as the turn's run record and sends the refs the turn
// knows before any text. Running it twice writes the same record again.
func (a *Activities) PrepareTurn(ctx context.Context, in TurnRef) (Plan, error) {
	turn, _, err := a.Chat.GetTurn(ctx, in.TurnID)
	if err != nil {
		return Plan{}, gone(err)
	}
	// A turn's first run (running, no run claimed it) claims it with the
	// writes at the end; a reset's run claims it now, as every activity does.
	runID := workflowRun(ctx)
	claimLater := runID != "" && turn.RunID == "" && turn.FinishedAt == nil
	if !claimLater {
		if err := a.claim(ctx, turn, -1); err != nil {
			return Plan{}, err
		}
	}
	logTurn(ctx, "turn started", "turn", turn.ID, "conversation", turn.ConversationID, "space", turn.SpaceID, "person", turn.PersonID, "model", turn.Model)
	space, err := a.Workspace.GetSpace(ctx, turn.PersonID, turn.SpaceID)
	if errors.Is(err, workspace.ErrNotFound) {
		return Plan{}, temporal.NewNonRetryableApplicationError("you can no longer open this space", ErrTypeForbidden, err)
	}
	if err != nil {
		return Plan{}, err
	}
	person, err := a.Workspace.GetPerson(ctx, turn.PersonID)
	if err != nil {
		return Plan{}, err
	}
	user, history, err := a.turnMessages(ctx, turn)
	if err != nil {
		return Plan{}, err
	}
	settings, err := a.Workspace.GetSettings(ctx, turn.PersonID)
	if err != nil {
		return Plan{}, err
	}
	settings.WritePolicy = cmp.Or(turn.WritePolicy, settings.WritePolicy) // a schedule's turn holds its writes
	var spaces []workspace.Space
	if len(turn.Spaces) > 0 {
		if spaces, err = a.turnSpaces(ctx, turn); err != nil {
			return Plan{}, err
		}
	}
	offerIn, apps, err := a.offerInput(ctx, turn, user, offerRole(space.Role, spaces), settings, true)
	if err != nil {
		return Plan{}, err
	}
	offer := assistant.BuildOffer(offerIn)
	_, web := a.Tools.Get(tools.WebSearchTool)
	loc := cmp.Or(a.Location, time.UTC)
	profile := assistant.Profile{Persona: person.Persona, Agent: apps.agent.Name, Charter: apps.agent.Persona, Skills: assistant.SkillLines(apps.skills), FirstName: person.FirstName(),
		SpaceName: space.Name, Role: string(space.Role), WritePolicy: settings.WritePolicy, TimeZone: loc.String(),
		Playbooks: playbooks.Index(a.Playbooks), Web: web, Search: offerIn.Searchable}
	if space.Role != workspace.RoleGuest {
		profile.Apps = &assistant.AppsState{Apps: apps.conns, Writes: settings.ConnectedAppWrites}
	}
	_, model := a.turnModel(turn, "", "")
	rec := chat.RunRecord{
		Model:        model.ID,
		Instructions: assistant.Instructions(profile),
		OfferedTools: offer.Tools,
		OfferWhy:     chat.OfferWhy{Playbooks: []string{}, Simple: offer.Recipe != "", Fallback: offer.Fallback, FallbackReason: offer.FallbackReason},
	}
	guides := make([]assistant.Guide, len(offer.Guides))
	for i, g := range offer.Guides {
		guides[i] = assistant.Guide{Name: g.Name, Text: g.Body}
		rec.OfferWhy.Playbooks = append(rec.OfferWhy.Playbooks, g.Name)
	}
	tc := assistant.TurnContext{Now: a.now(), Location: loc, Mentions: user.Mentions, Page: user.PageContext, Recipe: offer.Recipe, Spaces: spaces,
		Reference: turn.ReferenceContext}
	known, err := a.screenAndChanges(ctx, turn, user, history, &tc)
	if err != nil {
		return Plan{}, err
	}
	// To fit the model's window history goes first, then guides; the person's message never.
	fitted, report, err := assistant.Fit(assistant.NewBudget(model.Name, a.budgetWindow(model)), assistant.PromptParts{
		Instructions: rec.Instructions, Tools: a.toolSchemas(offerIn.Registry, turn, offer.Tools), Context: tc.Render(),
		Guides: guides, History: assistant.HistoryMessages(history, offerIn.Registry), Message: user.Text,
	})
	if errors.Is(err, assistant.ErrPromptTooLarge) {
		return Plan{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeTooLarge, err)
	}
	if err != nil {
		return Plan{}, err
	}
	tc.Guides = fitted.Guides
	rec.Context = tc.Render()
	for _, m := range history[report.HistoryDropped:] {
		rec.HistoryIDs = append(rec.HistoryIDs, m.ID)
	}
	refs := map[string]any{"refs": nonNilRefs(append(known, skillRefs(profile.Skills)...))}
	err = a.startRun(ctx, turn.ID, runID, claimLater, rec, refs)
	if errors.Is(err, chat.ErrClaimedMeanwhile) { // claim it as a reset's run does, then write
		if err = a.claim(ctx, turn, -1); err == nil {
			err = a.startRun(ctx, turn.ID, runID, false, rec, refs)
		}
	}
	if err != nil {
		return Plan{}, err
	}
	return Plan{Model: model.Name, ModelTimeout: a.ModelTimeout, MaxSteps: MaxSteps, OfferedTools: offer.Tools}, nil
}

// startRun writes what PrepareTurn ends with, in one transaction: the
// run's claim (when claim), the run record, the turn's working status and
// the refs frame, once per attempt of frames.
func (a *Activities) startRun(ctx context.Context, turnID, runID string, claim bool, rec chat.RunRecord, refs any) error {
	err := a.Workspace.InTx(ctx, func(ctx context.Context) error {
		if err := a.Chat.MarkWorking(ctx, turnID, 0); err != nil {
			return err
		}
		if claim {
			if err := a.Chat.Claim(ctx, turnID, runID); err != nil {
				return err
			}
		}
		if err := a.Chat.SaveRunRecord(ctx, turnID, rec); err != nil {
			return err
		}
		_, err := a.Frames.PublishFirst(ctx, turnID, stream.TypeRefs, refs)
		return err
	})
	if err != nil {
		return fmt.Errorf("start run of %s: %w", turnID, err)
	}
	return nil
}

// screenAndChanges fills in what the context block says beyond the
// message's text: unresolved typed mentions, the page resolved in the
// space, and the records someone else changed since the person's last
// message. It returns the refs the turn knows before any tool runs.
func (a *Activities) screenAndChanges(ctx context.Context, turn chat.Turn, user chat.Message, history []chat.Message, tc *assistant.TurnContext) ([]workspace.Ref, error) {
	actor := workspace.Actor{PersonID: turn.PersonID, Via: workspace.ViaAssistant}
	if assistant.HasTypedMention(user.Text) {
		_, unresolved, err := assistant.TypedMentions(ctx, a.Workspace, actor, turn.SpaceID, user.Text)
		if err != nil {
			return nil, err
		}
		tc.Unresolved = unresolved
	}
	screen, err := assistant.ResolveScreen(ctx, a.Workspace, actor, turn.SpaceID, user.PageContext)
	if err != nil {
		return nil, err
	}
	tc.Page, tc.Open, tc.Selected, tc.PageNotes = screen.Page, screen.Open, screen.Selected, screen.Notes
	known := knownRefs(user, history)
	known = dedupeRefs(append(known, screen.Refs...), maxTurnRefs)
	if tc.Changed, err = a.changedMeanwhile(ctx, turn, history, known); err != nil {
		return nil, err
	}
	return known, nil
}

// changedMeanwhile lists the records the turn knows that someone other
// than the person changed since their last message, from the durable
// change log.
func (a *Activities) changedMeanwhile(ctx context.Context, turn chat.Turn, history []chat.Message, known []workspace.Ref) ([]workspace.ChangedRecord, error) {
	var last chat.Message
	for _, m := range history {
		if m.Role == chat.RoleUser {
			last = m
		}
	}
	if last.ID == "" || len(known) == 0 {
		return nil, nil
	}
	spaces := append([]string{turn.SpaceID}, turn.Spaces...)
	ids := make([]string, len(known))
	for i, r := range known {
		ids[i] = r.ID
	}
	return a.Workspace.ChangedByOthers(ctx, turn.PersonID, spaces, ids, last.CreatedAt, a.now())
}

// toolSchemas are the offered tools as the model sees them, with the space
// argument in a turn across spaces.
func (a *Activities) toolSchemas(reg *tools.Registry, turn chat.Turn, offered []string) []llm.Tool {
	ts := assistant.ToolSchemas(reg, offered)
	if len(turn.Spaces) > 0 {
		ts = assistant.CrossSpaceSchemas(ts, reg)
	}
	return ts
}

func nonNilRefs(r []workspace.Ref) []workspace.Ref {
	if r == nil {
		return []workspace.Ref{}
	}
	return r
}
