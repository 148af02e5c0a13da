package api

import "hub/stream"

// turnFrames are the data of each frame type of a turn's stream, for the
// OpenAPI document. The worker's activities write the frames (as maps);
// e2e/openapi_test.go checks a real turn's frames against these schemas,
// so the two cannot drift apart unseen.
var turnFrames = []struct {
	event string
	data  any
	doc   string
}{
	{stream.TypeRefs, refsFrameDTO{}, "The records the turn knows, before any text."},
	{stream.TypeStatus, statusFrameDTO{}, "A phase change: the step in progress (\"Thinking…\"), the person's pause or stop, a resumed model call (resumed; with discard when it starts over), a retried model call (discard: drop the text since the previous status frame), a reset turn."},
	{stream.TypeText, textFrameDTO{}, "Reply text as it streams: deltas only."},
	{stream.TypeTool, toolFrameDTO{}, "A tool call started, ended (done, failed) or was held for Apply."},
	{stream.TypeProposal, proposalFrameDTO{}, "The held writes waiting for Apply, before the done frame."},
	{stream.TypeTurnError, errorDTO{}, "The turn's error; the same data as the error frame right after it (a name EventSource does not use itself)."},
	{stream.TypeError, errorDTO{}, "The turn's error, right after its turn_error frame."},
	{stream.TypeDone, doneFrameDTO{}, "Always the last frame: how the turn ended."},
}

type refsFrameDTO struct {
	Refs []refDTO `json:"refs"`
}

type statusFrameDTO struct {
	Status  string `json:"status" doc:"working while a model step runs, retrying when a failed model call runs again, paused or stopping right after the person paused or stopped the turn (these two do not start a step's text: a later discard drops the text since the status frame before them), reset in the frame that replaces a reset turn's old done frame"`
	Step    int    `json:"step,omitempty"`
	Text    string `json:"text,omitempty"`
	Discard bool   `json:"discard,omitempty"`
	Resumed bool   `json:"resumed,omitempty" doc:"The first frame of a model call resumed after a pause: it continues the text on screen, or, with discard, starts the step over."`
	Reset   bool   `json:"reset,omitempty" doc:"With discard, after an operator reset the turn: drop everything received before (text, tool rows)."`
}

type textFrameDTO struct {
	Delta string `json:"delta"`
}

type toolFrameDTO struct {
	CallID      string       `json:"callId"`
	Tool        string       `json:"tool"`
	Phase       string       `json:"phase"`
	Summary     string       `json:"summary,omitempty"`
	Error       *errorDetail `json:"error,omitempty"`
	Refs        []refDTO     `json:"refs,omitempty"`
	UndoGroupID string       `json:"undoGroupId,omitempty"`
}

type proposalFrameDTO struct {
	MessageID string            `json:"messageId"`
	Calls     []proposedCallDTO `json:"calls"`
}

type proposedCallDTO struct {
	CallID  string `json:"callId"`
	Tool    string `json:"tool"`
	Preview string `json:"preview"`
	// SpaceID is set when the call acts in another of its turn's spaces.
	SpaceID string `json:"spaceId,omitempty"`
}

// doneFrameDTO is a done frame; Deleted marks the one the api writes for a
// turn whose conversation was deleted while it ran.
type doneFrameDTO struct {
	Status    string   `json:"status"`
	MessageID string   `json:"messageId"`
	Usage     usageDTO `json:"usage"`
	Refs      []refDTO `json:"refs"`
	Deleted   bool     `json:"deleted,omitempty"`
}
