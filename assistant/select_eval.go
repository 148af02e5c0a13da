package assistant

import (
	"context"
	"fmt"
	"slices"
	"time"

	"hub/llm"
	"hub/playbooks"
	"hub/tools"
	"hub/workspace"
)

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

// Rate is the share of cases whose first answer called an expected tool.
func (r SelectReport) Rate() float64 {
	if r.Runs == 0 {
		return 0
	}
	return float64(r.Hits) / float64(r.Runs)
}

// EvalSelect sends each case's first model request — instructions, the
// context block and the bounded offer, as an owner's turn in a space named
// "Demo" would — and records the tools the model called. Nothing runs:
// only the choice is measured.
func EvalSelect(ctx context.Context, m SelectModel, cases []EvalCase, reg *tools.Registry, all []playbooks.Playbook) SelectReport {
	var rep SelectReport
	instructions := Instructions(Profile{FirstName: "Sam", SpaceName: "Demo", Role: string(workspace.RoleOwner),
		WritePolicy: workspace.PolicyImmediate, TimeZone: "UTC", Playbooks: playbooks.Index(all)})
	for _, c := range cases {
		offer := BuildOffer(OfferInput{Registry: reg, Role: workspace.RoleOwner, Settings: workspace.Settings{ConnectedAppWrites: true},
			Message: c.Request, Path: c.Path, AppNames: c.Apps, Playbooks: all})
		guides := make([]Guide, len(offer.Guides))
		for i, g := range offer.Guides {
			guides[i] = Guide{Name: g.Name, Text: g.Body}
		}
		tc := TurnContext{Now: time.Now(), Recipe: offer.Recipe, Guides: guides}
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
			if slices.Contains(c.Expect, tc.Name) {
				row.Hit = true
			}
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
	return fmt.Sprintf("called an expected tool in %d of %d cases (%.1f%%)", r.Hits, r.Runs, 100*r.Rate())
}
