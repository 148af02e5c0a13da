// Package toolrun runs one tool call exactly once. The activities that run
// calls (a turn's RunTool; an Apply's ApplySpace, ApplyOutside and
// ApplyStep) are adapters over it: they read the call, hand it to a Runner
// with a Commit that writes the call's outcome row, and publish what the
// person sees. Everything that decides whether a write can happen twice is
// here, once:
//
//   - The recheck. Access is checked now, not trusted from when the turn
//     started or the write was proposed: the person's role in the space the
//     call acts in and, for a call that acts in another of its turn's
//     spaces, in the conversation's space too. A person who lost access gets
//     a Refused outcome and nothing runs. Their assistant settings are read
//     again too (the write policy decides what is held).
//   - The transaction. Reads, writes held for the person's Apply and calls
//     that fail in dispatch run without one. A Hub write runs in one
//     transaction that commits its records together with the outcome row
//     (the Commit runs inside it, with the context that carries it), so a
//     retried activity finds the row and never writes twice. An outside
//     write (tools.Definition.OutsideTransaction, or a connected app's)
//     cannot be rolled back: it runs without a transaction, after the
//     caller's Started has recorded that it is on its way, so a worker that
//     dies after sending leaves a call that is reported Unknown, not sent
//     again.
//   - The Undo group: one per write (Run), or one shared by every write of
//     a batch (RunBatch, an Apply's Hub writes in one space).
//   - The outcome, a typed Kind (outcome.go), of which only Succeeded
//     changed anything.
//
// toolrun sits between the activities and tools and workspace; it knows
// nothing of Temporal, frames or the model, which stay in the activities.
package toolrun
