// Package toolrun runs one tool call exactly once. The activities that run
// calls are adapters over it: they read the call, hand it to a Runner with
// a Commit that writes the call's outcome row, and publish what the person
// sees. Everything that decides whether a write can happen twice is here:
//
//   - The recheck. Access and settings are read now, not trusted from when
//     the write was proposed: a person who lost access to the call's space
//     (or, across spaces, the conversation's) gets a Refused outcome.
//   - The transaction. A Hub write commits its records together with the
//     outcome row (Commit runs inside it), so a retried activity never
//     writes twice. An outside write cannot be rolled back: it runs after
//     the caller's Started recorded it on its way, so a worker that dies
//     after sending leaves it Unknown, not sent again.
//   - The Undo group: one per write (Run), or one per batch (RunBatch).
//   - The outcome, a typed Kind, of which only Succeeded changed anything.
//
// toolrun knows nothing of Temporal, frames or the model.
package toolrun
