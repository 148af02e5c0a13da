// Package chat stores the assistant's records: conversations, the messages
// of the person and the assistant, turns with their run records, model steps
// and tool calls. The api writes a turn's start here before it starts the
// workflow; the activities write everything a turn produces.
//
// Only ids cross into workflow payloads; transcripts, prompts and tool
// output stay in these tables.
package chat
