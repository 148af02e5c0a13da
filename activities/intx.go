package activities

import (
	"context"
	"errors"

	"hub/workspace"
)

// A step activity reads what it acts on and then writes. Run one after the
// other, the read is a transaction of its own (an autocommit statement),
// so on Postgres it costs a commit besides the write's. inOneTx runs the
// read inside the write's transaction instead: one commit fewer, and the
// read and the write are one transaction (on SQLite, with its one
// connection, nothing commits between them; on Postgres each statement
// still sees what committed before it, READ COMMITTED, but the read takes
// part in the transaction that writes on it). It saves a commit, not a
// round trip: the read is the same statement.
//
// The transaction is open while the activity decides what to write, so
// nothing in it may leave the process or use a handle of its own: on
// SQLite the transaction holds the only connection (models.Open), and a
// statement on another handle would wait for it forever. When the read
// shows that the activity needs such a thing (an attached file, a space's
// MCP servers, a tool that goes out, an operator's reset to claim), the
// body returns errOutside: the transaction has only read, it rolls back,
// and the activity runs as it did before, its read and writes apart.

// errOutside ends a transaction that has only read: what follows needs
// the network or another handle (see above), so the activity goes on
// outside it.
var errOutside = errors.New("the activity goes on outside the transaction")

// inOneTx runs fn with the activities bound to one transaction
// (workspace.Service.Tx): Workspace is the transaction's Service, Chat
// and Usage write in it, and what Chat reads of the person's access with
// the turn is the transaction's roles (chat.Store.Join). outside is true
// when fn returned errOutside: nothing was written, the caller does the
// activity as it does without a transaction. Frames fn stored in the
// transaction (stream.Bus.PublishIn) are handed to followers by the
// caller, after inOneTx returned, with its error: never before the
// transaction ended.
func (a *Activities) inOneTx(ctx context.Context, fn func(b *Activities) error) (outside bool, err error) {
	var ended func(error)
	err = a.Workspace.Tx(ctx, func(tx *workspace.Service) error {
		b := a.boundTo(tx)
		b.Chat, ended = a.Chat.Join(tx)
		return fn(b)
	})
	if ended != nil {
		ended(err)
	}
	if errors.Is(err, errOutside) {
		return true, nil
	}
	return false, err
}

// inOneTxOrApart runs an activity's body bound to one transaction
// (inOneTx) and, when it returned errOutside, again on the activities
// themselves, its reads and writes apart. The body starts afresh each
// time (what an errOutside run found is not kept). after is called once
// each run ended, with how it ended (nil for the run that went outside: it
// stored nothing), to hand over what it stored.
func (a *Activities) inOneTxOrApart(ctx context.Context, body func(b *Activities, inTx bool) error, after func(error)) error {
	outside, err := a.inOneTx(ctx, func(b *Activities) error { return body(b, true) })
	after(err)
	if outside {
		err = body(a, false)
		after(err)
	}
	return err
}

// boundTo is a copy of the activities whose stores run in tx (Chat is
// bound by the caller, chat.Store.Join). It shares the transcripts of a.
// Usage stays the original's: a model call's meter settles after the
// transaction, and its reservation joins the transaction it is given
// (meter.reserveIn).
func (a *Activities) boundTo(tx *workspace.Service) *Activities {
	b := &Activities{
		Workspace:       tx,
		Chat:            a.Chat,
		Files:           a.Files,
		Tools:           a.Tools,
		MCP:             a.MCP,
		Frames:          a.Frames,
		Model:           a.Model,
		ModelConfigured: a.ModelConfigured,
		Models:          a.Models,
		ModelTimeout:    a.ModelTimeout,
		Location:        a.Location,
		Now:             a.Now,
		Interrupts:      a.Interrupts,
		Verifier:        a.Verifier,
		Playbooks:       a.Playbooks,
		ContextTokens:   a.ContextTokens,
		Usage:           a.Usage,
		Price:           a.Price,
		Metrics:         a.Metrics,
		Work:            a.Work,
		Fault:           a.Fault,
		root:            a.rootOf(),
	}
	return b
}

// rootOf is the activities a bound copy was made from (itself when it is
// not one): the one that holds the transcripts.
func (a *Activities) rootOf() *Activities {
	if a.root != nil {
		return a.root
	}
	return a
}

// cache is the transcripts of the turns this worker runs, shared by the
// bound copies.
func (a *Activities) cache() *transcripts { return &a.rootOf().transcripts }

// staysInTx is called by a bound body (inTx) once its read found the
// space without MCP servers: the copy drops the catalog, so that nothing
// later in the transaction can reach the catalog's own handle, whatever
// the activity's memo says by then (a write that changes access forgets
// the memo's answer). A nil catalog offers Hub's own tools only.
func (a *Activities) staysInTx(inTx bool) {
	if inTx {
		a.MCP = nil
	}
}

// mayHaveMCP tells whether a space may have MCP servers, so that its
// registry would be read through the catalog's own handle (mcpapps): not
// when there is no catalog, or when the activity's access read found none
// (workspace.SpaceHasMCP).
func (a *Activities) mayHaveMCP(ctx context.Context, spaceID string) bool {
	if a.MCP == nil || spaceID == "" {
		return false
	}
	has, known := workspace.SpaceHasMCP(ctx, spaceID)
	return has || !known
}
