package activities

import (
	"context"
	"fmt"
	"slices"
	"time"

	"hub/chat"
	"hub/toolrun"
	"hub/tools"
	"hub/workspace"
)

// ApplyTxTimeout bounds one space's Apply transaction, so a slow batch
// rolls back rather than block others.
const ApplyTxTimeout = 30 * time.Second

// ApplyInput names what the person asked to apply: a reply's held calls (all of them, or CallIDs).
type ApplyInput struct {
	MessageID      string
	ConversationID string
	PersonID       string
	CallIDs        []string
	// ResendUnknown sends again an outside write whose outcome is unknown.
	ResendUnknown bool
	// RetryInterrupted runs again a workflow step interrupted while it ran.
	RetryInterrupted bool
}

// ApplyBatches is what an Apply will run: Hub writes grouped by space (one
// transaction each), then workflow calls, then outside writes one by one.
type ApplyBatches struct {
	Spaces []SpaceBatch
	// Plans are hub_run_workflow calls, each step its own durable unit
	// (JSON name as recorded histories carry it).
	Plans   []CallRef `json:"Workflows"`
	Outside []CallRef
}

// CallRef is one call and the space it acts in.
type CallRef struct {
	CallID  string
	SpaceID string
}

// SpaceBatch is the Hub writes of one space, in the order proposed.
type SpaceBatch struct {
	SpaceID string
	CallIDs []string
}

// ApplySpaceInput runs one space's batch.
type ApplySpaceInput struct {
	MessageID string
	PersonID  string
	SpaceID   string
	CallIDs   []string
}

// ApplyOutsideInput runs one outside write.
type ApplyOutsideInput struct {
	MessageID     string
	PersonID      string
	SpaceID       string
	CallID        string
	ResendUnknown bool
}

// ApplyReceipt is a receipt as the Apply answer carries it.
type ApplyReceipt struct {
	CallID       string
	SpaceID      string
	Tool         string
	Status       string
	Summary      string
	ErrorCode    string
	ErrorMessage string
	UndoGroupID  string
	// Refs are the records a succeeded call changed.
	Refs []workspace.Ref `json:",omitempty"`
	// PlanSteps are a hub_run_workflow call's steps (JSON name as recorded histories carry it).
	PlanSteps []PlanStepReceipt `json:"Steps"`
}

// PlanStepReceipt is one workflow step's state.
type PlanStepReceipt struct {
	ID, Tool, Status, Summary, ErrorCode, ErrorMessage, UndoGroupID string
}

// FailCallsInput records calls whose Apply activity failed for good.
type FailCallsInput struct {
	MessageID string
	SpaceID   string
	CallIDs   []string
	Status    string
	Message   string
}

// PlanApply reads the reply's held calls and their receipts and decides
// what runs: a call that succeeded is never sent again; an outside write
// whose outcome is unknown is sent again only when the person says so.
func (a *Activities) PlanApply(ctx context.Context, in ApplyInput) (ApplyBatches, error) {
	calls, err := a.Chat.Proposal(ctx, in.PersonID, in.ConversationID, in.MessageID)
	if err != nil {
		return ApplyBatches{}, gone(err)
	}
	receipts, err := a.Chat.Receipts(ctx, in.MessageID)
	if err != nil {
		return ApplyBatches{}, err
	}
	var plan ApplyBatches
	regs := map[string]*tools.Registry{}
	for _, c := range calls {
		if len(in.CallIDs) > 0 && !slices.Contains(in.CallIDs, c.ID) {
			continue
		}
		r := receipts[c.ID]
		switch {
		case r.Status == chat.ReceiptSucceeded:
			continue
		case c.Status == chat.CallExpired:
			expired := chat.Receipt{CallID: c.ID, SpaceID: c.SpaceID, Status: chat.ReceiptFailed, ErrorCode: chat.CallExpired,
				ErrorMessage: "This proposal waited too long for Apply and expired; nothing was changed. Ask again."}
			if err := a.Chat.SaveReceipt(ctx, in.MessageID, expired); err != nil {
				return ApplyBatches{}, err
			}
			continue
		case (r.Status == chat.ReceiptUnknown || r.Status == chat.ReceiptSending) && !in.ResendUnknown:
			continue
		}
		reg, ok := regs[c.SpaceID]
		if !ok {
			if reg, err = a.registryIn(ctx, c.SpaceID); err != nil {
				return ApplyBatches{}, err
			}
			regs[c.SpaceID] = reg
		}
		ref := CallRef{CallID: c.ID, SpaceID: c.SpaceID}
		if d, ok := reg.Get(c.Tool); ok && toolrun.Outside(d) {
			plan.Outside = append(plan.Outside, ref)
		} else if c.Tool == tools.PlanTool {
			plan.Plans = append(plan.Plans, ref)
		} else if i := slices.IndexFunc(plan.Spaces, func(b SpaceBatch) bool { return b.SpaceID == c.SpaceID }); i >= 0 {
			plan.Spaces[i].CallIDs = append(plan.Spaces[i].CallIDs, c.ID)
		} else {
			plan.Spaces = append(plan.Spaces, SpaceBatch{SpaceID: c.SpaceID, CallIDs: []string{c.ID}})
		}
	}
	if len(plan.Spaces)+len(plan.Plans)+len(plan.Outside) > 0 { // until ApplyReceipts answers
		if err := a.Chat.MarkApplying(ctx, in.MessageID, true); err != nil {
			return ApplyBatches{}, err
		}
	}
	return plan, nil
}

// ApplySpace runs one space's held Hub writes in one transaction with one
// Undo group (toolrun.Runner.RunBatch): all or nothing. Each receipt
// commits with the writes, so a retry writes nothing twice.
func (a *Activities) ApplySpace(ctx context.Context, in ApplySpaceInput) error {
	receipts, err := a.Chat.Receipts(ctx, in.MessageID)
	if err != nil {
		return err
	}
	batch := toolrun.Batch{PersonID: in.PersonID, SpaceID: in.SpaceID, Label: "Apply", Timeout: ApplyTxTimeout}
	var callSpaces []string // each call's own space: "" for its conversation's
	for _, id := range in.CallIDs {
		if receipts[id].Status == chat.ReceiptSucceeded {
			continue
		}
		c, err := a.Chat.GetToolCall(ctx, id)
		if err != nil {
			return gone(err)
		}
		batch.Calls = append(batch.Calls, toolrun.Call{ID: c.ID, Tool: c.Tool, Arguments: c.Input})
		callSpaces = append(callSpaces, c.SpaceID)
	}
	reg, err := a.registryIn(ctx, in.SpaceID)
	if err != nil {
		return err
	}
	outs, err := a.runner(reg).RunBatch(ctx, batch, func(ctx context.Context, outs []toolrun.Outcome) error {
		for i, out := range outs {
			id := batch.Calls[i].ID
			r := receiptOf(id, in.SpaceID, out)
			inSpace(r.Refs, callSpaces[i]) // records of another of the turn's spaces say so
			if out.Kind == toolrun.Succeeded {
				r.Attempts = receipts[id].Attempts + 1
			}
			if err := a.Chat.SaveReceipt(ctx, in.MessageID, r); err != nil {
				return err
			}
		}
		if outs[0].Kind != toolrun.Succeeded {
			return nil // rolled back: nothing to commit
		}
		return a.fault(FaultBeforeCommit)
	})
	if err != nil {
		return fmt.Errorf("apply space %s: %w", in.SpaceID, err)
	}
	if len(outs) == 0 || outs[0].Kind != toolrun.Succeeded {
		return nil
	}
	return a.fault(FaultAfterCommit)
}

// receiptOf is the receipt of an applied call, but for its Attempts.
func receiptOf(callID, spaceID string, out toolrun.Outcome) chat.Receipt {
	r := chat.Receipt{CallID: callID, SpaceID: spaceID}
	switch out.Kind {
	case toolrun.Succeeded:
		r.Status, r.Summary, r.UndoGroupID, r.Refs = chat.ReceiptSucceeded, out.Result.Summary, out.UndoGroupID, capRefs(out.Result.Refs)
	case toolrun.Unattempted:
		r.Status, r.ErrorMessage = chat.ReceiptUnattempted, "not applied: another change in this space failed, so none of them was made"
	case toolrun.Unknown:
		r.Status, r.ErrorCode, r.ErrorMessage = chat.ReceiptUnknown, out.Err.Code, out.Err.Message
	default:
		r.Status, r.ErrorCode, r.ErrorMessage = chat.ReceiptFailed, out.Err.Code, out.Err.Message
	}
	return r
}

// ApplyOutside runs one outside write (a connected app). Its receipt says
// "sending" before the request goes out, so a worker that dies after
// sending leaves it unknown, not sent twice. The activity is not retried.
func (a *Activities) ApplyOutside(ctx context.Context, in ApplyOutsideInput) error {
	receipts, err := a.Chat.Receipts(ctx, in.MessageID)
	if err != nil {
		return err
	}
	prev := receipts[in.CallID]
	if prev.Status == chat.ReceiptSucceeded {
		return nil
	}
	c, err := a.Chat.GetToolCall(ctx, in.CallID)
	if err != nil {
		return gone(err)
	}
	call := toolrun.Call{ID: c.ID, PersonID: in.PersonID, SpaceID: in.SpaceID, Tool: c.Tool, Arguments: c.Input, Applying: true,
		Begun: (prev.Status == chat.ReceiptSending || prev.Status == chat.ReceiptUnknown) && !in.ResendUnknown,
		Started: func(ctx context.Context) error {
			if err := a.fault(FaultBeforeOutside); err != nil {
				return err
			}
			sending := chat.Receipt{CallID: c.ID, SpaceID: in.SpaceID, Status: chat.ReceiptSending, Attempts: prev.Attempts + 1}
			return a.Chat.SaveReceipt(ctx, in.MessageID, sending)
		}}
	reg, err := a.registryIn(ctx, in.SpaceID)
	if err != nil {
		return err
	}
	_, err = a.runner(reg).Run(ctx, call, func(ctx context.Context, out toolrun.Outcome) error {
		switch {
		case call.Begun: // reported unknown as it stands
			prev.Status = chat.ReceiptUnknown
			return a.Chat.SaveReceipt(ctx, in.MessageID, prev)
		case out.Kind == toolrun.Refused:
			return a.Chat.SaveReceipt(ctx, in.MessageID, receiptOf(c.ID, in.SpaceID, out))
		}
		if err := a.fault(FaultAfterSend); err != nil {
			return err
		}
		r := receiptOf(c.ID, in.SpaceID, out)
		r.Attempts = prev.Attempts + 1
		return a.Chat.SaveReceipt(ctx, in.MessageID, r)
	})
	return err
}

// FailCalls records calls whose Apply activity failed for good.
func (a *Activities) FailCalls(ctx context.Context, in FailCallsInput) error {
	receipts, err := a.Chat.Receipts(ctx, in.MessageID)
	if err != nil {
		return err
	}
	for _, id := range in.CallIDs {
		r := receipts[id]
		if r.Status == chat.ReceiptSucceeded {
			continue
		}
		status, message := in.Status, in.Message
		if status == chat.ReceiptUnknown && r.Status != chat.ReceiptSending {
			// It never went out: say so, and let the next Apply send it.
			status, message = chat.ReceiptUnattempted, "not sent: Hub stopped before sending it; apply again to send it"
		}
		r.CallID, r.SpaceID, r.Status, r.ErrorCode, r.ErrorMessage = id, in.SpaceID, status, tools.CodeFailed, message
		if err := a.Chat.SaveReceipt(ctx, in.MessageID, r); err != nil {
			return err
		}
	}
	return nil
}

// ApplyReceipts answers an Apply: the receipt of every call asked for.
func (a *Activities) ApplyReceipts(ctx context.Context, in ApplyInput) ([]ApplyReceipt, error) {
	calls, err := a.Chat.Proposal(ctx, in.PersonID, in.ConversationID, in.MessageID)
	if err != nil {
		return nil, gone(err)
	}
	if err := a.Chat.MarkApplying(ctx, in.MessageID, false); err != nil {
		return nil, err
	}
	receipts, err := a.Chat.Receipts(ctx, in.MessageID)
	if err != nil {
		return nil, err
	}
	var out []ApplyReceipt
	var applied []workspace.Ref // the records the applied calls changed, which the reply names
	byState := map[string]int{}
	var spaces []string
	for _, c := range calls {
		if len(in.CallIDs) > 0 && !slices.Contains(in.CallIDs, c.ID) {
			continue
		}
		r, ok := receipts[c.ID]
		status := r.Status
		switch {
		case !ok:
			status = chat.ReceiptUnattempted
		case status == chat.ReceiptSending:
			status = chat.ReceiptUnknown
		}
		rc := ApplyReceipt{CallID: c.ID, SpaceID: c.SpaceID, Tool: c.Tool, Status: status, Summary: r.Summary,
			ErrorCode: r.ErrorCode, ErrorMessage: r.ErrorMessage, UndoGroupID: r.UndoGroupID, Refs: r.Refs}
		if c.Tool == tools.PlanTool {
			steps, err := a.Chat.PlanSteps(ctx, c.ID)
			if err != nil {
				return nil, err
			}
			for _, st := range steps {
				rc.PlanSteps = append(rc.PlanSteps, PlanStepReceipt{ID: st.StepID, Tool: st.Tool, Status: st.Status, Summary: st.Summary,
					ErrorCode: st.ErrorCode, ErrorMessage: st.ErrorMessage, UndoGroupID: st.UndoGroupID})
			}
		}
		out = append(out, rc)
		if status == chat.ReceiptSucceeded || c.Tool == tools.PlanTool {
			applied = append(applied, r.Refs...) // a workflow's steps that succeeded, too
		}
		byState[string(status)]++
		if c.SpaceID != "" && !slices.Contains(spaces, c.SpaceID) {
			spaces = append(spaces, c.SpaceID)
		}
	}
	if err := a.Chat.AddReplyRefs(ctx, in.MessageID, applied, maxTurnRefs); err != nil {
		return nil, err
	}
	a.Work.applied(byState)
	logTurn(ctx, "apply finished", "message", in.MessageID, "conversation", in.ConversationID, "person", in.PersonID,
		"spaces", spaces, "calls", len(out), "receipts", byState)
	return out, nil
}
