// Package turns starts assistant turns: Start checks a person's message
// against what the person may use now, saves it with its turn and stream
// token in one transaction, and starts the turn's workflow; Retry does the
// same for a turn run again.
package turns

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.temporal.io/sdk/client"

	"hub/assistant"
	"hub/chat"
	"hub/files"
	"hub/workflows"
	"hub/workspace"
)

// Limits of what one message may carry.
const (
	MaxMessageChars = 20000
	MaxMentions     = 50
	MaxSpaces       = 20
	MaxContextBytes = 64 << 10
	// MaxReferenceChars bounds a message's reference context: what
	// another screen sends along for the model (~2,000 tokens).
	MaxReferenceChars = 8_000
	// MaxFiles and MaxFileBytes bound a message's files: what the common
	// providers take in one request (OpenAI: 50 MB), before base64.
	MaxFiles     = 8
	MaxFileBytes = 50 << 20
)

// launchTimeout bounds starting a turn's workflow once its request ended.
const launchTimeout = 30 * time.Second

// Starter is the part of the Temporal client that starts workflows.
type Starter interface {
	ExecuteWorkflow(ctx context.Context, options client.StartWorkflowOptions, workflow any, args ...any) (client.WorkflowRun, error)
}

// Service starts turns.
type Service struct {
	Workspace *workspace.Service
	Chat      *chat.Store
	Files     *files.Service
	Temporal  Starter
	// Schedules reaches agents' Temporal Schedules: the Temporal client
	// (nil: schedules answer unavailable).
	Schedules interface{ ScheduleClient() client.ScheduleClient }
	TaskQueue string // "" is workflows.DefaultTaskQueue
	// TurnTimeout bounds a whole turn's wall time; 0 uses
	// workflows.DefaultTurnTimeout.
	TurnTimeout time.Duration
}

// StreamTokenTTL is a stream token's lifetime: a turn's stream is read
// while it runs, and a reconnect within it needs no new token.
const StreamTokenTTL = 2 * time.Hour

// Mention is a record a message mentions, by kind and id in the
// conversation's space.
type Mention struct {
	Kind string
	ID   string
}

// Message is what a person sends to a conversation.
type Message struct {
	ConversationID string
	Text           string
	Mentions       []Mention
	Context        json.RawMessage // the page the person is on: an object, or empty
	Spaces         []string        // other spaces the turn may act in
	Files          []string        // the space's files the model gets
	// Model and Effort choose this turn's model ("": the agent's, else
	// the person's defaults, else the catalog's).
	Model, Effort string
	// AgentID is the agent the message is sent to: ConversationID must be
	// one of its conversations, or "" for a new one in its first space. A
	// message to an agent's conversation without it goes to that agent too.
	AgentID string
	// ReferenceContext is what the screen the person asked from sends
	// along: the model gets it in the turn's context; it is never shown
	// in the transcript or saved as the person's words.
	ReferenceContext string
	// Tier asks for the catalog's model of that class for this message
	// (workspace.Service.TierModel) instead of naming a Model.
	Tier string
	// Fresh starts a new conversation in the space (and of the agent) of
	// ConversationID, where the message goes instead.
	Fresh bool
}

// Started is a turn that was saved and whose workflow started.
type Started struct {
	Turn        chat.Turn
	StreamToken string
}

// TooLargeError is a message whose attached files are too large together.
type TooLargeError struct {
	Path    string
	Message string
}

func (e *TooLargeError) Error() string { return e.Message }

// UnavailableError is a turn that was saved but whose workflow could not
// start: it is saved as an error turn with CodeUnavailable and Message.
type UnavailableError struct {
	Message string
}

func (e *UnavailableError) Error() string { return e.Message }

// CodeUnavailable is the error code of a turn whose workflow could not
// start (the api's code of a 503).
const CodeUnavailable = "unavailable"

func invalid(path, msg string) error { return &workspace.InvalidError{Path: path, Message: msg} }

// Start checks and saves the person's message as a new turn of the
// conversation and starts the turn's workflow. Nothing is saved when a
// check fails; a workflow that cannot start leaves an error turn
// (UnavailableError).
func (s *Service) Start(ctx context.Context, p workspace.Person, m Message) (Started, error) {
	newTurn, err := s.open(ctx, p, m, firing{})
	if err != nil {
		return Started{}, err
	}
	return s.save(ctx, p, newTurn)
}

// firing is what a schedule's firing adds to its turn (none for a
// person's message).
type firing struct {
	writePolicy, scheduleID, run string
}

// open checks the message and returns what saves it as a new turn, in the
// transaction ctx carries.
func (s *Service) open(ctx context.Context, p workspace.Person, m Message, f firing) (func(context.Context) (chat.Turn, error), error) {
	actor := workspace.Actor{PersonID: p.ID, Via: workspace.ViaREST}
	text := strings.TrimSpace(m.Text)
	switch {
	case text == "":
		return nil, invalid("/text", "text is required")
	case utf8.RuneCountInString(text) > MaxMessageChars:
		return nil, invalid("/text", fmt.Sprintf("a message has at most %d characters", MaxMessageChars))
	case len(m.Mentions) > MaxMentions:
		return nil, invalid("/mentions", fmt.Sprintf("at most %d mentions", MaxMentions))
	case len(m.Files) > MaxFiles:
		return nil, invalid("/files", fmt.Sprintf("a message carries at most %d files", MaxFiles))
	case len(m.Spaces) > MaxSpaces:
		return nil, invalid("/spaces", fmt.Sprintf("a turn acts in at most %d other spaces", MaxSpaces))
	}
	page, err := pageContext(m.Context)
	if err != nil {
		return nil, err
	}
	reference := strings.TrimSpace(m.ReferenceContext)
	if err := workspace.CheckText("/referenceContext", reference); err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(reference); n > MaxReferenceChars {
		return nil, invalid("/referenceContext", fmt.Sprintf("a reference context has at most %d characters, not %d", MaxReferenceChars, n))
	}
	conv, agent, err := s.conversation(ctx, p.ID, m)
	if err != nil {
		return nil, err
	}
	if m.Fresh && conv.ID != "" { // saved with the turn, as an agent's first conversation
		conv = chat.Conversation{SpaceID: conv.SpaceID, PersonID: p.ID, AgentID: conv.AgentID}
	}
	// Checked before anything is saved: an unknown model or an effort it
	// does not take never reaches a provider.
	model, effort := strings.TrimSpace(m.Model), strings.TrimSpace(m.Effort)
	if tier := strings.TrimSpace(m.Tier); tier != "" {
		if model != "" {
			return nil, invalid("/tier", "send a model or a tier, not both")
		}
		if model, err = s.Workspace.TierModel(ctx, p.ID, tier); err != nil {
			return nil, err
		}
	}
	if model == "" && effort == "" && agent != nil {
		model, effort = agent.Model, agent.Effort
	}
	model, effort, err = s.Workspace.TurnModel(ctx, p.ID, model, effort)
	if err != nil {
		return nil, err
	}
	asked, skipLost := m.Spaces, false
	if agent != nil && len(m.Spaces) == 0 {
		// The agent's spaces: one its owner left is skipped, not an
		// error, since the agent's settings are not the message.
		asked, skipLost = agent.Spaces, true
	}
	spaces, err := s.otherSpaces(ctx, p.ID, conv.SpaceID, asked, skipLost)
	if err != nil {
		return nil, err
	}
	mentions, err := s.mentions(ctx, actor, conv.SpaceID, text, m.Mentions)
	if err != nil {
		return nil, err
	}
	// Attached files are saved as the message's file mentions.
	attached, err := s.Files.Resolve(ctx, actor, conv.SpaceID, m.Files)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, f := range attached {
		mentions = append(mentions, f.Ref())
		total += f.Size
	}
	if total > MaxFileBytes {
		return nil, &TooLargeError{Path: "/files",
			Message: fmt.Sprintf("the files of one message add up to at most %d MiB; these are %.1f MiB", MaxFileBytes>>20, float64(total)/(1<<20))}
	}
	var purpose string // "": chat.PurposeChat
	if agent != nil {
		purpose = agent.Purpose
	}
	return func(ctx context.Context) (chat.Turn, error) {
		if conv.ID == "" { // an agent's new conversation, saved with its first turn
			var err error
			if conv, err = s.Chat.CreateConversation(ctx, p.ID, conv.SpaceID, conv.Title, conv.AgentID); err != nil {
				return chat.Turn{}, err
			}
		}
		return s.Chat.StartTurn(ctx, chat.NewTurn{ConversationID: conv.ID, PersonID: p.ID, Text: text,
			Mentions: mentions, PageContext: page, Spaces: spaces, Model: model, Effort: effort, Purpose: purpose,
			ReferenceContext: reference, WritePolicy: f.writePolicy, ScheduleID: f.scheduleID, ScheduleRun: f.run, Conversation: &conv})
	}, nil
}

// conversation reads the message's conversation (GetConversation checks
// that the person can open its space now; StartTurn checks it again in its
// first write) and its agent, which must be enabled. A message to an agent
// without a conversation gets a new one in the agent's first space,
// unsaved (ID ""). An agent's conversation read as another's is not found.
func (s *Service) conversation(ctx context.Context, personID string, m Message) (chat.Conversation, *workspace.Agent, error) {
	var conv chat.Conversation
	agentID := m.AgentID
	if m.ConversationID != "" || agentID == "" {
		var err error
		if conv, err = s.Chat.GetConversation(ctx, personID, m.ConversationID); err != nil {
			return chat.Conversation{}, nil, err
		}
		if agentID != "" && conv.AgentID != agentID {
			return chat.Conversation{}, nil, &workspace.NotFoundError{Kind: "conversation", ID: conv.ID, Path: "/conversationId"}
		}
		agentID = conv.AgentID
	}
	if agentID == "" {
		return conv, nil, nil
	}
	agent, err := s.workingAgent(ctx, personID, agentID, m.AgentID != "")
	if err != nil {
		return chat.Conversation{}, nil, err
	}
	if conv.ID == "" {
		home := agent.Spaces[0]
		if _, err := s.Workspace.Access(ctx, personID, home); err != nil {
			return chat.Conversation{}, nil, err
		}
		conv = chat.Conversation{SpaceID: home, PersonID: personID, AgentID: agent.ID} // titled by its first message
	}
	return conv, &agent, nil
}

// workingAgent is the agent a turn is for, which must be switched on. A
// deleted one is not found when the caller addressed it, else (its
// conversation's or its turn's) a conflict.
func (s *Service) workingAgent(ctx context.Context, personID, agentID string, addressed bool) (workspace.Agent, error) {
	agent, err := s.Workspace.GetAgent(ctx, personID, agentID)
	if errors.Is(err, workspace.ErrNotFound) && !addressed {
		return agent, fmt.Errorf("this conversation's agent was deleted; start a conversation of your own: %w", workspace.ErrConflict)
	}
	if err == nil && !agent.Enabled {
		err = fmt.Errorf("agent %q is switched off; switch it on to send it work: %w", agent.Name, workspace.ErrConflict)
	}
	return agent, err
}

// Retry runs the person's turn again in a new turn (chat.Store.RetryTurn)
// and starts its workflow.
func (s *Service) Retry(ctx context.Context, p workspace.Person, turnID string) (Started, error) {
	return s.save(ctx, p, func(ctx context.Context) (chat.Turn, error) {
		t, err := s.Chat.RetryTurn(ctx, p.ID, turnID)
		if err == nil && t.AgentID != "" { // an agent's turn runs again only while the agent may work (else rolled back)
			_, err = s.workingAgent(ctx, p.ID, t.AgentID, false)
		}
		return t, err
	})
}

// save saves the turn newTurn makes and its stream token in one
// transaction, then launches the turn.
func (s *Service) save(ctx context.Context, p workspace.Person, newTurn func(context.Context) (chat.Turn, error)) (Started, error) {
	var turn chat.Turn
	var token string
	err := s.Workspace.InTx(ctx, func(ctx context.Context) error {
		var err error
		if turn, err = newTurn(ctx); err != nil {
			return err
		}
		token, err = s.Workspace.CreateStreamToken(ctx, p, turn.ID, StreamTokenTTL)
		return err
	})
	if err != nil {
		return Started{}, err
	}
	return s.launch(ctx, turn, token)
}

// turnTimeout is a turn's wall-time bound.
func (s *Service) turnTimeout() time.Duration {
	if s.TurnTimeout <= 0 {
		return workflows.DefaultTurnTimeout(0)
	}
	return s.TurnTimeout
}

// pageContext is the message's page context bounded: over-long parts are
// cut, not refused, before the size is checked (docs/decisions.md, "Page
// context limits").
func pageContext(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	bounded, err := assistant.BoundPageContext(raw)
	if err != nil || raw[0] != '{' {
		return "", invalid("/context", "context must be an object")
	}
	if len(bounded) > MaxContextBytes {
		return "", invalid("/context", "context is too large")
	}
	return string(bounded), nil
}

// otherSpaces checks the other spaces a turn may act in: each one the
// person can open (with skipLost, one they cannot is left out instead of
// refused). The conversation's own space and repeats are left out.
func (s *Service) otherSpaces(ctx context.Context, personID, own string, ids []string, skipLost bool) ([]string, error) {
	out := []string{}
	for i, id := range ids {
		at := fmt.Sprintf("/spaces/%d", i)
		if strings.TrimSpace(id) == "" {
			return nil, invalid(at, "a space id is required")
		}
		if id == own || slices.Contains(out, id) {
			continue
		}
		if _, err := s.Workspace.Access(ctx, personID, id); err != nil {
			var nf *workspace.NotFoundError
			switch {
			case errors.As(err, &nf) && skipLost:
				continue
			case errors.As(err, &nf):
				return nil, &workspace.NotFoundError{Kind: "space", ID: id, Path: at}
			}
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// mentions resolves the message's mentions by id, then adds the records
// its typed mentions name ("@task:Draft brief"), at most MaxMentions in
// all. A typed mention that names no single record stays text.
func (s *Service) mentions(ctx context.Context, actor workspace.Actor, spaceID, text string, given []Mention) ([]workspace.Ref, error) {
	out := make([]workspace.Ref, 0, len(given))
	for i, m := range given {
		ref, err := s.Workspace.ResolveRef(ctx, actor, spaceID, m.Kind, m.ID)
		if err != nil {
			return nil, atPath(err, fmt.Sprintf("/mentions/%d", i))
		}
		out = append(out, ref)
	}
	if !assistant.HasTypedMention(text) {
		return out, nil
	}
	refs, _, err := assistant.TypedMentions(ctx, s.Workspace, actor, spaceID, text)
	if err != nil {
		return nil, err
	}
	for _, r := range refs {
		if len(out) == MaxMentions {
			break
		}
		if !slices.ContainsFunc(out, func(m workspace.Ref) bool { return m.Kind == r.Kind && m.ID == r.ID }) {
			out = append(out, r)
		}
	}
	return out, nil
}

// atPath puts a mention's position in front of a domain error's path.
func atPath(err error, prefix string) error {
	switch e := err.(type) {
	case *workspace.NotFoundError:
		return &workspace.NotFoundError{Kind: e.Kind, ID: e.ID, Path: prefix + "/id"}
	case *workspace.InvalidError:
		return &workspace.InvalidError{Path: prefix + e.Path, Message: e.Message}
	}
	return err
}

// launch starts the saved turn's workflow. It must not end with the
// request, or a client that hangs up now leaves a turn queued forever. If
// Temporal cannot be reached, the turn is saved as an error turn
// (UnavailableError).
//
// The turn's own timer ends it at TurnTimeout; Temporal ends the workflow
// outright TurnTimeoutGrace later if even that fails.
func (s *Service) launch(ctx context.Context, turn chat.Turn, token string) (Started, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), launchTimeout)
	defer cancel()
	limit := s.turnTimeout()
	opts := client.StartWorkflowOptions{
		ID:                       workflows.TurnWorkflowID(turn.ID),
		TaskQueue:                cmp.Or(s.TaskQueue, workflows.DefaultTaskQueue),
		WorkflowExecutionTimeout: limit + workflows.TurnTimeoutGrace,
		EnableEagerStart:         true,
		StaticSummary:            "Assistant turn in conversation " + turn.ConversationID,
	}
	in := workflows.TurnInput{TurnID: turn.ID, ConversationID: turn.ConversationID, SpaceID: turn.SpaceID, ActorID: turn.PersonID,
		Model: turn.Model, Effort: turn.Effort}
	opts.TypedSearchAttributes = workflows.TurnSearchAttributes(in, turn.AgentID)
	if _, err := s.Temporal.ExecuteWorkflow(ctx, opts, workflows.Turn, in); err != nil {
		slog.ErrorContext(ctx, "start turn workflow", "turn", turn.ID, "error", err)
		msg := "Hub could not start the assistant (its workflow service is unreachable). Retry in a moment."
		if _, ferr := s.Chat.FinishTurn(ctx, turn.ID, chat.Ending{Status: chat.StatusError, ErrorCode: CodeUnavailable, ErrorMessage: msg}); ferr != nil {
			slog.ErrorContext(ctx, "save failed turn", "turn", turn.ID, "error", ferr)
		}
		return Started{}, &UnavailableError{Message: msg}
	}
	return Started{Turn: turn, StreamToken: token}, nil
}
