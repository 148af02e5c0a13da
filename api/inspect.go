package api

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"slices"
	"time"

	"github.com/gin-gonic/gin"

	"hub/chat"
	"hub/retrieval"
	"hub/workflows"
	"hub/workspace"
)

// inspectionDTO is what the turn's model saw and did, and where its workflow is.
type inspectionDTO struct {
	Turn         turnDTO             `json:"turn"`
	Workflow     inspectedWorkflow   `json:"workflow"`
	Instructions string              `json:"instructions"`
	Context      string              `json:"context"`
	Offer        inspectedOffer      `json:"offer"`
	HistoryIDs   []string            `json:"historyMessageIds"`
	Steps        []inspectedStepDTO  `json:"steps"`
	ModelCalls   []inspectedModelDTO `json:"modelCalls"`
	ToolCalls    []inspectedCallDTO  `json:"toolCalls"`
	// Retrievals are the searches the tool calls made: what each found in
	// the whole index and within the person's access, what it returned and
	// what the reply cited.
	Retrievals []inspectedRetrievalDTO `json:"retrievals"`
	Frames     []inspectedFrameDTO     `json:"frames"`
	// FramesLeftOut counts frames after the first chat.MaxInspectedFrames.
	FramesLeftOut int64 `json:"framesLeftOut"`
}

type inspectedWorkflow struct {
	Namespace  string `json:"namespace"`
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
	// URL opens the run in the Temporal UI (omitted without one).
	URL string `json:"url,omitempty"`
}

// inspectedOffer is the turn's first offer and what was added to it.
type inspectedOffer struct {
	Tools []inspectedTool `json:"tools"`
	// Playbooks are those the message was routed to (their tools lead the
	// offer); Simple is a simple todo request's fixed offer; Fallback says
	// the word match filled it, and why.
	Playbooks      []string `json:"playbooks"`
	Simple         bool     `json:"simple"`
	Fallback       bool     `json:"fallback"`
	FallbackReason string   `json:"fallbackReason,omitempty"`
}

type inspectedTool struct {
	Name string `json:"name"`
	// Why: "offer" (at the start) or "added" (by hub_how_to or hub_find_tools).
	Why string `json:"why"`
}

type inspectedStepDTO struct {
	Step         int      `json:"step"`
	Attempt      int      `json:"attempt"`
	Text         string   `json:"text"`
	FinishReason string   `json:"finishReason"`
	Usage        usageDTO `json:"usage"`
	Nudge        string   `json:"nudge,omitempty"`
	NudgeKind    string   `json:"nudgeKind,omitempty"`
	// PartsLevel: how often the provider refused attached files before this step got through.
	PartsLevel int       `json:"partsLevel"`
	ToolCalls  []string  `json:"toolCallIds"`
	SavedAt    time.Time `json:"savedAt"`
}

// inspectedModelDTO is one request to the model, as billed.
type inspectedModelDTO struct {
	ID                string     `json:"id"`
	Step              int        `json:"step"`
	Model             string     `json:"model"`
	Status            string     `json:"status"`
	ErrorClass        string     `json:"errorClass,omitempty"`
	Estimated         bool       `json:"estimated,omitempty" doc:"The provider reported no usage (the call was stopped, paused, passed its limit or was cut off, or the endpoint sends none): the tokens and cost are Hub's estimate of what was sent and streamed."`
	InputTokens       int64      `json:"inputTokens"`
	CachedInputTokens int64      `json:"cachedInputTokens"`
	OutputTokens      int64      `json:"outputTokens"`
	ReservedMicros    int64      `json:"reservedMicros"`
	CostMicros        int64      `json:"costMicros"`
	StartedAt         time.Time  `json:"startedAt"`
	EndedAt           *time.Time `json:"endedAt"`
	DurationMs        *int64     `json:"durationMs"`
}

type inspectedCallDTO struct {
	ID     string `json:"id"`
	Step   int    `json:"step"`
	Index  int    `json:"index"`
	Tool   string `json:"tool"`
	Status string `json:"status"`
	// Arguments are the model's (JSON when they parse, else a string); Result what it got back.
	Arguments   any         `json:"arguments"`
	Result      any         `json:"result"`
	Summary     string      `json:"summary,omitempty"`
	Refs        []refDTO    `json:"refs"`
	Error       *errorDTO   `json:"error,omitempty"`
	HeldFor     string      `json:"heldFor,omitempty"`
	UndoGroupID string      `json:"undoGroupId,omitempty"`
	SpaceID     string      `json:"spaceId,omitempty"`
	Receipt     *receiptDTO `json:"receipt,omitempty"`
	CreatedAt   time.Time   `json:"createdAt"`
	UpdatedAt   time.Time   `json:"updatedAt"`
}

type inspectedFrameDTO struct {
	Seq  int64           `json:"seq"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
	At   time.Time       `json:"at"`
}

type inspectedRetrievalDTO struct {
	CallID string `json:"callId"`
	Tool   string `json:"tool"`
	Query  string `json:"query"`
	// CandidatesBefore counts the matches in the whole index, every space's;
	// CandidatesAfter those in the searched space, for its person.
	CandidatesBefore int                   `json:"candidatesBefore"`
	CandidatesAfter  int                   `json:"candidatesAfter"`
	Results          []inspectedPassageDTO `json:"results"`
	Cited            []string              `json:"cited" doc:"The links of results the reply cited."`
	TookMS           int64                 `json:"tookMs"`
	At               time.Time             `json:"at"`
}

type inspectedPassageDTO struct {
	Rank      int     `json:"rank"`
	Link      string  `json:"link"`
	Source    string  `json:"source"`
	PassageID int64   `json:"passageId"`
	Score     float64 `json:"score"`
}

func toRetrievalDTO(r retrieval.Retrieval) inspectedRetrievalDTO {
	return inspectedRetrievalDTO{CallID: r.CallID, Tool: r.Tool, Query: r.Query, CandidatesBefore: r.CandidatesBefore,
		CandidatesAfter: r.CandidatesAfter, Cited: nonNilStrings(r.Cited), TookMS: r.TookMS, At: r.At,
		Results: toDTOs(r.Results, func(h retrieval.RecordedHit) inspectedPassageDTO { return inspectedPassageDTO(h) })}
}

// inspectTurn is the run inspector. The owner of the turn's conversation,
// in a space they can still open, reads it (anyone else: 404): it holds
// what the model was told about them and their space. An operator token
// reads any turn, and each such read is logged.
func (s *Server) inspectTurn(c *gin.Context) (any, error) {
	ctx := c.Request.Context()
	token, turnID := bearer(c), c.Param("turnId")
	var in chat.Inspection
	if op, err := s.Workspace.AuthenticateScoped(ctx, token, workspace.OperatorScope); err == nil {
		c.Set(personKey, op)
		if in, err = s.Chat.InspectAny(ctx, turnID); err != nil {
			return nil, err
		}
		slog.InfoContext(ctx, "operator read a turn's run", "operator", op.ID, "turn", turnID, "person", in.Turn.PersonID, "space", in.Turn.SpaceID)
	} else {
		var p workspace.Person
		if token == "" && sessionOf(c) != "" {
			p, err = s.sessionPerson(c, sessionOf(c))
		} else {
			p, err = s.Workspace.Authenticate(ctx, token, "")
		}
		if err != nil {
			return nil, err
		}
		c.Set(personKey, p)
		if in, err = s.Chat.Inspect(ctx, p.ID, turnID); err != nil {
			return nil, err
		}
	}
	t := in.Turn
	out := inspectionDTO{
		Turn:         toTurnDTO(t),
		Workflow:     inspectedWorkflow{Namespace: s.TemporalNamespace, WorkflowID: workflows.TurnWorkflowID(t.ID), RunID: t.RunID},
		Instructions: in.Record.Instructions, Context: in.Record.Context, HistoryIDs: nonNilStrings(in.Record.HistoryIDs),
		Offer: inspectedOffer{Tools: []inspectedTool{}, Playbooks: nonNilStrings(in.Record.OfferWhy.Playbooks), Simple: in.Record.OfferWhy.Simple,
			Fallback: in.Record.OfferWhy.Fallback, FallbackReason: in.Record.OfferWhy.FallbackReason},
		Steps: []inspectedStepDTO{}, ModelCalls: []inspectedModelDTO{}, ToolCalls: []inspectedCallDTO{}, Retrievals: []inspectedRetrievalDTO{},
		Frames:        toDTOs(in.Frames, func(f chat.InspectedFrame) inspectedFrameDTO { return inspectedFrameDTO(f) }),
		FramesLeftOut: in.FramesLeftOut,
	}
	if s.TemporalUI != "" && t.RunID != "" {
		out.Workflow.URL = s.TemporalUI + "/namespaces/" + url.PathEscape(s.TemporalNamespace) + "/workflows/" +
			url.PathEscape(out.Workflow.WorkflowID) + "/" + url.PathEscape(t.RunID) + "/history"
	}
	for _, n := range in.Record.OfferedTools {
		if !slices.Contains(in.Record.AddedTools, n) {
			out.Offer.Tools = append(out.Offer.Tools, inspectedTool{Name: n, Why: "offer"})
		}
	}
	for _, n := range in.Record.AddedTools {
		out.Offer.Tools = append(out.Offer.Tools, inspectedTool{Name: n, Why: "added"})
	}
	callsOf := map[int][]string{}
	for _, tc := range in.Calls {
		d := inspectedCallDTO{ID: tc.ID, Step: tc.Step, Index: tc.Idx, Tool: tc.Tool, Status: tc.Status,
			Arguments: jsonOrString(tc.Arguments), Result: jsonOrString(tc.Result), Summary: tc.Summary, Refs: toRefDTOs(tc.Refs),
			Error: errorOf(tc.ErrorCode, tc.ErrorMessage), HeldFor: tc.HeldFor, UndoGroupID: tc.UndoGroupID, SpaceID: tc.SpaceID,
			CreatedAt: tc.CreatedAt, UpdatedAt: tc.UpdatedAt}
		if r, ok := in.Receipts[tc.ID]; ok {
			rd := toReceiptDTO(tc.ID, tc.Tool, r)
			d.Receipt = &rd
		}
		out.ToolCalls = append(out.ToolCalls, d)
		callsOf[tc.Step] = append(callsOf[tc.Step], tc.ID)
	}
	for _, st := range in.Steps {
		out.Steps = append(out.Steps, inspectedStepDTO{Step: st.Step.Step, Attempt: st.Attempt, Text: st.Text, FinishReason: st.FinishReason,
			Usage: usageDTO(st.Usage), Nudge: st.Nudge, NudgeKind: string(st.NudgeKind),
			PartsLevel: st.PartsLevel, ToolCalls: nonNilStrings(callsOf[st.Step.Step]), SavedAt: st.SavedAt})
	}
	if s.Retrieval != nil {
		rs, err := s.Retrieval.Retrievals(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		out.Retrievals = append(out.Retrievals, toDTOs(rs, toRetrievalDTO)...)
	}
	if s.Usage != nil {
		calls, err := s.Usage.TurnCalls(ctx, t.ID)
		if err != nil {
			return nil, err
		}
		for _, m := range calls {
			d := inspectedModelDTO{ID: m.ID, Step: m.Step, Model: m.Model, Status: m.Status, ErrorClass: m.ErrorKind, Estimated: m.Estimated,
				InputTokens: m.InputTokens, CachedInputTokens: m.CachedInputTokens, OutputTokens: m.OutputTokens,
				ReservedMicros: m.ReservedMicros, CostMicros: m.CostMicros, StartedAt: m.CreatedAt, EndedAt: m.SettledAt}
			if m.SettledAt != nil {
				ms := m.SettledAt.Sub(m.CreatedAt).Milliseconds()
				d.DurationMs = &ms
			}
			out.ModelCalls = append(out.ModelCalls, d)
		}
	}
	return out, nil
}

// jsonOrString is saved JSON as JSON, or as a string when it does not parse (broken arguments).
func jsonOrString(s string) any {
	if s == "" {
		return nil
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	return s
}

// nonNilStrings is s, or [] for none, so a list is never null.
func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
