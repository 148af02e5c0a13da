package activities

import (
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"time"

	"go.temporal.io/sdk/activity"

	"hub/assistant"
	"hub/chat"
	"hub/llm"
	"hub/usage"
)

// ReserveOutputTokens is the output a model call reserves budget for when
// its request sets no cap (llm.Request.MaxTokens 0): the answer of one
// step is rarely longer. A longer one still settles at its real cost; the
// next call then finds that much less left.
const ReserveOutputTokens = 4096

// FaultModelReserved is called after a model call's reservation is made
// and before its request is sent: the usage tests' stand-in for a worker
// killed with a reservation open.
const FaultModelReserved = "model.reserved"

// FaultModelSettled is called after a model call settled its usage and
// before the step is saved: a worker killed there leaves a settled call
// and an activity that is retried.
const FaultModelSettled = "model.settled"

// sendFunc sends one request to the model.
type sendFunc func(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error)

// metered returns the sender of one CallModel attempt: each request it
// sends (the files' fallback may send more than one) first reserves its
// estimated cost against the space's monthly budget, and is not sent when
// the budget cannot hold it (a *usage.BudgetError); once it ended it is
// settled with the usage the provider reported and observed in the
// per-model metrics. The request's identity — turn, step, workflow run,
// activity, attempt, try — keys its usage row, so a retried attempt's
// request is a row of its own and no write of one is counted twice.
//
// The call goes to send (the turn's model, turnModel) and is priced and
// counted under info, the catalog's entry for it.
func (a *Activities) metered(ctx context.Context, turn chat.Turn, step, attempt int, send streamer, info llm.Model) sendFunc {
	identity := callIdentity(ctx, turn.ID, step, attempt)
	try := 0
	model, price := info.ID, info.Price
	if a.Price != nil {
		price = a.Price(model)
	}
	return func(callCtx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error) {
		try++
		c := usage.Call{ID: identity + "." + strconv.Itoa(try), TurnID: turn.ID, Step: step, ConversationID: turn.ConversationID,
			SpaceID: turn.SpaceID, PersonID: turn.PersonID, Model: model}
		if a.Usage != nil {
			if attempt > 1 && try == 1 {
				// The earlier attempt's worker died: its reservation, if
				// it made one, will never settle.
				if err := a.Usage.ReleaseTurn(ctx, turn.ID, c.ID); err != nil {
					return llm.Result{}, err
				}
			}
			if err := a.Usage.Reserve(ctx, c, price.Cost(EstimateUsage(req, a.budgetWindow(info)))); err != nil {
				var be *usage.BudgetError
				if errors.As(err, &be) {
					a.Metrics.Refused(model)
				}
				return llm.Result{}, err
			}
		}
		if err := a.fault(FaultModelReserved); err != nil {
			return llm.Result{}, err
		}
		start := time.Now()
		res, err := send.Stream(callCtx, req, onChunk)
		cost := price.Cost(res.Usage)
		a.Metrics.Observe(model, res.Usage, cost, time.Since(start), err)
		if a.Usage != nil {
			// Saved even when the call was stopped: what was used was used.
			if serr := a.Usage.Settle(context.WithoutCancel(ctx), c, res.Usage, cost, usage.ErrorClass(err)); serr != nil && err == nil {
				return res, serr
			}
		}
		if err == nil {
			err = a.fault(FaultModelSettled)
		}
		return res, err
	}
}

// localCalls numbers the attempts made outside Temporal.
var localCalls atomic.Int64

// callIdentity names one CallModel attempt: the turn and step, and the
// workflow run, activity and attempt Temporal runs it as (a resumed step is
// a new activity, a reset turn a new run). Outside Temporal (the in-process
// benchmark) every attempt is new.
func callIdentity(ctx context.Context, turnID string, step, attempt int) string {
	base := turnID + "." + strconv.Itoa(step)
	if !activity.IsActivity(ctx) {
		return base + ".local." + strconv.FormatInt(time.Now().UnixNano(), 36) + "." + strconv.FormatInt(localCalls.Add(1), 36)
	}
	info := activity.GetInfo(ctx)
	return base + "." + info.WorkflowExecution.RunID + "." + info.ActivityID + "." + strconv.Itoa(attempt)
}

// Estimates of attached files, in tokens, for a reservation: erring high,
// as the rest of the estimate does.
const (
	// ImagePartTokens is a picture: a large one at high detail costs
	// current models 1,100–1,500 input tokens.
	ImagePartTokens = 1_600
	// FileBytesPerToken is a file part's bytes per token (a PDF's text
	// and page pictures); text files are counted as their text.
	FileBytesPerToken = 3
)

// EstimateUsage is what a request is reserved for: its prompt as
// assistant.MessageTokens and ToolTokens count it, its attached files
// (text as its text, pictures at ImagePartTokens, other files at
// FileBytesPerToken) — erring high, none of it cached, and never more than
// the model's context window (window; 0: unknown), which is the most a
// provider bills — and its output cap, or ReserveOutputTokens without one.
func EstimateUsage(req llm.Request, window int) llm.Usage {
	in := assistant.RequestOverheadTokens
	for _, m := range req.Messages {
		in += assistant.MessageTokens(m)
		for _, p := range m.Parts {
			switch p.Kind {
			case llm.PartText:
				in += assistant.EstimateTokens(string(p.Data)) + assistant.EstimateTokens(p.Name) + 8 // its <file> element
			case llm.PartImage:
				in += ImagePartTokens
			default:
				in += len(p.Data)/FileBytesPerToken + 1
			}
		}
	}
	for _, t := range req.Tools {
		in += assistant.ToolTokens(t)
	}
	if window > 0 {
		in = min(in, window)
	}
	out := req.MaxTokens
	if out <= 0 {
		out = ReserveOutputTokens
	}
	return llm.Usage{InputTokens: in, OutputTokens: out}
}
