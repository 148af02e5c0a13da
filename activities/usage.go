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
// its request sets no cap: one step's answer is rarely longer.
const ReserveOutputTokens = 4096

// meter meters the requests of one model call attempt (a turn's CallModel,
// a RunCompletion): each first reserves its estimated cost against the
// space's monthly budget (not sent when it cannot hold it), and once ended
// is settled with what it used, even when stopped. Each reservation and
// settle commits alone, so no transaction is open across the request. The
// request's identity keys its usage row, so no write is counted twice.
type meter struct {
	a        *Activities
	base     usage.Call // who and what the requests are for; ID and Model are set per request
	attempt  int
	identity string
	send     streamer
	info     llm.Model
	price    llm.Price
	try      int // the requests sent so far
}

func (a *Activities) metered(ctx context.Context, turn chat.Turn, step, attempt int, send streamer, info llm.Model) *meter {
	base := usage.Call{TurnID: turn.ID, Step: step, ConversationID: turn.ConversationID, SpaceID: turn.SpaceID,
		PersonID: turn.PersonID, Purpose: turn.Purpose}
	return a.meterFor(base, callIdentity(ctx, turn.ID, step, attempt), attempt, send, info)
}

// meterFor meters the requests of one attempt made for base, each
// identified as identity and its try.
func (a *Activities) meterFor(base usage.Call, identity string, attempt int, send streamer, info llm.Model) *meter {
	m := &meter{a: a, base: base, attempt: attempt, identity: identity, send: send, info: info, price: info.Price}
	if a.Price != nil {
		m.price = a.Price(info.ID)
	}
	return m
}

func (m *meter) call() usage.Call {
	c := m.base
	c.ID, c.Model = m.identity+"."+strconv.Itoa(m.try), m.info.ID
	return c
}

// reserve reserves the request being sent, first (for a retried attempt's
// first request) releasing what the dead attempt before left open: the
// completion's, else the turn's.
func (m *meter) reserve(ctx context.Context, req llm.Request) error {
	store := m.a.Usage
	c := m.call()
	if m.attempt > 1 && m.try == 1 {
		release := store.ReleaseTurn
		key := c.TurnID
		if c.CompletionID != "" {
			release, key = store.ReleaseCompletion, c.CompletionID
		}
		if err := release(ctx, key, c.ID); err != nil {
			return err
		}
	}
	err := store.Reserve(ctx, c, m.price.Cost(EstimateUsage(req, m.a.budgetWindow(m.info))))
	if be := (*usage.BudgetError)(nil); errors.As(err, &be) {
		m.a.Metrics.Refused(m.info.ID)
	}
	return err
}

// Stream sends one request of the attempt (streamWithParts), metered.
func (m *meter) Stream(callCtx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Result, error) {
	m.try++
	ctx := context.WithoutCancel(callCtx)
	if m.a.Usage != nil {
		if err := m.reserve(ctx, req); err != nil {
			return llm.Result{}, err
		}
	}
	if err := m.a.fault(FaultModelReserved); err != nil {
		return llm.Result{}, err
	}
	start := time.Now()
	res, err := m.send.Stream(callCtx, req, onChunk)
	used := res.Usage
	if used == (llm.Usage{}) && reachedModel(res, err) { // no usage chunk: estimate it
		used = EstimateSpent(req, res, m.a.budgetWindow(m.info))
		res.Usage = used // the step, the reply and the done frame count it too
	}
	cost := m.price.Cost(used)
	m.a.Metrics.Observe(m.info.ID, used, cost, time.Since(start), err)
	if m.a.Usage != nil {
		if serr := m.a.Usage.Settle(ctx, m.call(), used, cost, usage.ErrorClass(err)); serr != nil {
			return res, errors.Join(err, serr)
		}
	}
	return res, err
}

// reachedModel tells whether a request that reported no usage was taken up
// by the model, so it is billed: it answered, was stopped or passed the
// model limit, or was cut off after something streamed.
func reachedModel(res llm.Result, err error) bool {
	if err == nil {
		return true
	}
	var le *llm.Error
	if !errors.As(err, &le) {
		return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	}
	switch le.Kind {
	case llm.KindCanceled:
		return true
	case llm.KindTimeout:
		return le.Status == 0
	case llm.KindStreamCut, llm.KindNetwork:
		return res.Text != "" || len(res.ToolCalls) > 0
	}
	return false
}

// EstimateSpent is what a request that reported no usage is settled at,
// marked Estimated: its input as EstimateUsage counts it and the output it
// streamed.
func EstimateSpent(req llm.Request, res llm.Result, window int) llm.Usage {
	in := EstimateUsage(req, window).InputTokens
	out := assistant.EstimateTokens(res.Text)
	for _, c := range res.ToolCalls {
		out += assistant.EstimateTokens(c.Name) + assistant.EstimateTokens(c.Arguments)
	}
	return llm.Usage{InputTokens: in, OutputTokens: out, Estimated: true}
}

var localCalls atomic.Int64

// callIdentity names one model call attempt: the turn and step (or the
// completion and 0), and the workflow run, activity and attempt. Outside
// Temporal every attempt is new.
func callIdentity(ctx context.Context, turnID string, step, attempt int) string {
	base := turnID + "." + strconv.Itoa(step)
	if !activity.IsActivity(ctx) {
		return base + ".local." + strconv.FormatInt(time.Now().UnixNano(), 36) + "." + strconv.FormatInt(localCalls.Add(1), 36)
	}
	info := activity.GetInfo(ctx)
	return base + "." + info.WorkflowExecution.RunID + "." + info.ActivityID + "." + strconv.Itoa(attempt)
}

// Estimates of attached files, in tokens, for a reservation: erring high.
const (
	// ImagePartTokens is a picture: a large one at high detail costs 1,100–1,500 input tokens.
	ImagePartTokens = 1_600
	// FileBytesPerToken is a file part's bytes per token (a PDF's text
	// and page pictures); text files are counted as their text.
	FileBytesPerToken = 3
)

// EstimateUsage is what a request is reserved for: its prompt and files,
// erring high and none cached, but never more than the context window (0:
// unknown), the most a provider bills; and its output cap, or
// ReserveOutputTokens.
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
